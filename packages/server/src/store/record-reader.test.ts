import { describe, expect, it } from 'vitest';
import { compileRecordReader } from './record-reader.ts';

describe('compileRecordReader', () => {
  it('copies the named columns in order, missing ones as null, and leaves others out', () => {
    const read = compileRecordReader(['id', 'title', 'note'], []);
    const record = read({ _version: 3, id: 'a', title: 'Dune', state_since: 'x' });
    expect(record).toEqual({ id: 'a', title: 'Dune', note: null });
    expect(Object.keys(record)).toEqual(['id', 'title', 'note']);
  });

  it('makes a boolean stored as 0 or 1 a boolean and keeps a boolean or null as it is', () => {
    const read = compileRecordReader(['id', 'express', 'gift'], ['express', 'gift']);
    expect(read({ id: 'a', express: 1, gift: 0 })).toEqual({ id: 'a', express: true, gift: false });
    expect(read({ id: 'b', express: true, gift: null })).toEqual({ id: 'b', express: true, gift: null });
    expect(read({ id: 'c' })).toEqual({ id: 'c', express: null, gift: null });
  });

  it('holds names a literal could misread as plain own properties', () => {
    const names = ['__proto__', 'a-b', 'x"y', 'constructor'];
    const read = compileRecordReader(names, []);
    // JSON.parse makes `__proto__` an own property, as a database driver's row would hold it.
    const record = read(JSON.parse('{"__proto__":1,"a-b":2,"x\\"y":3,"constructor":4}') as Record<string, unknown>);
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    expect(Object.keys(record)).toEqual(names);
    expect(JSON.stringify(record)).toBe('{"__proto__":1,"a-b":2,"x\\"y":3,"constructor":4}');
  });
});
