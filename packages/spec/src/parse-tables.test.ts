import { describe, expect, it } from 'vitest';
import { readRow, splitList } from './parse-tables.ts';

const texts = (line: string) => readRow(line, 1, 0).cells.map((c) => c.text);
const columns = (line: string) => readRow(line, 1, 0).cells.map((c) => [c.span.column, c.span.endColumn]);

describe('readRow', () => {
  it('splits at pipes with or without the outer pipes, trimming each cell', () => {
    expect(texts('| a | b |')).toEqual(['a', 'b']);
    expect(texts('a | b')).toEqual(['a', 'b']);
    expect(texts('|a|b')).toEqual(['a', 'b']);
    expect(texts('| a |  |')).toEqual(['a', '']);
  });

  it('keeps escaped pipes inside a cell, unescaped', () => {
    expect(texts('| pattern `a\\|b` | x |')).toEqual(['pattern `a|b`', 'x']);
  });

  it('gives each cell the 1-based columns of its trimmed text', () => {
    expect(columns('| ab | c |')).toEqual([
      [3, 5],
      [8, 9],
    ]);
  });
});

describe('splitList', () => {
  it('splits on commas outside backticks and keeps each item’s column', () => {
    const items = splitList({
      text: 'required, pattern `^[a-z]{1,3}$`, unique',
      span: { line: 4, column: 10, endLine: 4, endColumn: 50, offset: 0 },
    });
    expect(items.map((i) => i.text)).toEqual(['required', 'pattern `^[a-z]{1,3}$`', 'unique']);
    expect(items.map((i) => i.span.column)).toEqual([10, 20, 44]);
  });
});
