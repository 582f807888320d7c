// One server of the API benchmark, in its own process: `node bench/api-server.ts <kind> <database>`
// with kind `generated` (Ninepoint's createServer on api-bench.spec.md, logging off), `served` (the
// same with the logger `ninepoint serve` makes when its output is not a terminal: one JSON line per
// request on stdout, which the benchmark sends to a file), `durable` (logging off, SQLite with
// `synchronous=FULL`: `--sqlite-synchronous full`), `baseline` (the
// hand-written api-baseline.ts, or api-baseline-pg.ts when the database is a PostgreSQL URL) or
// `floor` (the hand-written server without the token and the rate limit: the least a call costs),
// `visitor` (`served` on the spec with point 6 a roles table that lets `anyone` read: visitor-spec.ts),
// `session` (`served` as it is, a process of its own for the calls signed in by a session cookie) or
// `bare` (node:http answering a fixed small JSON: the ceiling of what the load generator can
// measure). The database is a SQLite file or a `postgres://` URL. Prints `{"url": …}` on stdout
// (on fd 3 for `served`, `visitor` and `session`, whose stdout is their log) once listening; closes
// on SIGTERM, SIGINT or when stdin ends (the benchmark went away).
import { readFileSync, writeSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createLogger, createServer, parseLogLevel } from '@ninepoint/server';
import { checkSpec } from '@ninepoint/spec';
import { createBaseline } from './api-baseline.ts';
import { createPgBaseline } from './api-baseline-pg.ts';
import { visitorSpec } from './visitor-spec.ts';

const API_SPEC_PATH = new URL('./api-bench.spec.md', import.meta.url);

const KINDS = ['generated', 'served', 'durable', 'baseline', 'floor', 'visitor', 'session', 'bare'];
const [kind, database] = process.argv.slice(2);
if (!database || !KINDS.includes(kind ?? '')) {
  console.error(`usage: node bench/api-server.ts ${KINDS.join('|')} <db file | postgres:// URL>`);
  process.exit(2);
}
const postgres = /^postgres(ql)?:\/\//.test(database);
/** The configurations that log as `ninepoint serve` does, their stdout (the log) sent to a file. */
const logged = kind === 'served' || kind === 'visitor' || kind === 'session';

let close: () => Promise<void>;
let url: string;
if (kind === 'generated' || kind === 'durable' || logged) {
  const spec = readFileSync(API_SPEC_PATH, 'utf8');
  const { model, ok, diagnostics } = checkSpec(kind === 'visitor' ? visitorSpec(spec) : spec);
  if (!ok)
    throw new Error(
      `api-bench.spec.md${kind === 'visitor' ? ' (the visitor’s)' : ''} has errors: ${diagnostics[0]?.message}`,
    );
  const server = await createServer({
    model,
    ...(postgres ? { databaseUrl: database } : { dbPath: database }),
    ...(kind === 'durable' ? { sqlite: { synchronous: 'full' as const } } : {}),
    // What `ninepoint serve` logs with when stdout is not a terminal (a container, a service).
    logger: logged ? createLogger({ level: parseLogLevel(process.env.LOG_LEVEL), format: 'json' }) : false,
  });
  url = await server.listen({ port: 0 });
  close = () => server.close();
} else if (kind === 'baseline' || kind === 'floor') {
  const auth = kind === 'baseline';
  const app = postgres ? createPgBaseline(database, { auth }) : createBaseline(database, { auth });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  close = () => app.close();
} else {
  const body = JSON.stringify({ id: '01900000-0000-7000-8000-000000000001', item: 'Widget', quantity: 1 });
  const server = createHttpServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  close = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
}

let closing = false;
const stop = async () => {
  if (closing) return;
  closing = true;
  await close();
  // A normal exit, so `--cpu-prof` writes its profile.
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.resume();
writeSync(logged ? 3 : 1, `${JSON.stringify({ url, pid: process.pid })}\n`);
