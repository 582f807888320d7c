// Loaded into a benchmark's server with `--import` (bench/rss.ts): writes the process's memory as
// V8 and Node see it to the file `BENCH_MEMORY_FILE` every 500 ms, so the benchmark can say which
// part of the resident set grew: V8's young generation (`new`), its old generation (`old`),
// the live JS heap (`used`), or memory outside V8 (`external`, and what none of these count),
// and how many full collections (mark-compact) V8 has made so far.
import { writeFileSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';

const file = process.env.BENCH_MEMORY_FILE;
if (file) {
  // Full collections (mark-compact): the old generation only shrinks at one of these.
  let majorGcs = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if ((entry.detail as { kind?: number } | undefined)?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majorGcs++;
    }
  }).observe({ entryTypes: ['gc'] });
  const spaceMb = (name: string) =>
    (getHeapSpaceStatistics().find((s) => s.space_name === name)?.space_size ?? 0) / 1_048_576;
  setInterval(() => {
    const usage = process.memoryUsage();
    const mb = (bytes: number) => bytes / 1_048_576;
    writeFileSync(
      file,
      JSON.stringify({
        rss: mb(usage.rss),
        heapUsed: mb(usage.heapUsed),
        newSpace: spaceMb('new_space'),
        oldSpace: spaceMb('old_space'),
        external: mb(usage.external),
        majorGcs,
      }),
    );
  }, 500).unref();
}
