import { readFileSync } from 'node:fs';
import { checkSpec } from '../packages/spec/src/check.ts';
for (const f of process.argv.slice(2)) {
  const t = performance.now();
  const r = checkSpec(readFileSync(f, 'utf8'));
  console.log(f, (performance.now() - t).toFixed(1), 'ms', r.ok);
  for (const d of r.diagnostics) console.log(`  ${d.line}:${d.column}-${d.endColumn} ${d.severity} ${d.code} ${d.message} | ${d.hint}`);
}
