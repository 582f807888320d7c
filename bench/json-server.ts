// json-server (0.17, an npm peer) in the API benchmark: the same orders in a db.json, served by its
// own command line as its users run it (`json-server db.json`, logging off). It keeps every record
// in memory, finds one by scanning the array, and on every write serialises the whole database
// (`JSON.stringify(db, null, 2)`, on the event loop) and rewrites the file. It has no auth, no
// validation and no history: it does less work per call than the generated API.
import { closeSync, openSync, writeSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import { createServer as createNetServer } from 'node:net';
import { dirname, join } from 'node:path';
import type autocannon from 'autocannon';
import { spawnNode } from './child.ts';

const require = createRequire(import.meta.url);
const JSON_SERVER_PACKAGE = require.resolve('json-server/package.json');
const JSON_SERVER_BIN = join(dirname(JSON_SERVER_PACKAGE), 'lib/cli/bin.js');
/** The installed json-server's version, for the report. */
export const JSON_SERVER_VERSION: string = (require(JSON_SERVER_PACKAGE) as { version: string }).version;

/** Seeded timestamps start here (2025-01-01T00:00:00Z), one second apart: as the databases' seed. */
const SEED_EPOCH_MS = 1_735_689_600_000;
const PAGE = 50;

const hex = (i: number) => i.toString(16).padStart(12, '0');

/**
 * Writes a db.json holding `customers` customers and `orders` orders, each as the generated API
 * answers it: the rows the SQLite and PostgreSQL seeds make.
 */
export function writeJsonServerDb(path: string, orders: number, customers: number): void {
  const fd = openSync(path, 'w');
  try {
    const customerRows: string[] = [];
    for (let i = 1; i <= customers; i++) {
      const at = new Date(SEED_EPOCH_MS + i * 1000).toISOString();
      customerRows.push(
        JSON.stringify({
          id: `00000000-0000-7000-8000-${hex(i)}`,
          created_at: at,
          updated_at: at,
          created_by: null,
          name: `Customer ${i}`,
          email: `buyer${i}@example.com`,
        }),
      );
    }
    writeSync(fd, `{"customers":[${customerRows.join(',')}],"orders":[`);
    // In chunks: a million orders would be one string of several hundred MB.
    let chunk: string[] = [];
    for (let i = 1; i <= orders; i++) {
      const at = new Date(SEED_EPOCH_MS + i * 1000);
      const iso = at.toISOString();
      chunk.push(
        JSON.stringify({
          id: `01900000-0000-7000-8000-${hex(i)}`,
          created_at: iso,
          updated_at: iso,
          created_by: null,
          customer: `00000000-0000-7000-8000-${hex(((i * 7919) % customers) + 1)}`,
          number: `ORD-${String(i).padStart(8, '0')}`,
          item: `Widget model ${i % 997}, boxed`,
          quantity: 1 + (i % 50),
          unit_price: (((i * 37) % 99999) + 1) / 100,
          ordered_on: iso.slice(0, 10),
          ship_by: new Date(at.getTime() + 7 * 86_400_000).toISOString().slice(0, 10),
          express: i % 5 === 0,
          note: i % 3 === 0 ? 'Leave at the loading bay.' : null,
        }),
      );
      if (chunk.length === 10_000 || i === orders) {
        writeSync(fd, `${i > chunk.length ? ',' : ''}${chunk.join(',')}`);
        chunk = [];
      }
    }
    writeSync(fd, ']}');
  } finally {
    closeSync(fd);
  }
}

/** A port nobody listens on now (json-server takes a port, not 0). */
export async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no free port');
  return address.port;
}

/** The status of one GET, or null when nothing answers (yet). */
export function statusOf(url: string, timeoutMs = 2000): Promise<number | null> {
  return new Promise((resolve) => {
    const request = httpRequest(url, { agent: false, timeout: timeoutMs }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? null));
    });
    request.on('error', () => resolve(null));
    request.on('timeout', () => request.destroy());
    request.end();
  });
}

export interface JsonServerProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** Starts `json-server <db.json>` on 127.0.0.1, optionally pinned to CPU 0; resolves once it answers. */
export async function startJsonServer(dbJson: string, options: { pin: boolean }): Promise<JsonServerProcess> {
  const port = await freePort();
  const args = [JSON_SERVER_BIN, dbJson, '--port', String(port), '--host', '127.0.0.1', '--quiet'];
  // Its cwd is the db.json's folder: the snapshots it may write go there, not into the repository.
  const { child, stderr, stop } = spawnNode(args, {
    pin: options.pin,
    cwd: dirname(dbJson),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  while ((await statusOf(`${url}/customers?_limit=1`)) !== 200) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`json-server did not start on ${dbJson}: ${stderr().trim() || 'no answer within 120 s'}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (child.pid === undefined) throw new Error('json-server has no process id');
  return { url, pid: child.pid, stop };
}

/** json-server's nearest equivalents of the benchmark's calls (it pages by number, not by cursor). */
export function jsonServerRequest(
  operation: 'get' | 'list' | 'list-deep' | 'create',
  orders: number,
  body: (n: number) => Record<string, unknown>,
): autocannon.Request {
  switch (operation) {
    case 'get':
      return {
        method: 'GET',
        path: '/orders/01900000-0000-7000-8000-000000000001',
        setupRequest: (request) => {
          request.path = `/orders/01900000-0000-7000-8000-${hex(1 + Math.floor(Math.random() * orders))}`;
          return request;
        },
      };
    case 'list':
      return { method: 'GET', path: `/orders?_page=1&_limit=${PAGE}` };
    case 'list-deep':
      // The page starting where the databases' middle cursor does (after order ⌈orders / 2⌉).
      return { method: 'GET', path: `/orders?_page=${Math.floor(Math.ceil(orders / 2) / PAGE) + 1}&_limit=${PAGE}` };
    case 'create': {
      let n = 0;
      return {
        method: 'POST',
        path: '/orders',
        headers: { 'content-type': 'application/json' },
        setupRequest: (request) => {
          request.body = JSON.stringify(body(++n));
          return request;
        },
      };
    }
  }
}
