import { describe, expect, it } from 'vitest';
import { newSecret, secretHash, secretHashOn } from './secrets.ts';

describe('secretHashOn', () => {
  it('gives each secret its own hash when a connection sends another one', () => {
    const connection = {};
    const first = newSecret('session');
    const second = newSecret('session');
    expect(secretHashOn(connection, first)).toBe(secretHash(first));
    expect(secretHashOn(connection, second)).toBe(secretHash(second));
    expect(secretHashOn(connection, first)).toBe(secretHash(first));
  });

  it('keeps connections apart, and hashes without one', () => {
    const [a, b] = [{}, {}];
    const [one, two] = [newSecret('token'), newSecret('token')];
    expect(secretHashOn(a, one)).toBe(secretHash(one));
    expect(secretHashOn(b, two)).toBe(secretHash(two));
    expect(secretHashOn(a, one)).toBe(secretHash(one));
    expect(secretHashOn(undefined, two)).toBe(secretHash(two));
  });
});
