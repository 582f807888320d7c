import type { Diagnostic, PointSummary } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { formatCheckJson, toCheckJson } from './report-json.ts';

const point: PointSummary = {
  detail: '1 entity, 2 fields',
  count: 1,
  shown: true,
  title: 'Entities and their fields',
  key: 'entities',
  number: 3,
};

const warning: Diagnostic = {
  url: 'docs/diagnostics.md#unused-constant',
  expected: [],
  hint: 'Use it or remove it.',
  endColumn: 44,
  endLine: 30,
  column: 1,
  line: 30,
  message: 'Constant MAX_LOANS is defined but never used.',
  severity: 'warning',
  code: 'unused-constant',
};

describe('check --json document', () => {
  it('has the documented keys in the documented order, whatever order the checker used', () => {
    const json = toCheckJson('spec.md', [point], [warning]);
    expect(Object.keys(json)).toEqual(['version', 'file', 'ok', 'errors', 'warnings', 'points', 'diagnostics']);
    expect(Object.keys(json.points[0] ?? {})).toEqual(['number', 'key', 'title', 'shown', 'count', 'detail']);
    expect(Object.keys(json.diagnostics[0] ?? {})).toEqual([
      'code',
      'severity',
      'message',
      'line',
      'column',
      'endLine',
      'endColumn',
      'hint',
      'expected',
      'url',
    ]);
  });

  it('counts errors and warnings apart, and is ok when there are only warnings', () => {
    const error: Diagnostic = { ...warning, severity: 'error', code: 'unknown-type' };
    expect(toCheckJson('a.md', [], [warning])).toMatchObject({ ok: true, errors: 0, warnings: 1 });
    expect(toCheckJson('a.md', [], [warning, error, error])).toMatchObject({ ok: false, errors: 2, warnings: 1 });
  });

  it('prints one parseable document ending in a newline', () => {
    const text = formatCheckJson(toCheckJson('a.md', [point], []));
    expect(text.endsWith('}\n')).toBe(true);
    expect(JSON.parse(text)).toEqual({
      version: 1,
      file: 'a.md',
      ok: true,
      errors: 0,
      warnings: 0,
      points: [point],
      diagnostics: [],
    });
  });
});
