import type { Diagnostic, PointSummary } from '@ninepoint/spec';
import type { Paint } from './paint.ts';

/**
 * Diagnostics the way compilers print them, so editors and terminals that link `file:line:col`
 * work, and the reader sees the exact cells that are wrong without opening the file.
 */
export function formatDiagnostics(file: string, source: string, diagnostics: readonly Diagnostic[], p: Paint): string {
  const lines = source.split('\n');
  return diagnostics.map((d) => formatDiagnostic(file, lines, d, p)).join('');
}

function formatDiagnostic(file: string, lines: readonly string[], d: Diagnostic, p: Paint): string {
  const severity = d.severity === 'error' ? p(['bold', 'red'], 'error') : p(['bold', 'yellow'], 'warning');
  const out = [`${p('bold', `${file}:${d.line}:${d.column}`)} ${severity} ${p('dim', d.code)} ${d.message}`];
  const text = lines[d.line - 1]?.replace(/\r$/, '');
  if (text !== undefined && text.trim() !== '') {
    const end = d.endLine > d.line ? text.length + 1 : d.endColumn;
    out.push(`  ${text}`, `  ${p(d.severity === 'error' ? 'red' : 'yellow', caret(text, d.column, end))}`);
  }
  if (d.hint !== '') out.push(`  ${p('cyan', 'hint:')} ${d.hint}`);
  return `${out.join('\n')}\n`;
}

/**
 * The underline for columns `column` up to (not including) `endColumn`, 1-based, kept within the
 * line; at least one caret so an empty span is still visible. Tabs before the span are kept so
 * it lines up in a terminal.
 */
export function caret(text: string, column: number, endColumn: number): string {
  const start = Math.min(Math.max(column, 1), text.length + 1);
  const width = Math.max(Math.min(endColumn, text.length + 1) - start, 1);
  return `${text.slice(0, start - 1).replace(/[^\t]/g, ' ')}${'^'.repeat(width)}`;
}

/** One line per point, then the total: the answer to "how far along is this spec?". */
export function formatSummary(
  file: string,
  points: readonly PointSummary[],
  diagnostics: readonly Diagnostic[],
  p: Paint,
): string {
  const width = Math.max(...points.map((pt) => `${pt.number}. ${pt.title}`.length));
  const rows = points.map((pt) => {
    const label = `${pt.number}. ${pt.title}`.padEnd(width);
    return pt.shown ? `  ${label}  ${p('green', 'shown')}      ${pt.detail}` : `  ${label}  ${p('dim', 'not shown')}`;
  });
  const shown = points.filter((pt) => pt.shown).length;
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.length - errors;
  const counts = [
    p(errors > 0 ? ['bold', 'red'] : 'green', plural(errors, 'error')),
    p(warnings > 0 ? ['bold', 'yellow'] : 'green', plural(warnings, 'warning')),
  ];
  const out = ['Nine points:', ...rows, ''];
  if (shown === 0) {
    out.push('All nine points are not shown: this is a blank spec, valid and runnable. Describe point 1 to start.');
  }
  out.push(`${file}: ${shown} of ${points.length} points shown, ${counts.join(', ')}`);
  return `${out.join('\n')}\n`;
}

/** `check`'s whole text output: diagnostics, a blank line, the summary. */
export function formatCheckReport(
  file: string,
  source: string,
  points: readonly PointSummary[],
  diagnostics: readonly Diagnostic[],
  p: Paint,
): string {
  const head = formatDiagnostics(file, source, diagnostics, p);
  return `${head}${head === '' ? '' : '\n'}${formatSummary(file, points, diagnostics, p)}`;
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
