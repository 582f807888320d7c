import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { TEST_DATABASES } from '../../../test/databases.ts';
import { AUTH_DDL } from '../../people/auth-store.ts';
import { JOINING_DDL } from '../../people/joining-store.ts';
import { SAVED_VIEWS_DDL } from '../../views/saved-views-store.ts';
import { PgRunner } from './pg-runner.ts';

const postgres = TEST_DATABASES.filter((db) => db.name === 'postgres');

describe.each(postgres)('the runtime tables on $name', (db) => {
  it('are created once when several servers start at the same moment on one database', async () => {
    for (let round = 0; round < 5; round++) {
      const fresh = await db.fresh();
      const pools = Array.from({ length: 4 }, () => new pg.Pool({ connectionString: fresh.env.DATABASE_URL, max: 1 }));
      try {
        const runners = pools.map((pool) => new PgRunner(pool));
        const started = await Promise.allSettled(
          runners.map(async (runner) => {
            await runner.exec(AUTH_DDL);
            await runner.exec(JOINING_DDL);
            await runner.exec(SAVED_VIEWS_DDL);
          }),
        );
        expect(started.filter((s) => s.status === 'rejected')).toEqual([]);
      } finally {
        await Promise.all(pools.map((pool) => pool.end()));
        await fresh.remove();
      }
    }
  });
});
