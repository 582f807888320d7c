import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_ONLY } from '../../test/databases.ts';
import { modelOf } from '../../test/helpers.ts';
import { userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';

/** Applications due by a date constant, with guards that answer their own catalogue codes. */
const GRANT_CALL = readFileSync(new URL('../../test/fixtures/grant-call.md', import.meta.url), 'utf8');

type Json = Record<string, unknown>;

describe.each(SQLITE_ONLY)('on $name', (db) => {
  describe('date constants and guards with their own error codes', () => {
    let server: NinepointServer;
    let remove: () => Promise<void>;
    let call: (method: string, url: string, body?: unknown) => Promise<{ status: number; body: Json }>;

    beforeAll(async () => {
      const temp = await db.fresh();
      remove = temp.remove;
      server = await createServer({ model: modelOf(GRANT_CALL), ...temp.options, logger: false });
      const { authorization } = await userWithToken(server);
      call = async (method, url, body) => {
        const response = await server.app.inject({
          method: method as 'GET',
          url,
          headers: { authorization, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
          ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
        });
        return { status: response.statusCode, body: response.body === '' ? {} : (response.json() as Json) };
      };
    });
    afterAll(async () => {
      await server.close();
      await remove();
    });

    const apply = (extra: Json = {}) =>
      call('POST', '/api/applications', { title: 'Solar roof', amount: 900, ...extra });

    it('enforces a rule comparing a date field with a date constant', async () => {
      const late = await apply({ submitted_on: '3000-01-01' });
      expect(late.status).toBe(422);
      expect(late.body.errors).toEqual([
        expect.objectContaining({
          field: 'submitted_on',
          code: 'LATE',
          message: 'Applications must be dated 2999-12-31 or earlier.',
        }),
      ]);
      const onTheDay = await apply({ submitted_on: '2999-12-31' });
      expect(onTheDay.status).toBe(201);
    });

    it('takes a transition whose guard compares today and now with date and date-time constants', async () => {
      const draft = await apply();
      const submitted = await call('POST', `/api/applications/${draft.body.id}/submit`);
      expect(submitted.status).toBe(200);
      expect(submitted.body.state).toBe('submitted');
    });

    it('answers a failed guard with its own code, status and filled message, and leaves the record as it was', async () => {
      const draft = await apply({ title: 'Heat pump' });
      const refused = await call('POST', `/api/applications/${draft.body.id}/fast-track`);
      expect(refused.status).toBe(410);
      expect(refused.body).toMatchObject({
        code: 'EARLY_BIRD_OVER',
        status: 410,
        detail: 'The early-bird round ended on 2001-01-01: submit "Heat pump" the ordinary way.',
      });
      const stored = await call('GET', `/api/applications/${draft.body.id}`);
      expect(stored.body.state).toBe('draft');
    });

    it('still answers TRANSITION_NOT_ALLOWED for a wrong from-state, and for a guard without a code', async () => {
      const draft = await apply();
      await call('POST', `/api/applications/${draft.body.id}/submit`);
      const again = await call('POST', `/api/applications/${draft.body.id}/fast-track`);
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('TRANSITION_NOT_ALLOWED');
      const withdraw = await call('POST', `/api/applications/${draft.body.id}/withdraw`);
      expect(withdraw.status).toBe(409);
      expect(withdraw.body).toMatchObject({
        code: 'TRANSITION_NOT_ALLOWED',
        detail: 'Set a note first. Withdraw is allowed only when the note is not empty.',
        empty: ['note'],
      });
    });

    it("lists a guard's own code among the transition's answers in the OpenAPI document", async () => {
      const doc = await call('GET', '/api/openapi.json');
      const text = JSON.stringify((doc.body.paths as Json)['/api/applications/{id}/fast-track']);
      expect(text).toContain('EARLY_BIRD_OVER');
      expect(text).toContain('TRANSITION_NOT_ALLOWED');
    });
  });
});

/** The IT helpdesk: `assign` needs an assignee with the role agent; `resolve` a long enough resolution. */
const HELPDESK = readFileSync(new URL('../../../../examples/helpdesk.md', import.meta.url), 'utf8');

describe.each(SQLITE_ONLY)('on $name', (db) => {
  describe('a guard refused because a field it reads is empty', () => {
    let server: NinepointServer;
    let remove: () => Promise<void>;
    let agent: { authorization: string; id: string };

    beforeAll(async () => {
      const temp = await db.fresh();
      remove = temp.remove;
      server = await createServer({ model: modelOf(HELPDESK), ...temp.options, logger: false });
      const made = await userWithToken(server, ['agent']);
      agent = { authorization: made.authorization, id: made.user.id };
    });
    afterAll(async () => {
      await server.close();
      await remove();
    });

    const call = async (method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) => {
      const response = await server.app.inject({
        method,
        url,
        headers: {
          authorization: agent.authorization,
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      });
      return { status: response.statusCode, body: response.json() as Json };
    };

    it('says which field to set first, and names it in `empty`; with the field set, the step goes through', async () => {
      const ticket = await call('POST', '/api/tickets', {
        title: 'Monitor flickers',
        description: 'The left monitor flickers every few seconds.',
      });
      const refused = await call('POST', `/api/tickets/${ticket.body.id}/assign`);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({
        code: 'TRANSITION_NOT_ALLOWED',
        detail: 'Set an assignee first. Assign is allowed only when the assignee has the role agent.',
        empty: ['assignee'],
      });
      await call('PATCH', `/api/tickets/${ticket.body.id}`, { assignee: agent.id });
      expect((await call('POST', `/api/tickets/${ticket.body.id}/assign`)).status).toBe(200);
      await call('POST', `/api/tickets/${ticket.body.id}/start`);
      const unresolved = await call('POST', `/api/tickets/${ticket.body.id}/resolve`);
      expect(unresolved.body.detail).toMatch(/^Set a resolution first\. /);
      expect(unresolved.body.empty).toEqual(['resolution']);
    });

    it('names no empty field when the guard failed on a value that is set', async () => {
      const ticket = await call('POST', '/api/tickets', {
        title: 'Keyboard missing keys',
        description: 'The E and R keys came off.',
      });
      await call('PATCH', `/api/tickets/${ticket.body.id}`, { assignee: agent.id });
      await call('POST', `/api/tickets/${ticket.body.id}/assign`);
      await call('POST', `/api/tickets/${ticket.body.id}/start`);
      await call('PATCH', `/api/tickets/${ticket.body.id}`, { resolution: 'Too short' });
      const refused = await call('POST', `/api/tickets/${ticket.body.id}/resolve`);
      expect(refused.status).toBe(409);
      expect(refused.body.detail).toMatch(/^Resolve is allowed only when/);
      expect(refused.body).not.toHaveProperty('empty');
    });
  });
});
