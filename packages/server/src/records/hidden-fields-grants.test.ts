import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, TEST_DATABASES } from '../../test/databases.ts';
import { modelOf, replaceOnce } from '../../test/helpers.ts';
import { callAs, userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';

/**
 * A role row shows its fields only on the records its own grant covers (`while`, `own via`): a
 * grant of some records never widens what another role shows of the rest, and list filters,
 * sorts and searches refuse every field some listed record may hide.
 */
const BLIND = readFileSync(new URL('../../test/fixtures/blind-review.md', import.meta.url), 'utf8');
const CLINIC = readFileSync(new URL('../../test/fixtures/clinic.md', import.meta.url), 'utf8');

/** The roles table's row of a role: its second cell is a permission, not a type. */
const row = (role: string) => new RegExp(`^\\| ${role} +\\| (?:read|all|create)[^|]*\\|.*$`, 'm');

describe.each(TEST_DATABASES)('fields shown per covering grant, on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  const call = callAs(() => server);
  let organiser: string;
  let reviewer: string;
  let otherSpeaker: string;
  let submitted: string;
  let accepted: string;

  beforeAll(async () => {
    fresh = await db.fresh();
    // Visitors read accepted talks whole; a reviewer reads every talk without the speaker.
    let spec = replaceOnce(BLIND, row('anyone'), () => '| anyone    | read while accepted | the programme is public |');
    spec = replaceOnce(spec, row('speaker'), () => '| speaker   | read own | see the talks they give |');
    server = await createServer({ model: modelOf(spec), ...fresh.options, logger: false });
    organiser = (await userWithToken(server, ['organiser'])).authorization;
    reviewer = (await userWithToken(server, ['reviewer'])).authorization;
    const speaker = await userWithToken(server, ['speaker']);
    otherSpeaker = (await userWithToken(server, ['speaker'])).authorization;
    const talk = async (title: string) => {
      const made = await call(organiser, 'POST', '/api/talks', {
        title,
        speaker: speaker.user.id,
        bio: `secret bio of ${title}`,
      });
      expect(made.status).toBe(201);
      return String(made.body.id);
    };
    submitted = await talk('Submitted');
    accepted = await talk('Accepted');
    expect((await call(organiser, 'POST', `/api/talks/${accepted}/shortlist`)).status).toBe(200);
    expect((await call(organiser, 'POST', `/api/talks/${accepted}/accept`)).status).toBe(200);
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  it('hides the speaker from a reviewer on a talk that a grant of accepted talks does not cover', async () => {
    const got = await call(reviewer, 'GET', `/api/talks/${submitted}`);
    expect(got.body).not.toHaveProperty('speaker');
    expect(got.body).not.toHaveProperty('bio');
    const listed = await call(reviewer, 'GET', '/api/talks');
    const item = (listed.body.items as Record<string, unknown>[]).find((t) => t.id === submitted);
    expect(item).toBeDefined();
    expect(item).not.toHaveProperty('bio');
    const history = await call(reviewer, 'GET', `/api/talks/${submitted}/history`);
    expect(history.text).not.toContain('secret bio');
    // The accepted talk is public, so the reviewer sees it whole.
    expect((await call(reviewer, 'GET', `/api/talks/${accepted}`)).body.bio).toBe('secret bio of Accepted');
  });

  it('refuses to filter, sort or search a list by a field some listed record hides', async () => {
    // The reviewer sees the bio of accepted talks only: a filter on it would tell the others'.
    const unknown = await call(reviewer, 'GET', '/api/talks?filter[nothing]=x');
    expect(unknown.status).toBe(400);
    for (const query of ['filter[bio]=secret%20bio%20of%20Submitted', 'sort=bio', 'filter[speaker]=x']) {
      const answer = await call(reviewer, 'GET', `/api/talks?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.code).toBe(unknown.body.code);
    }
    const searched = await call(reviewer, 'GET', '/api/talks?q=secret&count=true');
    expect(searched.body.total).toBe(0);
    // A speaker who sees every field of every talk they may read filters by it as usual.
    expect((await call(otherSpeaker, 'GET', '/api/talks?sort=bio')).status).toBe(200);
  });
});

describe.each(TEST_DATABASES)('fields shown through an own via chain, on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  const call = callAs(() => server);

  beforeAll(async () => {
    fresh = await db.fresh();
    const spec = replaceOnce(
      CLINIC,
      /read own via doctor\.account, update own via doctor\.account \(notes\) while requested or confirmed/,
      () => 'read own via doctor.account (doctor, patient, starts_at)',
    );
    server = await createServer({ model: modelOf(spec), ...fresh.options, logger: false });
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  it('shows a doctor only the fields their row names, on the appointments their chain reaches', async () => {
    const admin = (await userWithToken(server, ['admin'])).authorization;
    const doctor = await userWithToken(server, ['doctor']);
    const patient = await userWithToken(server, ['patient']);
    const doc = await call(admin, 'POST', '/api/doctors', { name: 'Dr Who', account: doctor.user.id });
    const pat = await call(admin, 'POST', '/api/patients', { name: 'Pat', account: patient.user.id });
    const made = await call(admin, 'POST', '/api/appointments', {
      doctor: doc.body.id,
      patient: pat.body.id,
      starts_at: '2030-01-01T09:00:00Z',
      notes: 'SECRET NOTES',
    });
    expect(made.status).toBe(201);
    const got = await call(doctor.authorization, 'GET', `/api/appointments/${made.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body.starts_at).toBe('2030-01-01T09:00:00.000Z');
    expect(got.body).not.toHaveProperty('notes');
    const listed = await call(doctor.authorization, 'GET', '/api/appointments');
    expect(listed.text).not.toContain('SECRET');
    expect((await call(doctor.authorization, 'GET', `/api/appointments/${made.body.id}/history`)).text).not.toContain(
      'SECRET',
    );
  });
});

describe.each(TEST_DATABASES)('a guard’s own error message, on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  const call = callAs(() => server);

  beforeAll(async () => {
    fresh = await db.fresh();
    let spec = replaceOnce(BLIND, /^\| transition \|[\s\S]*?\n\n/m, () =>
      [
        '| transition | from        | to          | who                 | when       | error     |',
        '| ---------- | ----------- | ----------- | ------------------- | ---------- | --------- |',
        '| submit     | (new)       | submitted   |                     |            |           |',
        '| shortlist  | submitted   | shortlisted | reviewer, organiser | has(score) | LOW_SCORE |',
        '| accept     | shortlisted | accepted    | organiser           |            |           |',
        '',
        '',
      ].join('\n'),
    );
    spec = replaceOnce(
      spec,
      /\| SCORE_TOO_HIGH \| 422 .*\|/,
      (line) =>
        `${line}\n| LOW_SCORE      | 409    | Score {title} by {speaker} ({bio}) first.                                 |`,
    );
    server = await createServer({ model: modelOf(spec), ...fresh.options, logger: false });
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  it('leaves the fields the caller may not see out of the message', async () => {
    const organiser = (await userWithToken(server, ['organiser'])).authorization;
    const reviewer = (await userWithToken(server, ['reviewer'])).authorization;
    const speaker = await userWithToken(server, ['speaker']);
    const made = await call(organiser, 'POST', '/api/talks', { title: 'T1', speaker: speaker.user.id, bio: 'Ada L.' });
    const refused = await call(reviewer, 'POST', `/api/talks/${made.body.id}/shortlist`);
    expect(refused.body.code).toBe('LOW_SCORE');
    expect(refused.text).not.toContain('Ada L.');
    expect(refused.text).not.toContain(speaker.user.id);
    expect(refused.body.detail).toContain('Score T1 by');
    const told = await call(organiser, 'POST', `/api/talks/${made.body.id}/shortlist`);
    expect(told.body.detail).toBe(`Score T1 by ${speaker.user.id} (Ada L.) first.`);
  });
});
