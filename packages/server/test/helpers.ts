import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blankSpec, checkSpec, type Model } from '@ninepoint/spec';
import { createServer, type NinepointServer } from '../src/app/server.ts';

/** The sketch of the product brief: two entities, a state machine, rules, roles and three declared calls. */
export const LENDING_DESK = readFileSync(new URL('./fixtures/lending-desk.md', import.meta.url), 'utf8');

/** A team's memos: admins manage people and must sign in with two factors (passkeys' and two-factor's suites). */
export const DESK = readFileSync(new URL('./fixtures/desk.md', import.meta.url), 'utf8');

/** A club whose secretary manages people: editors write notices and drafts, members read notices. */
export const CLUB = readFileSync(new URL('./fixtures/club.md', import.meta.url), 'utf8');

/** Limits over several fields and per calendar period: reviews per talk and reviewer, appointments per doctor a day, orders a day. */
export const REVIEWS_AND_APPOINTMENTS = readFileSync(
  new URL('./fixtures/reviews-and-appointments.md', import.meta.url),
  'utf8',
);

/** The same product with point 7 not shown, so the conventional REST set is derived. */
export const LENDING_DESK_DERIVED = LENDING_DESK.replace(
  /## 7\. The calls it makes\n[\s\S]*?(?=\n## 8\.)/,
  '## 7. The calls it makes\nNot shown.\n',
);

/** The checked model of a spec that must have no errors. */
export function modelOf(source: string): Model {
  const { model, ok, diagnostics } = checkSpec(source);
  if (!ok) throw new Error(`Test spec has errors: ${JSON.stringify(diagnostics, null, 2)}`);
  return model;
}

export const blankModel = (): Model => modelOf(blankSpec());

/** A fresh folder under the OS temp dir, and a function that removes it. */
export function tempDir(): { dir: string; dbPath: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'ninepoint-server-'));
  return { dir, dbPath: join(dir, 'data', 'test.db'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A server of `source` on a temporary SQLite file, listening on a free loopback port. */
export interface ListeningServer {
  server: NinepointServer;
  url: string;
  port: number;
  /** Closes the server and removes its database. */
  close(): Promise<void>;
}

export async function listeningServer(source: string): Promise<ListeningServer> {
  const temp = tempDir();
  const server = await createServer({ model: modelOf(source), dbPath: temp.dbPath, logger: false });
  const url = await server.listen({ port: 0 });
  return {
    server,
    url,
    port: Number(new URL(url).port),
    close: async () => {
      await server.close();
      temp.remove();
    },
  };
}

/** Matches the start of a table row whose first cells are these, however the table is aligned. */
export function rowStart(...cells: string[]): RegExp {
  const escaped = cells.map((c) => `\\s*${c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*\\|`);
  return new RegExp(`^\\|${escaped.join('')}`, 'm');
}

/** Inserts a table row before the row that starts with these cells. */
export function insertRowBefore(source: string, cells: string[], row: string): string {
  return replaceOnce(source, rowStart(...cells), (match) => `${row}\n${match}`);
}

/** Replaces what a pattern matches, failing loudly when it matches nothing (a fixture changed). */
export function replaceOnce(source: string, pattern: RegExp, replacement: (match: string) => string): string {
  if (!pattern.test(source)) throw new Error(`Fixture has nothing matching ${pattern}`);
  return source.replace(pattern, replacement);
}
