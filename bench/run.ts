// `npm run bench`: every benchmark, printed as Markdown tables for docs/benchmarks.md.
// `npm run bench -- check` runs only the checker's, `npm run bench -- api` only the HTTP API's,
// `npm run bench -- sign-in` only the failed sign-ins' timing (moved here from the auth tests),
// `npm run bench -- outbox` only the outbox's (docs/outbox.md), `npm run bench -- import` only the
// import of 10,000 and 100,000 CSV rows (docs/benchmarks.md);
// `--no-docs` leaves docs/benchmarks.md as it is (the API benchmark otherwise rewrites its section).
// The API benchmark's parts can be left out: `--no-postgres`, `--no-json-server`, `--no-startup`
// (or BENCH_DATABASES=sqlite, BENCH_JSON_SERVER=0, BENCH_STARTUP_RUNS=0).
import os from 'node:os';
import { apiOptionsFromEnv, benchApi, benchEnvOf, formatApiReport, verdictOf, writeApiDocs } from './api-bench.ts';
import { benchCheck, benchHardSpecs } from './check-spec.bench.ts';
import { benchImport, formatImportReport } from './import.ts';
import { benchOutbox, formatOutboxReport } from './outbox-bench.ts';
import { benchSignIn } from './sign-in.bench.ts';

const TARGET_MS = 150;
const PARTS = ['check', 'sign-in', 'api', 'outbox', 'import'] as const;
const FLAGS = ['--no-docs', '--no-postgres', '--no-json-server', '--no-startup'] as const;

const args = process.argv.slice(2);
const writeDocs = !args.includes('--no-docs');
const named = args.filter((a) => !a.startsWith('--'));
const flags = args.filter((a) => a.startsWith('--'));
const unknown = [
  ...named.filter((a) => !(PARTS as readonly string[]).includes(a)),
  ...flags.filter((a) => !(FLAGS as readonly string[]).includes(a)),
];
if (unknown.length > 0) {
  console.error(
    `usage: npm run bench [-- ${PARTS.join('|')}] [${FLAGS.join('] [')}]   (unknown: ${unknown.join(', ')})`,
  );
  process.exit(2);
}
const parts = named.length > 0 ? named : [...PARTS];

console.log(`# Ninepoint benchmarks\n`);
console.log(
  `${new Date().toISOString()} · Node ${process.version} · ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}\n`,
);

if (parts.includes('check')) {
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
    `\nTarget: the ${base?.entities}-entity spec checks in under ${TARGET_MS} ms — ${verdict} (${base?.medianMs.toFixed(1)} ms).\n`,
  );
  console.log('Huge and pathological specs (the fuzz suite checks only that none hangs):\n');
  console.log('| spec | KB | median ms |');
  console.log('|---|---|---|');
  for (const row of benchHardSpecs()) console.log(`| ${row.name} | ${row.kilobytes} | ${row.medianMs.toFixed(1)} |`);
  console.log('');
}

if (parts.includes('sign-in')) {
  console.log('## A failed sign-in: unknown email and wrong password alike\n');
  const t = await benchSignIn();
  console.log('| failed sign-in | fastest of | ms |');
  console.log('|---|---|---|');
  console.log(`| an email nobody has | ${t.attempts} | ${t.unknownMs.toFixed(1)} |`);
  console.log(`| a wrong password | ${t.attempts} | ${t.wrongMs.toFixed(1)} |`);
  // The same bounds the auth tests asserted before they moved here: within 3× either way, and a
  // real hash's verify (a few ms at least), so the answer's time does not tell who has an account.
  const alike = t.unknownMs >= 3 && t.ratio > 1 / 3 && t.ratio < 3;
  console.log(
    `\nTarget: an unknown email takes as long as a wrong password (within 3× either way) — ${alike ? 'met' : 'NOT met'} (${t.ratio.toFixed(2)}×).\n`,
  );
  if (!alike) process.exitCode = 1;
}

if (parts.includes('outbox')) {
  console.log('## Notifications and calls to other systems (the outbox)\n');
  console.log(formatOutboxReport(await benchOutbox()));
  console.log('');
}

if (parts.includes('import')) {
  console.log('## Importing rows (CSV, SQLite)\n');
  console.log(formatImportReport(await benchImport()));
  console.log('');
}

if (parts.includes('api')) {
  console.log('## HTTP API: generated vs hand-written\n');
  const options = apiOptionsFromEnv();
  if (args.includes('--no-postgres')) options.databases = options.databases.filter((d) => d !== 'postgres');
  if (args.includes('--no-json-server')) options.jsonServer = false;
  if (args.includes('--no-startup')) options.startupRuns = 0;
  const report = await benchApi(options);
  // What reproduces the figures: the parts and the flags that changed them (not where they were written).
  const shown = [...named, ...flags.filter((f) => f !== '--no-docs')];
  const command = `${benchEnvOf()}npm run bench${shown.length > 0 ? ` -- ${shown.join(' ')}` : ''}`;
  const markdown = formatApiReport(report, command);
  console.log(markdown);
  if (writeDocs) {
    writeApiDocs(markdown);
    console.error('docs/benchmarks.md: the HTTP API section is rewritten.');
  }
  if (verdictOf(report).regressions.length > 0) process.exitCode = 1;
}
