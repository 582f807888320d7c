import type { CompiledApp, Route } from '@ninepoint/server';
import { USER_ENTITY } from '@ninepoint/spec';
import fc from 'fast-check';
import { expect } from 'vitest';
import {
  creationOrder,
  type FuzzPools,
  type FuzzRequest,
  objectArbitrary,
  referencesOf,
  requestArbitrary,
  type SchemaHooks,
} from './fuzz-arbitraries.ts';
import { answerChecker, type FuzzAnswer } from './fuzz-oracle.ts';

/**
 * A fuzzing campaign against one served app, the same whether requests go in-process or over TCP:
 * seed records through the create calls, then send generated requests, check every answer, and
 * keep the pools of ids and cursors up to date with what the server answered.
 */

/** Sends a request as one of the actors (their headers merged in) and answers what came back. */
export type Send = (request: FuzzRequest, actorHeaders: Record<string, string>) => Promise<FuzzAnswer>;

export interface Campaign {
  compiled: CompiledApp;
  /** Headers of each actor: users of each role and one with all roles, then `strangers`. */
  actors: readonly Record<string, string>[];
  /** How many of the last actors are not users: a visitor, bad credentials. */
  strangers: number;
  /** Index into `actors` of the user with every role, who seeds the records. */
  seeder: number;
  userIds: readonly string[];
  send: Send;
  seed: number;
}

/** How a campaign went: answers by status and by catalogue code, and records seeded per entity. */
export interface Tally {
  cases: number;
  statuses: Map<number, number>;
  codes: Map<string, number>;
  kinds: Map<string, number>;
  seeded: Map<string, number>;
}

export function newPools(userIds: readonly string[]): FuzzPools {
  return { ids: new Map([[USER_ENTITY, [...userIds]]]), deleted: [], cursors: new Map() };
}

function bump<K>(map: Map<K, number>, key: K): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** Learns from an answer: a created id joins its pool, a deleted one leaves it, a next cursor is kept. */
function learn(pools: FuzzPools, route: Route, url: string, answer: FuzzAnswer): void {
  const entity = route.action.entity;
  if (answer.status === 201 && route.action.kind === 'create') {
    const id = (JSON.parse(answer.body) as { id: string }).id;
    pools.ids.set(entity, [...(pools.ids.get(entity) ?? []), id]);
  } else if (answer.status === 204 && route.action.kind === 'delete') {
    const pool = pools.ids.get(entity) ?? [];
    const gone = pool.find((id) => url.includes(id));
    if (gone) {
      pools.ids.set(
        entity,
        pool.filter((id) => id !== gone),
      );
      pools.deleted.push(gone);
    }
  } else if (answer.status === 200 && route.action.kind === 'list') {
    const { next } = JSON.parse(answer.body) as { next: string | null };
    if (next) {
      const cursors = pools.cursors.get(route.path) ?? [];
      cursors.push(next);
      pools.cursors.set(route.path, cursors.slice(-30));
    }
  }
}

function describeCase(request: FuzzRequest, answer: FuzzAnswer): string {
  const body =
    request.body === undefined ? '' : ` ${request.body.length > 300 ? `${request.body.slice(0, 300)}…` : request.body}`;
  return `[${request.kind}] actor ${request.actor} ${request.method} ${request.url.slice(0, 300)} ${JSON.stringify(request.headers)}${body}\n→ ${answer.status} ${answer.contentType} ${answer.body.slice(0, 500)}`;
}

/**
 * Creates records of every entity, parents first, as the user with every role: up to `attempts`
 * schema-valid payloads each until `wanted` are accepted (rules of point 5 refuse some). Every
 * answer is checked like any fuzzed one.
 *
 * A child's rules can depend on its parents' values (an expense's amount against its employee's
 * limit), and generated parents lean to edge values such as a limit of 0. So when an entity got no
 * record, another round adds `wanted` more of every entity, from a fresh sample, up to `rounds`.
 */
