// `npm run bench`: every benchmark, printed as Markdown tables for docs/benchmarks.md.
import os from 'node:os';
import { benchCheck } from './check-spec.bench.ts';

const TARGET_MS = 150;

console.log(`# Ninepoint benchmarks\n`);
console.log(
  `${new Date().toISOString()} · Node ${process.version} · ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}\n`,
);

console.log('## Checking a spec (`checkSpec`)\n');
const rows = benchCheck();
console.log('| size | entities | fields | state machines | KB | median ms | min ms | ms per entity | vs 1× |');
console.log('|---|---|---|---|---|---|---|---|---|');
const base = rows[0];
for (const [i, r] of rows.entries()) {
  const ratio = base ? r.medianMs / base.medianMs : 1;
  console.log(
    `| ${2 ** i}× | ${r.entities} | ${r.fields} | ${r.machines} | ${r.kilobytes} | ${r.medianMs.toFixed(1)} | ${r.minMs.toFixed(1)} | ${r.msPerEntity.toFixed(3)} | ${ratio.toFixed(2)}× |`,
  );
}
const verdict = base && base.medianMs < TARGET_MS ? 'met' : 'NOT met';
console.log(
  `\nTarget: the ${base?.entities}-entity spec checks in under ${TARGET_MS} ms — ${verdict} (${base?.medianMs.toFixed(1)} ms).`,
);
