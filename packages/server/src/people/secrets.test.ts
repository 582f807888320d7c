import { describe, expect, it } from 'vitest';
import { newSecret, secretHash, secretHashOn } from './secrets.ts';

describe('secretHashOn', () => {
  it('gives each secret its own hash when a connection sends another one', () => {
    const connection = {};
    const first = newSecret('session');
    const second = newSecret('session');
    expect(secretHashOn(connection, 'session', first)).toBe(secretHash(first));
    expect(secretHashOn(connection, 'session', second)).toBe(secretHash(second));
    expect(secretHashOn(connection, 'session', first)).toBe(secretHash(first));
  });

  it('keeps connections apart, and hashes without one', () => {
    const [a, b] = [{}, {}];
    const [one, two] = [newSecret('token'), newSecret('token')];
    expect(secretHashOn(a, 'token', one)).toBe(secretHash(one));
    expect(secretHashOn(b, 'token', two)).toBe(secretHash(two));
    expect(secretHashOn(a, 'token', one)).toBe(secretHash(one));
    expect(secretHashOn(undefined, 'token', two)).toBe(secretHash(two));
  });

  it('hashes nothing that lacks the shape of the kind asked for, even a secret the connection sent before', () => {
    const connection = {};
    const token = newSecret('token');
    expect(secretHashOn(connection, 'token', token)).toBe(secretHash(token));
    expect(secretHashOn(connection, 'session', token)).toBeUndefined();
    expect(secretHashOn(connection, 'session', 'nps_short')).toBeUndefined();
    expect(secretHashOn(connection, 'session', 'nps_short')).toBeUndefined();
    expect(secretHashOn(undefined, 'token', `${token}x`)).toBeUndefined();
  });
});
