import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, TEST_DATABASES } from '../../test/databases.ts';
import { modelOf } from '../../test/helpers.ts';
import { callAs, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';

/** The helpdesk: requesters read their own tickets only; agents and the lead read them all. */
const HELPDESK = readFileSync(new URL('../../../../examples/helpdesk.md', import.meta.url), 'utf8');
/** Reviewers read talks but not who gives them; speakers read their own, and others' titles only. */
const BLIND_REVIEW = readFileSync(new URL('../../test/fixtures/blind-review.md', import.meta.url), 'utf8');

// On PostgreSQL too: the figures are SQL aggregates (count, sum, group by), computed by each database.
describe.each(TEST_DATABASES)('dashboard figures (GET …/summary) on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  let lead: string;
  let agent: string;
  let ana: string;
  let ben: string;
  const call = callAs(() => server);

  beforeAll(async () => {
    fresh = await db.fresh();
    server = await createServer({ model: modelOf(HELPDESK), ...fresh.options, logger: false });
    lead = (await userWithToken(server, ['lead'])).authorization;
    agent = (await userWithToken(server, ['agent'])).authorization;
    ana = (await userWithToken(server, ['requester'])).authorization;
    ben = (await userWithToken(server, ['requester'])).authorization;
    const ticket = async (by: string, title: string, fields: Record<string, unknown>) => {
      const made = await call(by, 'POST', '/api/tickets', {
        title,
        description: `${title}, since this morning.`,
        ...fields,
      });
      expect(made.status).toBe(201);
      return String(made.body.id);
    };
    const printer = await ticket(ana, 'Printer jams', { category: 'hardware', priority: 'high' });
    await ticket(ana, 'Outlook asks for a password', { category: 'software' });
    await ticket(ben, 'No VPN from home', { category: 'network' });
    const laptop = await ticket(agent, 'Laptop fan is loud', { category: 'hardware' });
    await call(lead, 'PATCH', `/api/tickets/${printer}`, { time_spent: 0.1 });
    await call(lead, 'PATCH', `/api/tickets/${laptop}`, { time_spent: 0.2 });
    expect((await call(lead, 'POST', `/api/tickets/${laptop}/withdraw`)).status).toBe(200);
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  it('counts and totals every ticket for the lead, per state and per choice, largest first', async () => {
    const byState = await call(lead, 'GET', '/api/tickets/summary?by=state&sum=time_spent');
    expect(byState.status).toBe(200);
    expect(byState.body).toEqual({
      count: 4,
      sums: { time_spent: 0.3 },
      groups: [
        { value: 'new', count: 3, sums: { time_spent: 0.1 } },
        { value: 'closed', count: 1, sums: { time_spent: 0.2 } },
      ],
    });
    const byCategory = await call(lead, 'GET', '/api/tickets/summary?by=category');
    expect(byCategory.body.groups).toEqual([
      { value: 'hardware', count: 2, sums: {} },
      { value: 'network', count: 1, sums: {} },
      { value: 'software', count: 1, sums: {} },
    ]);
    expect((await call(lead, 'GET', '/api/tickets/summary')).body).toEqual({ count: 4, sums: {} });
  });

  it('counts only the records the caller may read, in the database', async () => {
    const mine = await call(ana, 'GET', '/api/tickets/summary?by=priority');
    expect(mine.body).toEqual({
      count: 2,
      sums: {},
      groups: [
        { value: 'high', count: 1, sums: {} },
        { value: 'normal', count: 1, sums: {} },
      ],
    });
    expect((await call(ben, 'GET', '/api/tickets/summary')).body).toEqual({ count: 1, sums: {} });
  });

  it('refuses what cannot be grouped or summed, and callers who may not read the entity', async () => {
    for (const url of [
      '/api/tickets/summary?by=title',
      '/api/tickets/summary?sum=priority',
      '/api/tickets/summary?sum=time_spent&sum=time_spent',
      '/api/tickets/summary?where=x',
    ]) {
      const answer = await call(lead, 'GET', url);
      expect(answer.status, url).toBe(400);
      expect(answer.body.code, url).toBe('INVALID_PAYLOAD');
    }
    expect((await server.app.inject({ method: 'GET', url: '/api/tickets/summary' })).statusCode).toBe(401);
  });

  it("counts only the records its list's filters keep, read as the list reads them", async () => {
    const figures = async (who: string, query: string) => {
      const answer = await call(who, 'GET', `/api/tickets/summary?${query}`);
      expect(answer.status, query).toBe(200);
      return answer.body;
    };
    const list = async (who: string, query: string) =>
      (await call(who, 'GET', `/api/tickets?count=true&limit=1&${query}`)).body.total;
    // One filter, several values of a choice, an or-group, a search, a not: the list's own totals.
    for (const query of [
      'filter[category]=hardware',
      'filter[category]=hardware&filter[category]=network',
      'or[1][category]=network&or[1][priority]=high',
      'q=printer',
      'filter[state][not]=closed',
      'filter[time_spent][empty]=false',
    ]) {
      const body = await figures(lead, `by=state&${query}`);
      expect(body.count, query).toBe(await list(lead, query));
    }
    expect(await figures(lead, 'by=state&filter[category]=hardware&sum=time_spent')).toEqual({
      count: 2,
      sums: { time_spent: 0.3 },
      groups: [
        { value: 'closed', count: 1, sums: { time_spent: 0.2 } },
        { value: 'new', count: 1, sums: { time_spent: 0.1 } },
      ],
    });
    // Within what the caller may read: a requester's filter cannot reach another's tickets.
    expect((await figures(ana, 'filter[category]=network')).count).toBe(0);
    expect((await figures(ben, 'filter[category]=network')).count).toBe(1);
    // What the list refuses, the summary refuses, word for word.
    for (const query of ['filter[colour]=red', 'filter[priority]=extreme', 'limit=5', 'sort=title']) {
      const answer = await call(lead, 'GET', `/api/tickets/summary?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.code, query).toBe('INVALID_PAYLOAD');
    }
    const listed = await call(lead, 'GET', '/api/tickets?filter[priority]=extreme');
    const counted = await call(lead, 'GET', '/api/tickets/summary?filter[priority]=extreme');
    expect(counted.body.detail).toBe(listed.body.detail);
  });

  it('describes its filters in the OpenAPI document as the list does', async () => {
    const doc = (await call(lead, 'GET', '/api/openapi.json')).body as {
      paths: Record<string, { get: { parameters: { name: string }[] } }>;
    };
    const names = (path: string) =>
      (doc.paths[path]?.get.parameters ?? []).map((p) => p.name).filter((n) => n !== 'by' && n !== 'sum');
    const list = names('/api/tickets').filter((n) => !['limit', 'cursor', 'sort', 'count'].includes(n));
    expect(names('/api/tickets/summary')).toEqual(list);
    expect(list).toContain('filter[assignee]');
  });
});

describe.each(TEST_DATABASES)('dashboard figures over hidden fields on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  const call = callAs(() => server);

  beforeAll(async () => {
    fresh = await db.fresh();
    server = await createServer({ model: modelOf(BLIND_REVIEW), ...fresh.options, logger: false });
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  it('sums a field only for callers who read it on every record they may count', async () => {
    const organiser = (await userWithToken(server, ['organiser'])).authorization;
    const reviewer = (await userWithToken(server, ['reviewer'])).authorization;
    const speaker = await userWithToken(server, ['speaker']);
    for (const [title, score] of [
      ['Types at scale', 7],
      ['Fast tests', 9],
    ] as const) {
      const made = await call(organiser, 'POST', '/api/talks', { title, speaker: speaker.user.id, score });
      expect(made.status).toBe(201);
    }
    expect((await call(organiser, 'GET', '/api/talks/summary?sum=score')).body).toEqual({
      count: 2,
      sums: { score: 16 },
    });
    expect((await call(reviewer, 'GET', '/api/talks/summary?sum=score')).body).toMatchObject({ sums: { score: 16 } });
    // Anyone reads the titles of every talk, so a speaker may not total what others' talks hide.
    const refused = await call(speaker.authorization, 'GET', '/api/talks/summary?sum=score');
    expect(refused.status).toBe(400);
    const visitor = (url: string) => server.app.inject({ method: 'GET', url });
    expect((await visitor('/api/talks/summary?sum=score')).statusCode).toBe(400);
    expect((await visitor('/api/talks/summary?by=state')).json()).toMatchObject({ count: 2 });
    // Nor filter by it: a count of talks scored 9 would tell their scores. The list refuses the same.
    expect((await call(organiser, 'GET', '/api/talks/summary?filter[score]=9')).body).toMatchObject({ count: 1 });
    for (const url of ['/api/talks/summary?filter[score]=9', '/api/talks?filter[score]=9']) {
      expect((await call(speaker.authorization, 'GET', url)).status, url).toBe(400);
    }
  });
});
