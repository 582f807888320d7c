import type { Diagnostic, PointSummary } from '@ninepoint/spec';
import { POINTS } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { paint } from './paint.ts';
import { caret, formatCheckReport, formatDiagnostics, formatSummary } from './report-text.ts';

const plain = paint(false);

function diagnostic(over: Partial<Diagnostic>): Diagnostic {
  return {
    code: 'unknown-type',
    severity: 'error',
    message: 'Field Book.copies has type "integr", which is not a field type.',
    line: 2,
    column: 12,
    endLine: 2,
    endColumn: 18,
    hint: 'Did you mean "integer"?',
    expected: ['integer'],
    url: 'docs/diagnostics.md#unknown-type',
    ...over,
  };
}

function points(shown: boolean): PointSummary[] {
  return POINTS.map((key, i) => ({
    number: i + 1,
    key,
    title: `Title ${i + 1}`,
    shown,
    count: shown ? 2 : 0,
    detail: shown ? '2 things' : 'not shown',
  }));
}

const source = '| field | type | rules |\n| copies | integr | required |\n';

describe('formatDiagnostics', () => {
  it('prints file:line:col severity code message, the source line, a caret underline and the hint', () => {
    expect(formatDiagnostics('spec.md', source, [diagnostic({})], plain)).toBe(
      [
        'spec.md:2:12 error unknown-type Field Book.copies has type "integr", which is not a field type.',
        '  | copies | integr | required |',
        '             ^^^^^^',
        '  hint: Did you mean "integer"?',
        '',
      ].join('\n'),
    );
  });

  it('underlines exactly the columns from column up to endColumn', () => {
    const [, line, carets] = formatDiagnostics('s.md', source, [diagnostic({})], plain).split('\n');
    const start = (carets ?? '').indexOf('^');
    expect(line?.slice(start, start + 6)).toBe('integr');
    expect(carets?.trimEnd().length).toBe(start + 6);
  });

  it('underlines to the end of the line when the span runs onto later lines', () => {
    const text = formatDiagnostics('s.md', source, [diagnostic({ column: 3, endLine: 3, endColumn: 2 })], plain);
    expect(text.split('\n')[2]).toBe(`    ${'^'.repeat('| copies | integr | required |'.length - 2)}`);
  });

  it('omits the hint line when there is no hint, and the source when the line does not exist', () => {
    const text = formatDiagnostics('s.md', source, [diagnostic({ line: 99, endLine: 99, hint: '' })], plain);
    expect(text).toBe(
      's.md:99:12 error unknown-type Field Book.copies has type "integr", which is not a field type.\n',
    );
  });

  it('uses no escape codes without colour, and colours the severity with it', () => {
    const warning = diagnostic({ severity: 'warning', code: 'unused-constant' });
    expect(formatDiagnostics('s.md', source, [warning], plain)).not.toContain('\u001b[');
    expect(formatDiagnostics('s.md', source, [warning], paint(true))).toContain('\u001b[33m');
  });
});

describe('caret', () => {
  it('puts at least one caret under an empty span', () => {
    expect(caret('# Title', 1, 1)).toBe('^');
  });

  it('keeps tabs before the span so the carets line up in a terminal', () => {
    expect(caret('\t| a | bad |', 8, 11)).toBe('\t      ^^^');
  });

  it('puts one caret just after the line when the span starts past its end', () => {
    expect(caret('abc', 10, 12)).toBe('   ^');
  });

  it('stops the underline at the end of the line', () => {
    expect(caret('abcdef', 3, 40)).toBe('  ^^^^');
  });
});

describe('formatSummary', () => {
  it('lists each point with shown and its detail, then a total line', () => {
    const text = formatSummary('a.md', points(true), [diagnostic({}), diagnostic({ severity: 'warning' })], plain);
    expect(text).toContain('  1. Title 1  shown      2 things\n');
    expect(text.trimEnd().split('\n').at(-1)).toBe('a.md: 9 of 9 points shown, 1 error, 1 warning');
  });

  it('says plainly that all nine points are not shown for a blank spec', () => {
    const text = formatSummary('blank.md', points(false), [], plain);
    expect(text).toContain('  9. Title 9  not shown\n');
    expect(text).toContain('All nine points are not shown');
    expect(text).toContain('blank.md: 0 of 9 points shown, 0 errors, 0 warnings');
  });
});

describe('formatCheckReport', () => {
  it('separates the diagnostics from the summary by one blank line, and starts with the summary when clean', () => {
    expect(formatCheckReport('a.md', source, points(true), [diagnostic({})], plain)).toContain(
      '  hint: Did you mean "integer"?\n\nNine points:\n',
    );
    expect(formatCheckReport('a.md', source, points(true), [], plain).startsWith('Nine points:\n')).toBe(true);
  });
});
