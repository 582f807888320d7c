import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../store/sqlite/sqlite-store.ts';
import { AuthStore } from './auth-store.ts';
import { RateLimiter } from './rate-limiter.ts';

const stores: SqliteStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

async function authStore(): Promise<AuthStore> {
  const store = SqliteStore.open(':memory:');
  stores.push(store);
  const auth = new AuthStore(store.sql);
  await auth.setUp();
  return auth;
}

describe('the shared rate limiter', () => {
  it('counts calls far from the limit without writing, and adds them to the shared counter on flush', async () => {
    const auth = await authStore();
    const now = () => 120_000;
    const limiter = new RateLimiter(auth.counters, 100, { now, flushMs: 0 });
    for (let i = 0; i < 10; i++) expect(await limiter.take('user:a')).toBe(true);
    expect(await auth.counters.hits('rate:user:a', 120_000)).toBe(0);
    await limiter.flush();
    expect(await auth.counters.hits('rate:user:a', 120_000)).toBe(10);
  });

  it('admits exactly the limit across two servers once a key is past half of it', async () => {
    const auth = await authStore();
    const now = () => 60_000;
    const one = new RateLimiter(auth.counters, 10, { now, flushMs: 0 });
    const two = new RateLimiter(auth.counters, 10, { now, flushMs: 0 });
    let admitted = 0;
    for (let i = 0; i < 4; i++) {
      if (await one.take('ip:1')) admitted++;
      if (await two.take('ip:1')) admitted++;
    }
    await one.flush();
    await two.flush();
    for (let i = 0; i < 20; i++) {
      if (await one.take('ip:1')) admitted++;
      if (await two.take('ip:1')) admitted++;
    }
    expect(admitted).toBe(10);
  });

  it('starts every key afresh in the next minute, and says when that is', async () => {
    const auth = await authStore();
    let clock = 59_000;
    const limiter = new RateLimiter(auth.counters, 1, { now: () => clock, flushMs: 0 });
    expect(await limiter.take('user:b')).toBe(true);
    expect(await limiter.take('user:b')).toBe(false);
    expect(limiter.retryAfterSeconds()).toBe(1);
    clock = 60_000;
    expect(await limiter.take('user:b')).toBe(true);
  });
});
