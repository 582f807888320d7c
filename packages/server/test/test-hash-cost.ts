import { beforeAll } from 'vitest';

/**
 * A Vitest setup file of the server and browser projects (`vitest.config.ts`): passwords the
 * suites' servers hash in this process (test users, sign-ups, resets, invitations) are hashed at
 * argon2id's lowest cost instead of production's (`useTestHashCost` in people/passwords.ts), which
 * was a fifth of these suites' CPU time. Sign-in still verifies a real argon2id hash; the cost in
 * production is unchanged, and `auth.test.ts` checks it. Servers these suites start as processes
 * of their own (the bin, the reliability servers) hash at full cost. Imported in `beforeAll`, not
 * at the top, for the reason `contract-hook.ts` gives: a test file's `vi.mock` must apply first.
 */
beforeAll(async () => {
  const { useTestHashCost } = await import('../src/people/passwords.ts');
  useTestHashCost(true);
});
