// What bench/rss.ts says of a server's memory: report-memory.ts, loaded into a process, writes it;
// describeMemory words it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeMemory, type MemoryReport } from './memory-report.ts';

describe('where a benchmark server’s memory is', () => {
  it('counts as outside V8 only what none of its heap spaces hold: RSS less all of them and external memory', () => {
    const report: MemoryReport = {
      rss: 250,
      heapTotal: 120,
      heapUsed: 60,
      newSpace: 64,
      oldSpace: 46,
      external: 14,
      majorGcs: 2,
    };
    expect(describeMemory(report)).toBe(
      'V8 young generation 64 MB, old 46 MB, its other spaces 10 MB, live heap 60 MB, external 14 MB, ' +
        "outside V8's heap and external 116 MB, 2 full collections so far",
    );
  });

  it('is written from inside the process, all of V8’s heap spaces in heapTotal', () => {
    const dir = mkdtempSync(join(os.tmpdir(), 'ninepoint-memory-'));
    try {
      const file = join(dir, 'memory.json');
      const reporter = new URL('./report-memory.ts', import.meta.url).pathname;
      // Alive for two writes (every 500 ms).
      const run = spawnSync(process.execPath, ['--import', reporter, '-e', 'setTimeout(() => {}, 1200)'], {
        env: { ...process.env, BENCH_MEMORY_FILE: file },
        encoding: 'utf8',
      });
      expect(run.status, run.stderr).toBe(0);
      const report = JSON.parse(readFileSync(file, 'utf8')) as MemoryReport;
      expect(report.heapTotal).toBeGreaterThan(report.newSpace + report.oldSpace);
      expect(report.rss).toBeGreaterThan(report.heapTotal);
      expect(report.majorGcs).toEqual(expect.any(Number));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
