import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, TEST_DATABASES } from '../../test/databases.ts';
import { modelOf } from '../../test/helpers.ts';
import { callAs, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';

/** Speakers submit their own talks; reviewers read them with `read except (speaker, created_by)`. */
const SPEC = readFileSync(new URL('../../test/fixtures/blind-submissions.md', import.meta.url), 'utf8');

type Body = Record<string, unknown>;

// On PostgreSQL too: the user directory looks for the records that name a user with each database's own SQL.
describe.each(TEST_DATABASES)('a blind review, speakers submitting their own talks, on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  let organiser: string;
  let reviewer: { auth: string; id: string };
  let speaker: { auth: string; id: string };
  let talkId: string;
  const call = callAs(() => server);

  beforeAll(async () => {
    fresh = await db.fresh();
    server = await createServer({ model: modelOf(SPEC), ...fresh.options, logger: false });
    organiser = (await userWithToken(server, ['organiser'])).authorization;
    const r = await userWithToken(server, ['reviewer']);
    reviewer = { auth: r.authorization, id: r.user.id };
    const s = await userWithToken(server, ['speaker']);
    speaker = { auth: s.authorization, id: s.user.id };
    const made = await call(speaker.auth, 'POST', '/api/talks', { title: 'Engines of thought' });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ speaker: speaker.id, created_by: speaker.id });
    talkId = String(made.body.id);
    expect((await call(speaker.auth, 'PATCH', `/api/talks/${talkId}`, { abstract: 'On looms.' })).status).toBe(200);
    expect((await call(reviewer.auth, 'PATCH', `/api/talks/${talkId}`, { score: 7 })).status).toBe(200);
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  /** Nothing a reviewer gets names the speaker. */
  const blind = (text: string) => expect(text).not.toContain(speaker.id);

  it('gives a reviewer the talk, the list and the history with neither the speaker nor who made or changed it', async () => {
    const one = await call(reviewer.auth, 'GET', `/api/talks/${talkId}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ title: 'Engines of thought', abstract: 'On looms.', score: 7 });
    expect(one.body).not.toHaveProperty('created_by');
    blind(one.text);
    const list = await call(reviewer.auth, 'GET', '/api/talks');
    expect((list.body.items as Body[]).map((t) => t.title)).toEqual(['Engines of thought']);
    blind(list.text);
    const history = await call(reviewer.auth, 'GET', `/api/talks/${talkId}/history`);
    const items = history.body.items as Body[];
    expect(items.map((e) => e.action)).toEqual(['create', 'update', 'update']);
    for (const entry of items) expect(entry).not.toHaveProperty('by');
    blind(history.text);
  });

  it('refuses a reviewer filtering or sorting by who made a talk exactly as by a field the entity does not have', async () => {
    const pairs: [string, string][] = [
      [`/api/talks?filter[created_by]=${speaker.id}`, `/api/talks?filter[made_by]=${speaker.id}`],
      ['/api/talks?sort=created_by', '/api/talks?sort=made_by'],
    ];
    for (const [hidden, unknown] of pairs) {
      const asked = await call(reviewer.auth, 'GET', hidden);
      const missing = await call(reviewer.auth, 'GET', unknown);
      expect(asked.status, hidden).toBe(400);
      expect(asked.status).toBe(missing.status);
      blind(asked.text);
    }
  });

  it('names to a reviewer only themselves in the user directory, and lets them search nobody', async () => {
    const byId = await call(reviewer.auth, 'GET', `/api/users?id=${speaker.id}&id=${reviewer.id}`);
    expect(byId.status).toBe(200);
    expect((byId.body.items as Body[]).map((u) => u.id)).toEqual([reviewer.id]);
    // Marking a talk sets no User field: the reviewer picks nobody.
    expect((await call(reviewer.auth, 'GET', '/api/users?q=user')).status).toBe(403);
  });

  it('shows the organiser and the speaker everything, and names the speaker to them', async () => {
    for (const auth of [organiser, speaker.auth]) {
      const one = await call(auth, 'GET', `/api/talks/${talkId}`);
      expect(one.body).toMatchObject({ speaker: speaker.id, created_by: speaker.id });
      const history = await call(auth, 'GET', `/api/talks/${talkId}/history`);
      expect((history.body.items as Body[])[0]).toMatchObject({ by: speaker.id });
    }
    const named = await call(organiser, 'GET', `/api/users?id=${speaker.id}`);
    expect((named.body.items as Body[]).map((u) => u.id)).toEqual([speaker.id]);
  });

  it('names a user to someone who may not pick users only when a record they read shows that user', async () => {
    // A second speaker reads only their own talks: the first speaker is named to them by none.
    const other = await userWithToken(server, ['speaker']);
    const asked = await call(other.authorization, 'GET', `/api/users?id=${speaker.id}&id=${other.user.id}`);
    expect((asked.body.items as Body[]).map((u) => u.id)).toEqual([other.user.id]);
    // The organiser gives them a talk the first speaker made: now a record they read names them.
    const given = await call(organiser, 'POST', '/api/talks', { title: 'Looms', speaker: other.user.id });
    expect(given.status).toBe(201);
    const mine = await call(speaker.auth, 'POST', '/api/talks', { title: 'Shared' });
    await call(organiser, 'PATCH', `/api/talks/${mine.body.id}`, { speaker: other.user.id });
    const now = await call(other.authorization, 'GET', `/api/users?id=${speaker.id}`);
    expect((now.body.items as Body[]).map((u) => u.id)).toEqual([speaker.id]);
  });
});
