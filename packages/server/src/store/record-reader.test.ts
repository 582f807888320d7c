import { describe, expect, it } from 'vitest';
import { compileRecordReader } from './record-reader.ts';

describe('compileRecordReader', () => {
  it('copies the named columns in order, missing ones as null, and leaves others out', () => {
    const read = compileRecordReader(['id', 'title', 'note'], []);
    const record = read({ _version: 3, id: 'a', title: 'Dune', state_since: 'x' });
    expect(record).toEqual({ id: 'a', title: 'Dune', note: null });
    expect(Object.keys(record)).toEqual(['id', 'title', 'note']);
  });

  it('makes a boolean column stored as a number a boolean and leaves every other value as it is', () => {
    const read = compileRecordReader(['id', 'count', 'express', 'gift', 'rush'], ['express', 'gift', 'rush']);
    expect(read({ id: 'a', count: 1, express: 1, gift: 0, rush: 2 })).toEqual({
      id: 'a',
      count: 1,
      express: true,
      gift: false,
      rush: true,
    });
    expect(read({ id: 'b', count: 0, express: true, gift: false, rush: null })).toEqual({
      id: 'b',
      count: 0,
      express: true,
      gift: false,
      rush: null,
    });
    expect(read({ id: 'c', express: '1' })).toEqual({ id: 'c', count: null, express: '1', gift: null, rush: null });
  });

  it('reads each column under the key the row holds it by, and names it by its field', () => {
    const short = (name: string) => (name.length > 8 ? `${name.slice(0, 4)}_h` : name);
    const read = compileRecordReader(['id', 'note_text_x', 'flag_value_y'], ['flag_value_y'], short);
    expect(read({ id: 'a', note_h: 'kept', flag_h: 1 })).toEqual({ id: 'a', note_text_x: 'kept', flag_value_y: true });
  });

  it('keeps `__proto__`, quoted and prototype-named columns as own keys of a plain object, in order', () => {
    const names = ['__proto__', 'a-b', 'x"y', 'back\\slash', 'line\u2028break', 'constructor'];
    const read = compileRecordReader(names, []);
    // JSON.parse makes `__proto__` an own property, as a database driver's row would hold it.
    const text = '{"__proto__":1,"a-b":2,"x\\"y":3,"back\\\\slash":4,"line\\u2028break":5,"constructor":6}';
    const record = read(JSON.parse(text) as Record<string, unknown>);
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    expect(Object.keys(record)).toEqual(names);
    expect(JSON.stringify(record)).toBe(
      '{"__proto__":1,"a-b":2,"x\\"y":3,"back\\\\slash":4,"line\u2028break":5,"constructor":6}',
    );
  });
});
