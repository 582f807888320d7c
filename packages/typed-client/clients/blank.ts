import createClient from 'openapi-fetch';
import type { paths } from '../generated/blank.ts';
import { bearer, ok, type Person } from './walk.ts';

/** What the blank spec serves before it has entities: its health, who is signed in, and a refusal. */
export interface BlankWalk {
  health: { status: string; database: string };
  /** The signed-in user (`/api/auth/me` answers null when signed out). */
  me: { id: string; email: string };
  refused: { status: number; code: string };
}

/** Reads the health and the signed-in user; a wrong password is refused with SIGN_IN_FAILED. */
export async function walk(baseUrl: string, people: { user: Person }): Promise<BlankWalk> {
  const api = createClient<paths>({ baseUrl });
  const health = ok(await api.GET('/api/health'));
  const me = ok(await api.GET('/api/auth/me', { headers: bearer(people.user) }));
  const { error, response } = await api.POST('/api/auth/sign-in', {
    body: { email: me.user?.email ?? '', password: 'not the password' },
  });
  if (!error) throw new Error(`a wrong password answered ${response.status}`);
  return {
    health: { status: health.status, database: health.database },
    me: { id: me.user?.id ?? '', email: me.user?.email ?? '' },
    refused: {
      status: response.status,
      code: error.code === 'SIGN_IN_FAILED' ? error.code : `unexpected ${error.code}`,
    },
  };
}
