import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, TEST_DATABASES } from '../../test/databases.ts';
import { modelOf } from '../../test/helpers.ts';
import { userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';

/**
 * Blind review: organisers enter talks naming their speaker; reviewers `read except (speaker,
 * bio)` and may only mark them; speakers `read own`. Whatever a reviewer calls, neither the
 * speaker's id nor the bio (which names them) may reach them.
 */
const SOURCE = readFileSync(new URL('../../test/fixtures/blind-review.md', import.meta.url), 'utf8');
const BIO = 'Ada Lovelace writes about the Analytical Engine.';

type Body = Record<string, unknown>;

describe.each(TEST_DATABASES)('fields a role may not read, on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  let organiser: string;
  let reviewer: string;
  /** A speaker who also reviews: sees their own talks whole, the others blind. */
  let speakerReviewer: string;
  let speakerId: string;
  let otherSpeakerId: string;
  let talk: Body;
  let otherTalk: Body;

  const call = async (authorization: string, method: string, url: string, body?: unknown) => {
    const answer = await server.app.inject({
      method: method as 'PATCH',
      url,
      headers: { authorization, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    return { status: answer.statusCode, body: answer.json() as Body, text: answer.body, headers: answer.headers };
  };
  /** The answer as a text with what changes from call to call (the path, the request id) taken out. */
  const comparable = (body: Body) => {
    const { instance: _instance, requestId: _requestId, ...rest } = body;
    return JSON.stringify(rest);
  };
  /** Nothing of the hidden speaker reaches the caller: neither id nor bio, nor a word of it. */
  const blind = (text: string) => {
    expect(text).not.toContain(speakerId);
    expect(text).not.toContain('Lovelace');
    expect(text).not.toContain('"speaker"');
    expect(text).not.toContain('"bio"');
  };

  beforeAll(async () => {
    fresh = await db.fresh();
    server = await createServer({ model: modelOf(SOURCE), ...fresh.options, logger: false });
    organiser = (await userWithToken(server, ['organiser'])).authorization;
    reviewer = (await userWithToken(server, ['reviewer'])).authorization;
    const speaker = await userWithToken(server, ['speaker'], 'ada@example.test');
    speakerId = speaker.user.id;
    const other = await userWithToken(server, ['speaker', 'reviewer'], 'grace@example.test');
    otherSpeakerId = other.user.id;
    speakerReviewer = other.authorization;
    talk = (
      await call(organiser, 'POST', '/api/talks', {
        title: 'Engines of thought',
        abstract: 'On machines that weave algebra.',
        speaker: speakerId,
        bio: BIO,
      })
    ).body;
    otherTalk = (
      await call(organiser, 'POST', '/api/talks', {
        title: 'Compilers for everyone',
        speaker: otherSpeakerId,
        bio: 'Grace Hopper found the first bug.',
      })
    ).body;
    // A change of the speaker only: its history entry must not say to whom, or from whom.
    await call(organiser, 'PATCH', `/api/talks/${talk.id}`, { speaker: otherSpeakerId });
    await call(organiser, 'PATCH', `/api/talks/${talk.id}`, { speaker: speakerId, bio: `${BIO} Updated.` });
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  it('lets the organiser see the speaker and the bio', async () => {
    const got = await call(organiser, 'GET', `/api/talks/${talk.id}`);
    expect(got).toMatchObject({ status: 200, body: { speaker: speakerId, bio: `${BIO} Updated.` } });
    const found = await call(organiser, 'GET', '/api/talks?q=Lovelace');
    expect((found.body.items as Body[]).map((t) => t.id)).toEqual([talk.id]);
    const filtered = await call(organiser, 'GET', `/api/talks?filter[speaker]=${speakerId}&sort=-speaker`);
    expect((filtered.body.items as Body[]).map((t) => t.id)).toEqual([talk.id]);
  });

  it('gives a reviewer the talk without its speaker or bio, but with the system fields', async () => {
    const got = await call(reviewer, 'GET', `/api/talks/${talk.id}`);
    expect(got.status).toBe(200);
    expect(Object.keys(got.body).sort()).toEqual(
      ['abstract', 'created_at', 'created_by', 'id', 'score', 'state', 'title', 'updated_at'].sort(),
    );
    blind(got.text);
    // The tag is the version, as the organiser's is: a counter, which tells no value.
    const organisers = await call(organiser, 'GET', `/api/talks/${talk.id}`);
    expect(got.headers.etag).toBe(organisers.headers.etag);
  });

  it('lists talks for a reviewer without speakers or bios', async () => {
    const listed = await call(reviewer, 'GET', '/api/talks?count=true');
    expect(listed.status).toBe(200);
    expect(listed.body.total).toBe(2);
    expect((listed.body.items as Body[]).map((t) => t.title)).toEqual(['Engines of thought', 'Compilers for everyone']);
    blind(listed.text);
  });

  it('gives a reviewer the history without the hidden fields, and no entry of a change that touched only them', async () => {
    const history = await call(reviewer, 'GET', `/api/talks/${talk.id}/history`);
    expect(history.status).toBe(200);
    const items = history.body.items as { action: string; changes: Body; before: Body }[];
    expect(items.map((e) => e.action)).toEqual(['create']);
    expect(items[0]?.changes).toMatchObject({ title: 'Engines of thought' });
    blind(history.text);
    const organisers = await call(organiser, 'GET', `/api/talks/${talk.id}/history`);
    expect(organisers.text).toContain(speakerId);
  });

  it('refuses a reviewer filtering or sorting by a hidden field exactly as by a field the entity does not have', async () => {
    const pairs: [string, string][] = [
      [`/api/talks?filter[speaker]=${speakerId}`, `/api/talks?filter[spkr]=${speakerId}`],
      ['/api/talks?filter[bio]=Ada', '/api/talks?filter[bo]=Ada'],
      ['/api/talks?sort=speaker', '/api/talks?sort=spkr'],
      ['/api/talks?sort=-bio&count=true', '/api/talks?sort=-bo&count=true'],
    ];
    for (const [hidden, unknown] of pairs) {
      const asked = await call(reviewer, 'GET', hidden);
      const missing = await call(reviewer, 'GET', unknown);
      expect(asked.status).toBe(400);
      expect(asked.status).toBe(missing.status);
      expect(asked.headers['content-type']).toBe(missing.headers['content-type']);
      const name = /filter\[(\w+)\]|sort=-?(\w+)/.exec(hidden)?.slice(1).find(Boolean) ?? '';
      const stand = /filter\[(\w+)\]|sort=-?(\w+)/.exec(unknown)?.slice(1).find(Boolean) ?? '';
      expect(comparable(asked.body)).toBe(comparable(missing.body).replaceAll(stand, name));
    }
  });

  it("never matches a reviewer's search on a hidden field, and still on the fields they see", async () => {
    const byBio = await call(reviewer, 'GET', '/api/talks?q=Lovelace&count=true');
    expect(byBio).toMatchObject({ status: 200, body: { items: [], total: 0 } });
    const byTitle = await call(reviewer, 'GET', '/api/talks?q=engines');
    expect((byTitle.body.items as Body[]).map((t) => t.id)).toEqual([talk.id]);
    blind(byTitle.text);
  });

  it("answers a reviewer's mark and transition with the talk stripped", async () => {
    const marked = await call(reviewer, 'PATCH', `/api/talks/${talk.id}`, { score: 8 });
    expect(marked).toMatchObject({ status: 200, body: { score: 8 } });
    blind(marked.text);
    const shortlisted = await call(reviewer, 'POST', `/api/talks/${talk.id}/shortlist`);
    expect(shortlisted).toMatchObject({ status: 200, body: { state: 'shortlisted' } });
    blind(shortlisted.text);
  });

  it("leaves hidden fields out of a rule's message to a reviewer, and fills them for the organiser", async () => {
    const refused = await call(reviewer, 'PATCH', `/api/talks/${talk.id}`, { score: 11 });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([
      expect.objectContaining({
        field: 'score',
        code: 'SCORE_TOO_HIGH',
        message: 'Engines of thought by {speaker} ({bio}) may score at most 10, not 11.',
      }),
    ]);
    blind(refused.text.replace('{speaker} ({bio})', ''));
    const organisers = await call(organiser, 'PATCH', `/api/talks/${talk.id}`, { score: 11 });
    expect(JSON.stringify(organisers.body.errors)).toContain(`by ${speakerId} (${BIO} Updated.)`);
  });

  it('refuses a reviewer sending a hidden field whether or not it holds the stored value', async () => {
    const right = await call(reviewer, 'PATCH', `/api/talks/${talk.id}`, { speaker: speakerId });
    const wrong = await call(reviewer, 'PATCH', `/api/talks/${talk.id}`, { speaker: otherSpeakerId });
    expect(right).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    expect(comparable(right.body)).toBe(comparable(wrong.body));
    const bio = await call(reviewer, 'PATCH', `/api/talks/${talk.id}`, { bio: `${BIO} Updated.` });
    expect(bio).toMatchObject({ status: 403, body: { detail: 'Your roles may not change bio of this Talk.' } });
    expect((await call(organiser, 'GET', `/api/talks/${talk.id}`)).body.speaker).toBe(speakerId);
  });

  it('shows a speaker who reviews their own talk whole and the others blind, and refuses filtering by the speaker', async () => {
    const own = await call(speakerReviewer, 'GET', `/api/talks/${otherTalk.id}`);
    expect(own.body).toMatchObject({ speaker: otherSpeakerId, bio: 'Grace Hopper found the first bug.' });
    const others = await call(speakerReviewer, 'GET', `/api/talks/${talk.id}`);
    blind(others.text);
    const listed = await call(speakerReviewer, 'GET', '/api/talks');
    const items = listed.body.items as Body[];
    expect(items.find((t) => t.id === otherTalk.id)).toMatchObject({ speaker: otherSpeakerId });
    expect(items.find((t) => t.id === talk.id)).not.toHaveProperty('speaker');
    const filtered = await call(speakerReviewer, 'GET', `/api/talks?filter[speaker]=${otherSpeakerId}`);
    expect(filtered.status).toBe(400);
  });

  it('documents a talk in the OpenAPI document without requiring the fields some role does not see', async () => {
    const document = await call(organiser, 'GET', '/api/openapi.json');
    const schemas = (document.body.components as { schemas: Record<string, { required?: string[] }> }).schemas;
    const record = schemas.Talk;
    expect(record?.required).toContain('title');
    expect(record?.required).not.toContain('speaker');
    expect(record?.required).not.toContain('bio');
  });

  it('gives visitors only what the anyone row names, and refuses their filter by another field as by an unknown one', async () => {
    const visit = (url: string) => server.app.inject({ method: 'GET', url });
    const listed = await visit('/api/talks');
    expect(listed.statusCode).toBe(200);
    const items = (listed.json() as { items: Body[] }).items;
    expect(items.map((t) => t.title)).toEqual(['Engines of thought', 'Compilers for everyone']);
    expect(Object.keys(items[0] ?? {}).sort()).toEqual(
      ['created_at', 'created_by', 'id', 'state', 'title', 'updated_at'].sort(),
    );
    const byAbstract = await visit('/api/talks?filter[abstract]=x');
    const byNothing = await visit('/api/talks?filter[abstrct]=x');
    expect(byAbstract.statusCode).toBe(400);
    expect(comparable(byAbstract.json() as Body)).toBe(
      comparable(byNothing.json() as Body).replaceAll('abstrct', 'abstract'),
    );
  });

  it('tells the app which fields a reviewer reads', async () => {
    const me = await call(reviewer, 'GET', '/api/auth/me');
    expect((me.body.access as Record<string, Body>).Talk).toMatchObject({
      read: 'all',
      readFields: ['title', 'abstract', 'score'],
      updateFields: ['score'],
    });
    const organisers = await call(organiser, 'GET', '/api/auth/me');
    expect((organisers.body.access as Record<string, Body>).Talk).toMatchObject({ readFields: null });
  });
});