export async function seedRecords(
  campaign: Campaign,
  pools: FuzzPools,
  tally: Tally,
  { wanted = 3, attempts = 400, rounds = 4 } = {},
): Promise<void> {
  const { compiled } = campaign;
  const check = answerChecker(compiled);
  const hooks = schemaHooks(pools);
  const entities = creationOrder(compiled.model).flatMap((entity) => {
    const route = compiled.routeTable.routes.find((r) => r.action.entity === entity.name && r.action.kind === 'create');
    return route?.body ? [{ entity, route, schema: route.body.schema }] : [];
  });
  for (let round = 0; round < rounds; round++) {
    for (const [n, { entity, route, schema }] of entities.entries()) {
      const bodies = fc.sample(objectArbitrary(schema, hooks, referencesOf(entity)), {
        seed: campaign.seed + n + round * 7919,
        numRuns: attempts,
      });
      let created = 0;
      for (const body of bodies) {
        if (created >= wanted) break;
        const request: FuzzRequest = {
          route,
          actor: campaign.seeder,
          method: route.method,
          url: route.path,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          kind: 'seed',
          onRoute: true,
        };
        const answer = await campaign.send(request, campaign.actors[campaign.seeder] ?? {});
        expect(check(request, answer), describeCase(request, answer)).toEqual([]);
        learn(pools, route, request.url, answer);
        if (answer.status === 201) created++;
      }
      tally.seeded.set(entity.name, (tally.seeded.get(entity.name) ?? 0) + created);
    }
    if (entities.every(({ entity }) => (tally.seeded.get(entity.name) ?? 0) > 0)) return;
  }
}

/** Dates near today; references pick known records, sometimes unknown ids. */
function schemaHooks(pools: FuzzPools): SchemaHooks {
  return {
    today: Date.now(),
    reference: (entity) =>
      fc.oneof(
        {
          weight: 9,
          arbitrary: fc.tuple(fc.nat(), fc.uuid()).map(([n, other]) => {
            const pool = pools.ids.get(entity) ?? [];
            return pool.length > 0 ? (pool[n % pool.length] as string) : other;
          }),
        },
        fc.uuid({ version: 7 }),
      ),
  };
}

/** Runs `runs` generated requests and checks every answer; fails at the first wrong one, printing the case. */
export async function fuzzCalls(campaign: Campaign, pools: FuzzPools, tally: Tally, runs: number): Promise<void> {
  const check = answerChecker(campaign.compiled);
  const requests = requestArbitrary(
    campaign.compiled,
    pools,
    { users: campaign.actors.length - campaign.strangers, strangers: campaign.strangers },
    schemaHooks(pools),
  );
  await fc.assert(
    fc.asyncProperty(requests, async (request) => {
      const answer = await campaign.send(request, campaign.actors[request.actor] ?? {});
      tally.cases++;
      bump(tally.statuses, answer.status);
      bump(tally.kinds, request.kind.split(',')[0] ?? request.kind);
      if (answer.status >= 400) {
        try {
          bump(tally.codes, String((JSON.parse(answer.body) as { code: unknown }).code));
        } catch {
          bump(tally.codes, '(not JSON)');
        }
      }
      expect(check(request, answer), describeCase(request, answer)).toEqual([]);
      learn(pools, request.route, request.url, answer);
    }),
    // The server's state moves on with every case, so shrinking would replay against another
    // state: stop at the first failure and report that case as it was.
    { seed: campaign.seed, numRuns: runs, endOnFailure: true },
  );
}

export function newTally(): Tally {
  return { cases: 0, statuses: new Map(), codes: new Map(), kinds: new Map(), seeded: new Map() };
}

/** One line per campaign for the test output: cases, statuses, the commonest codes, records seeded. */
export function formatTally(name: string, tally: Tally, ms: number): string {
  const sorted = <K>(m: Map<K, number>) => [...m].sort((a, b) => b[1] - a[1]);
  const statuses = sorted(tally.statuses)
    .map(([s, n]) => `${s}×${n}`)
    .join(' ');
  const codes = sorted(tally.codes)
    .slice(0, 8)
    .map(([c, n]) => `${c}×${n}`)
    .join(' ');
  const seeded = [...tally.seeded].map(([e, n]) => `${e} ${n}`).join(', ');
  return `${name}: ${tally.cases} cases in ${(ms / 1000).toFixed(1)} s; ${statuses}; ${codes}; seeded ${seeded}`;
}

/**
 * A spec's source with point-9 runtime settings set: a row of the same name gets the value,
 * otherwise a row is added to the top of point 9's table.
 */
export function withSettings(source: string, settings: Record<string, number>): string {
  const point9 = source.indexOf('\n## 9.');
  if (point9 < 0) throw new Error('The spec has no point 9');
  let text = source;
  for (const [name, value] of Object.entries(settings)) {
    const row = new RegExp(`^\\|\\s*${name}\\s*\\|[^|\\n]*\\|`, 'm');
    if (row.test(text.slice(point9))) {
      text = text.slice(0, point9) + text.slice(point9).replace(row, `| ${name} | ${value} |`);
      continue;
    }
    const separator = /\n\|[\s:|-]+\|[^\n]*\n/g;
    separator.lastIndex = point9;
    const match = separator.exec(text);
    if (!match) throw new Error('Point 9 has no table');
    const at = match.index + match[0].length;
    text = `${text.slice(0, at)}| ${name} | ${value} | set by the reliability suites |\n${text.slice(at)}`;
  }
  return text;
}
