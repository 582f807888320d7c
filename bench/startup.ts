// Start-up time: from spawning `ninepoint serve <spec>` (the CLI as users run it, Node and type
// stripping included) to its first 200 from /api/health, on a new empty database (the migration
// included) and on one an earlier start laid out. The server is pinned to CPU 0 like the others;
// this process polls from CPU 1.
import { join } from 'node:path';
import { NODE_FLAGS } from '../scripts/node-flags.mjs';
import { spawnNode } from './child.ts';
import { freePort, statusOf } from './json-server.ts';
import { createSchema } from './postgres.ts';

const CLI = new URL('../packages/cli/bin/ninepoint.js', import.meta.url).pathname;
/** The spec the start-up is timed on: an example of the size users write. */
export const STARTUP_SPEC = new URL('../examples/lending-desk.md', import.meta.url).pathname;

export type StartupDatabase = 'sqlite' | 'postgres';

export interface StartupResult {
  database: StartupDatabase;
  /** `new`: an empty database the start migrates; `existing`: one an earlier start laid out. */
  state: 'new' | 'existing';
  runsMs: number[];
}

interface Target {
  env: NodeJS.ProcessEnv;
  args: string[];
}

/** Times one `ninepoint serve` from spawn to the first 200 from /api/health, then stops it. */
async function timeOneStart(target: Target, pin: boolean): Promise<number> {
  const port = await freePort();
  const args = [
    ...NODE_FLAGS,
    CLI,
    'serve',
    STARTUP_SPEC,
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
    ...target.args,
  ];
  const started = performance.now();
  const { child, stderr, stop } = spawnNode(args, { pin, env: target.env, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const url = `http://127.0.0.1:${port}/api/health`;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const status = await statusOf(url);
      if (status === 200) return performance.now() - started;
      if (child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`ninepoint serve did not answer /api/health: ${stderr().trim() || 'no answer within 60 s'}`);
      }
      // Polling more often would take CPU time from nothing but this process's own core.
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  } finally {
    await stop();
  }
}

/**
 * Median start-up times on each database, over `runs` starts per state. `dir` holds the SQLite
 * files; PostgreSQL gets a schema per start on a new database (dropped after) and one schema for
 * the starts on an existing one.
 */
export async function benchStartup(options: {
  databases: StartupDatabase[];
  runs: number;
  dir: string;
  postgresUrl: string;
  pin: boolean;
  log: (line: string) => void;
}): Promise<StartupResult[]> {
  const results: StartupResult[] = [];
  // As users run it (logging at its default level, to nowhere), and SQLite unless told otherwise.
  const base = { ...process.env };
  delete base.DATABASE_URL;
  for (const database of options.databases) {
    const fresh: number[] = [];
    const again: number[] = [];
    if (database === 'sqlite') {
      const file = (name: string) => ({ env: base, args: ['--db', join(options.dir, name)] });
      for (let run = 0; run < options.runs; run++)
        fresh.push(await timeOneStart(file(`startup-${run}.db`), options.pin));
      // startup-0.db was laid out by the first start above.
      for (let run = 0; run < options.runs; run++) again.push(await timeOneStart(file('startup-0.db'), options.pin));
    } else {
      for (let run = 0; run < options.runs; run++) {
        const schema = await createSchema(options.postgresUrl, 'np_bench_startup');
        try {
          fresh.push(await timeOneStart({ env: { ...base, DATABASE_URL: schema.url }, args: [] }, options.pin));
        } finally {
          await schema.drop();
        }
      }
      const schema = await createSchema(options.postgresUrl, 'np_bench_startup');
      try {
        const target = { env: { ...base, DATABASE_URL: schema.url }, args: [] };
        await timeOneStart(target, options.pin);
        for (let run = 0; run < options.runs; run++) again.push(await timeOneStart(target, options.pin));
      } finally {
        await schema.drop();
      }
    }
    results.push({ database, state: 'new', runsMs: fresh }, { database, state: 'existing', runsMs: again });
    const median = (runs: number[]) => [...runs].sort((a, b) => a - b)[Math.floor(runs.length / 2)]?.toFixed(0);
    options.log(`start-up on ${database}: new database ${median(fresh)} ms, existing ${median(again)} ms`);
  }
  return results;
}
