import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_ONLY } from '../packages/server/test/databases.ts';
import { BLANK_SOURCE, EXAMPLES, type Values } from './matrix/examples.ts';
import { Matrix } from './matrix/harness.ts';

/**
 * The authorisation matrix (issue 4): for every example spec, on every test database, every actor
 * (a visitor, a user per role, a user with every role) × every entity × every call the app serves
 * × a record the actor owns (through `created_by`, each `User` field and each `own via` chain) or another
 * user's, answers exactly what point 6 says, as `matrix/oracle.ts` reads docs/spec-format.md
 * without the server's code. Lists must hold exactly the readable records, and every record
 * answered exactly the fields point 6 lets the actor read. Each case writes its
 * own records straight into the store and removes them afterwards, so no case sees another's.
 */
describe.each(EXAMPLES)('the authorisation matrix of $title', (data) => {
  const model = Matrix.model(data.source);
  const actorNames = Matrix.actorNames(model);

  describe.each(SQLITE_ONLY)('on $name', (db) => {
    let matrix: Matrix | undefined;
    let started = 0;
    const ready = (): Matrix => {
      if (!matrix) throw new Error('The server did not start');
      return matrix;
    };

    beforeAll(async () => {
      started = Date.now();
      matrix = await Matrix.start(data, db);
    });
    afterAll(async () => {
      if (!matrix) return;
      const { cases, allowed, succeeded, refused } = matrix.tally;
      console.log(
        `authorisation matrix of ${data.title} on ${db.name}: ${cases} cases (${allowed} allowed, ` +
          `${succeeded} of them 2xx, the rest refused by a guard; ${refused} refused by point 6) ` +
          `in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
      await matrix.close();
    });

    it('signs in a user per role of point 6 (none for anyone) and one with every role, and the visitor as nobody', async () => {
      const m = ready();
      const roles = model.roles.map((r) => r.name).filter((r) => r !== 'anyone');
      expect(roles.length > 0).toBe(m.oracle.rolesShown);
      const seen = [];
      for (const actor of m.actors) {
        const me = await m.call(actor, 'GET', '/api/auth/me');
        expect(me.status).toBe(200);
        seen.push([actor.name, me.body.user === null ? null : [...me.body.user.roles].sort()]);
      }
      expect(seen).toEqual([
        ['visitor', null],
        ...roles.map((r) => [r, [r]]),
        [roles.length === 0 ? 'signed in' : 'all roles', [...roles].sort()],
      ]);
    });

    for (const entity of model.entities) {
      it(`lists exactly the ${entity.name} records point 6 lets each actor read, refusing those who may read none`, async () => {
        const m = ready();
        const route = m.routes(entity.name).find((r) => r.action.kind === 'list');
        if (!route) return;
        const made: { entity: string; id: string }[] = [];
        const mismatches: string[] = [];
        try {
          // Per actor, the records of its variants: one owned through each owner column (users
          // only) and one of bystanders; a record of one actor is another's "other" record.
          for (const actor of m.actors) {
            for (const column of m.variants(entity.name, actor)) {
              await m.insert(entity.name, await m.owners(entity.name, column, actor, made), {}, made);
            }
          }
          const all = await m.allRecords(entity.name);
          for (const actor of m.actors) {
            const { answer, ids, items } = await m.listAs(actor, route);
            const verdict = m.oracle.verdict('list', entity.name, actor);
            const mismatch = m.compare(actor, route, 'the list', m.expected('list', verdict, null), answer);
            if (mismatch) {
              mismatches.push(mismatch);
              continue;
            }
            if (!verdict.allowed) continue;
            const wanted = m.oracle.visible(entity.name, actor, all).map((r: Values) => String(r.id));
            const missing = wanted.filter((id) => !ids.includes(id));
            const extra = ids.filter((id) => !wanted.includes(id));
            // Filtering or sorting by a field hidden on some listed record answers as by no field at all.
            // (A list of `read own` holds only the actor's own records.)
            const owned = m.oracle.access(entity.name, actor, 'read') === 'own';
            const shownEverywhere = m.oracle.shownKeys(entity.name, actor, {}, owned);
            const hidden = entity.fields.map((f) => f.name).filter((f) => !shownEverywhere.has(f));
            for (const field of hidden) {
              const stand = `zz${field}`.slice(0, Math.max(field.length, 3));
              for (const [asked, missing] of [
                [`filter[${field}]=x`, `filter[${stand}]=x`],
                [`sort=-${field}`, `sort=-${stand}`],
              ] as const) {
                const one = await m.call(actor, 'GET', `${route.path}?${asked}`);
                const two = await m.call(actor, 'GET', `${route.path}?${missing}`);
                const said = (a: typeof one) => JSON.stringify([a.status, a.code, a.body?.detail]);
                if (said(one) !== said(two).replaceAll(stand, field)) {
                  mismatches.push(`${actor.name}: GET ${route.path}?${asked} answered ${said(one)}, not as ${missing}`);
                }
              }
            }
            for (const item of items) {
              const stored = all.find((r: Values) => r.id === item.id) ?? {};
              const wrong = m.keysMismatch(item, m.oracle.shownKeys(entity.name, actor, stored));
              if (wrong) mismatches.push(`${actor.name}: GET ${route.path}: record ${item.id}: ${wrong}`);
            }
            if (missing.length > 0 || extra.length > 0 || ids.length !== new Set(ids).size) {
              mismatches.push(
                `${actor.name}: GET ${route.path} (${verdict.why}) of ${all.length} records: ` +
                  `${missing.length} readable missing, ${extra.length} unreadable listed, ${ids.length} listed`,
              );
            }
          }
        } finally {
          await m.remove(made);
        }
        expect(mismatches).toEqual([]);
      });

      for (const name of actorNames) {
        it(`${name}: every call on a ${entity.name}, their own or another user's, answers as point 6 says`, async () => {
          const m = ready();
          const actor = m.actors.find((a) => a.name === name);
          if (!actor) throw new Error(`No actor ${name}`);
          expect(await m.checkEntity(actor, entity.name)).toEqual([]);
        });
      }
    }
  });
});

describe.each(SQLITE_ONLY)('the blank example on $name', (db) => {
  it('has no entities and no roles: a visitor and a signed-in user get UNKNOWN_CALL for any record call', async () => {
    const m = await Matrix.start({ title: 'blank.md', source: BLANK_SOURCE }, db);
    try {
      expect(m.model.entities).toEqual([]);
      expect(m.model.permissions).toEqual([]);
      expect(m.oracle.rolesShown).toBe(false);
      expect(m.server.compiled.routeTable.routes).toEqual([]);
      expect(m.actors.map((a) => a.name)).toEqual(['visitor', 'signed in']);
      for (const actor of m.actors) {
        for (const [method, url] of [
          ['GET', '/api/things'],
          ['POST', '/api/things'],
          ['GET', '/api/things/0190a000-0000-7000-8000-000000000000'],
        ] as const) {
          const answer = await m.call(actor, method, url, method === 'POST' ? {} : undefined);
          expect({ actor: actor.name, method, url, status: answer.status, code: answer.code }).toEqual({
            actor: actor.name,
            method,
            url,
            status: 404,
            code: 'UNKNOWN_CALL',
          });
        }
        expect((await m.call(actor, 'GET', '/api/health')).status).toBe(200);
      }
    } finally {
      await m.close();
    }
  });
});
