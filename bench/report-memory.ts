// Loaded into a benchmark's server with `--import` (bench/rss.ts): writes the process's memory as
// V8 and Node see it to the file `BENCH_MEMORY_FILE` every 500 ms, so the benchmark can say which
// part of the resident set grew: V8's young generation (`new`), its old generation (`old`), its
// other spaces (code, large objects: `heapTotal` holds them all), the live JS heap (`used`), or
// memory outside V8 (`external`, and what none of these count), and how many full collections
// (mark-compact) V8 has made so far.
import { renameSync, writeFileSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';
import type { MemoryReport } from './memory-report.ts';

const file = process.env.BENCH_MEMORY_FILE;
if (file) {
  // Full collections (mark-compact): the old generation only shrinks at one of these.
  let majorGcs = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      // A gc entry's `detail` (Node ≥ 16), which @types/node does not declare on PerformanceEntry.
      const { detail } = entry as PerformanceEntry & { detail?: { kind?: number } };
      if (detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majorGcs++;
    }
  }).observe({ entryTypes: ['gc'] });
  const spaceMb = (name: string) =>
    (getHeapSpaceStatistics().find((s) => s.space_name === name)?.space_size ?? 0) / 1_048_576;
  const partial = `${file}.partial`;
  setInterval(() => {
    const usage = process.memoryUsage();
    const mb = (bytes: number) => bytes / 1_048_576;
    const report: MemoryReport = {
      rss: mb(usage.rss),
      heapTotal: mb(usage.heapTotal),
      heapUsed: mb(usage.heapUsed),
      newSpace: spaceMb('new_space'),
      oldSpace: spaceMb('old_space'),
      external: mb(usage.external),
      majorGcs,
    };
    // Written aside and renamed: rss.ts reads the file at any moment, and must never find it
    // truncated and not yet written (JSON.parse would throw on the empty text).
    writeFileSync(partial, JSON.stringify(report));
    renameSync(partial, file);
  }, 500).unref();
}
