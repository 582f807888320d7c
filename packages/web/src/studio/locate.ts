import { type Diagnostic, offsetAt, type QuickFix, quickFixes } from '@ninepoint/spec';

/** A diagnostic placed in the editor's text: offsets to underline and the "did you mean" fixes. */
export interface Located {
  diagnostic: Diagnostic;
  /** 0-based offsets into the text the diagnostic was found in; `to` > `from` unless on an empty line. */
  from: number;
  to: number;
  fixes: QuickFix[];
}

/**
 * Places each diagnostic in `source`. A span past the end (a missing section reported at the
 * top, a position in a line that no longer exists) is clamped into the text, and an empty span
 * is widened to one character so that the underline shows.
 */
export function locate(source: string, diagnostics: readonly Diagnostic[]): Located[] {
  return diagnostics.map((diagnostic) => {
    const from = clamp(
      offsetAt(source, diagnostic.line, diagnostic.column) ?? lineEnd(source, diagnostic.line),
      source,
    );
    const end = clamp(
      offsetAt(source, diagnostic.endLine, diagnostic.endColumn) ?? lineEnd(source, diagnostic.endLine),
      source,
    );
    return {
      diagnostic,
      ...(end > from ? { from, to: end } : widen(source, from)),
      fixes: quickFixes(source, diagnostic),
    };
  });
}

function clamp(offset: number, source: string): number {
  return Math.max(0, Math.min(offset, source.length));
}

/** The offset of the end of a 1-based line, or of the text when it has fewer lines. */
function lineEnd(source: string, line: number): number {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const next = source.indexOf('\n', offset);
    if (next < 0) return source.length;
    offset = next + 1;
  }
  const end = source.indexOf('\n', offset);
  return end < 0 ? source.length : end;
}

/** The character at `from`, or the one before it at the end of a line; empty only on an empty line. */
function widen(source: string, from: number): { from: number; to: number } {
  if (from < source.length && source[from] !== '\n') return { from, to: from + 1 };
  if (from > 0 && source[from - 1] !== '\n') return { from: from - 1, to: from };
  return { from, to: from };
}

/** "2 errors, 1 warning", or "No problems". */
export function countProblems(diagnostics: readonly Diagnostic[]): string {
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.length - errors;
  if (diagnostics.length === 0) return 'No problems';
  const parts = [errors > 0 ? plural(errors, 'error') : '', warnings > 0 ? plural(warnings, 'warning') : ''];
  return parts.filter((p) => p !== '').join(', ');
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** A line of the editor's text: its 1-based number and the offsets of its start and end. */
export interface TextLine {
  line: number;
  from: number;
  to: number;
}

/**
 * The line a refusal's spec line (`?line=12&text=…`, from the app's "why?") names in `source`:
 * line `line` when it still reads `text` (trimmed), else the line reading `text` nearest to it
 * (the spec may have moved since the app was built: `ninepoint dev` does not rebuild for a blank
 * line), else line `line` as it is; null when the text has fewer lines.
 */
export function findSpecLine(source: string, line: number, text?: string): TextLine | null {
  const lines: TextLine[] = [];
  let from = 0;
  for (let n = 1; ; n++) {
    const end = source.indexOf('\n', from);
    const to = end < 0 ? source.length : end;
    lines.push({ line: n, from, to });
    if (end < 0) break;
    from = end + 1;
  }
  const at = lines[line - 1];
  const wanted = text?.trim();
  const reads = (l: TextLine) => source.slice(l.from, l.to).trim() === wanted;
  if (!wanted || (at && reads(at))) return at ?? null;
  let best: TextLine | null = null;
  for (const l of lines) {
    if (reads(l) && (best === null || Math.abs(l.line - line) < Math.abs(best.line - line))) best = l;
  }
  return best ?? at ?? null;
}
