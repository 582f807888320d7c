// `node bench/import.ts` (or `npm run bench -- import`): imports CSV files of 10,000 and 100,000
// rows of a 6-field entity (a unique text, a required text, an integer with a range, a decimal, a
// boolean, a date) into a fresh SQLite database through `POST /api/items/import`, the body streamed
// from a generator as it is made. It reports the wall time of each import and the process's
// largest heap and resident size while it ran, sampled every 20 ms; "memory flat" means the
// 100,000-row import peaks about where the 10,000-row one does. BENCH_IMPORT_ROWS overrides the
// larger size. Target: 100,000 rows in under 30 s.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { addUser, assignableRoles, createApiToken, createServer } from '../packages/server/src/index.ts';
import { checkSpec } from '../packages/spec/src/index.ts';

const SPEC = `# Specification: Stock

## 1. What the product does and for whom
The stock of a warehouse, one record per article.

## 2. Screens and routes
Not shown.

## 3. Entities and their fields

### Item
| field    | type       | rules                             |
| -------- | ---------- | --------------------------------- |
| sku      | text       | required, unique, at most 20 characters |
| name     | text       | required, at most 80 characters   |
| qty      | integer    | 0..1000000                        |
| price    | decimal(2) | at least 0                        |
| active   | boolean    | default true                      |
| received | date       | optional                          |

## 4. States and transitions
Not shown.
## 5. Validation rules
Not shown.
## 6. Roles and permissions
| role  | Item |
| ----- | ---- |
| staff | all  |
## 7. The calls it makes
Not shown.
## 8. The error catalogue
Not shown.
## 9. Business constants and limits
Not shown.
`;

const TARGET_SECONDS = 30;

export interface ImportBenchRow {
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  /** MiB, the largest sampled while the import ran, and before it started. */
  peakHeap: number;
  peakRss: number;
  baseHeap: number;
}

/** The CSV of `rows` items, made a block of lines at a time. */
async function* csvOf(rows: number): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  yield encoder.encode('sku,name,qty,price,active,received\n');
  const BLOCK = 1000;
  for (let start = 0; start < rows; start += BLOCK) {
    let text = '';
    for (let i = start; i < Math.min(rows, start + BLOCK); i++) {
      const day = String((i % 28) + 1).padStart(2, '0');
      text += `SKU-${i},"Article ${i}, boxed",${i % 5000},${(i % 1000) + 0.25},${i % 3 === 0 ? 'no' : 'yes'},2026-03-${day}\n`;
    }
    yield encoder.encode(text);
  }
}

async function importOnce(rows: number): Promise<ImportBenchRow> {
  const dir = mkdtempSync(join(tmpdir(), 'ninepoint-import-bench-'));
  const { model } = checkSpec(SPEC);
  const server = await createServer({ model, dbPath: join(dir, 'bench.db'), logger: false });
  try {
    const roles = assignableRoles(model);
    await addUser(server.auth, { email: 'bench@example.test', roles, password: 'correct horse battery staple' }, roles);
    const { secret } = await createApiToken(server.auth, 'bench@example.test', 'bench');
    const url = await server.listen({ port: 0 });
    global.gc?.();
    const base = process.memoryUsage();
    let peakHeap = base.heapUsed;
    let peakRss = base.rss;
    const sample = setInterval(() => {
      const now = process.memoryUsage();
      peakHeap = Math.max(peakHeap, now.heapUsed);
      peakRss = Math.max(peakRss, now.rss);
    }, 20);
    const started = performance.now();
    const body = Readable.toWeb(Readable.from(csvOf(rows)));
    const answer = await fetch(`${url}/api/items/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'text/csv' },
      body,
      duplex: 'half',
    } as RequestInit);
    const report = (await answer.json()) as { imported?: number };
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sample);
    const end = process.memoryUsage();
    peakHeap = Math.max(peakHeap, end.heapUsed);
    peakRss = Math.max(peakRss, end.rss);
    if (answer.status !== 201 || report.imported !== rows) {
      throw new Error(`the import answered ${answer.status}: ${JSON.stringify(report).slice(0, 500)}`);
    }
    const mib = (n: number) => Math.round((n / (1024 * 1024)) * 10) / 10;
    return {
      rows,
      seconds,
      rowsPerSecond: Math.round(rows / seconds),
      peakHeap: mib(peakHeap),
      peakRss: mib(peakRss),
      baseHeap: mib(base.heapUsed),
    };
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchImport(): Promise<ImportBenchRow[]> {
  const large = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000);
  return [await importOnce(10_000), await importOnce(large)];
}

export function formatImportReport(rows: readonly ImportBenchRow[]): string {
  const lines = [
    '| rows | seconds | rows/s | heap before MiB | peak heap MiB | peak RSS MiB |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.rows.toLocaleString('en')} | ${r.seconds.toFixed(1)} | ${r.rowsPerSecond.toLocaleString('en')} | ${r.baseHeap} | ${r.peakHeap} | ${r.peakRss} |`,
    ),
  ];
  const large = rows.at(-1);
  if (large) {
    const met = large.seconds < TARGET_SECONDS;
    lines.push(
      '',
      `Target: ${large.rows.toLocaleString('en')} rows imported in under ${TARGET_SECONDS} s — ${met ? 'met' : 'NOT met'} (${large.seconds.toFixed(1)} s).`,
    );
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(formatImportReport(await benchImport()));
}
