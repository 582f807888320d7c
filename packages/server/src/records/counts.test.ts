import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, SQLITE_ONLY } from '../../test/databases.ts';
import { modelOf } from '../../test/helpers.ts';
import { callAs, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';

/** Guards and rules that count related records: `count(Review where talk = this) >= MIN_REVIEWS`. */
const CONFERENCE = readFileSync(new URL('../../test/fixtures/conference.md', import.meta.url), 'utf8');

describe.each(SQLITE_ONLY)('counts of related records in guards and rules, on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  let speaker: string;
  let organiser: string;
  const reviewers: string[] = [];

  const call = callAs(() => server);
  const talk = async () => {
    const made = await call(speaker, 'POST', '/api/talks', { title: 'Counting in CEL' });
    expect(made.body).toMatchObject({ state: 'submitted' });
    return String(made.body.id);
  };
  const review = (reviewer: string, id: string) =>
    call(reviewer, 'POST', '/api/reviews', { talk: id, score: 4, verdict: 'yes' });

  beforeAll(async () => {
    fresh = await db.fresh();
    server = await createServer({ model: modelOf(CONFERENCE), ...fresh.options, logger: false });
    speaker = (await userWithToken(server, ['speaker'])).authorization;
    organiser = (await userWithToken(server, ['organiser'])).authorization;
    for (let i = 0; i < 3; i++) reviewers.push((await userWithToken(server, ['reviewer'])).authorization);
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  it('refuses to accept a talk with fewer reviews than MIN_REVIEWS, with the guard’s own code', async () => {
    const id = await talk();
    expect((await review(reviewers[0] ?? '', id)).status).toBe(201);
    const refused = await call(organiser, 'POST', `/api/talks/${id}/accept`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('TOO_FEW_REVIEWS');
    expect(refused.body.detail).toBe('A talk needs 2 reviews before it is accepted.');
    expect((await call(organiser, 'GET', `/api/talks/${id}`)).body.state).toBe('submitted');
  });

  it('accepts it once the reviews are in, counting only the reviews of that talk', async () => {
    const id = await talk();
    const other = await talk();
    expect((await review(reviewers[1] ?? '', other)).status).toBe(201);
    expect((await review(reviewers[1] ?? '', id)).status).toBe(201);
    expect((await call(organiser, 'POST', `/api/talks/${id}/accept`)).status).toBe(409);
    expect((await review(reviewers[2] ?? '', id)).status).toBe(201);
    const accepted = await call(organiser, 'POST', `/api/talks/${id}/accept`);
    expect(accepted.status).toBe(200);
    expect(accepted.body.state).toBe('accepted');
  });

  it('counts per user and per state in a rule: at most MAX_DRAFTS drafts, and sending one frees a place', async () => {
    const reviewer = (await userWithToken(server, ['reviewer'])).authorization;
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const made = await review(reviewer, await talk());
      expect(made.status).toBe(201);
      ids.push(String(made.body.id));
    }
    const third = await review(reviewer, await talk());
    expect(third.status).toBe(409);
    expect(third.body.code).toBe('TOO_MANY_DRAFTS');
    // Another reviewer's drafts do not count against this one.
    expect((await review(reviewers[0] ?? '', await talk())).status).toBe(201);
    expect((await call(reviewer, 'POST', `/api/reviews/${ids[0]}/send`)).status).toBe(200);
    expect((await review(reviewer, await talk())).status).toBe(201);
  });
});
