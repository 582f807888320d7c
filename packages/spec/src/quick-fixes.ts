import { distance } from 'fastest-levenshtein';
import type { Diagnostic } from './diagnostics.ts';

/** A mechanical edit that fixes a diagnostic: replace `from`..`to` (0-based offsets) with `insert`. */
export interface QuickFix {
  /** E.g. `Change "borower" to "borrower"`. */
  title: string;
  from: number;
  to: number;
  insert: string;
}

/**
 * The "did you mean" fixes of a diagnostic: for each name it expected, the edit that puts that
 * name in place of the misspelt one. The misspelt part is the diagnostic's whole text when that
 * is close to the name, else its word closest to the name (a span can cover a whole cell, such
 * as `Loan where borower = me`). No fix when nothing in the span is close.
 */
export function quickFixes(source: string, diagnostic: Diagnostic): QuickFix[] {
  const from = offsetAt(source, diagnostic.line, diagnostic.column);
  const to = offsetAt(source, diagnostic.endLine, diagnostic.endColumn);
  if (from === null || to === null || to < from) return [];
  const text = source.slice(from, to);
  const fixes: QuickFix[] = [];
  for (const name of diagnostic.expected) {
    const part = closestPart(text, name);
    if (!part) continue;
    // Never replace part of a word: the closest part of a span can start or end inside one, and
    // "ctego" → "category" would leave "categoryry".
    let start = from + part.start;
    let end = from + part.end;
    while (start > 0 && WORD_CHAR.test(source[start - 1] ?? '')) start--;
    while (end < source.length && WORD_CHAR.test(source[end] ?? '')) end++;
    const wrong = source.slice(start, end);
    if (wrong === name) continue;
    fixes.push({ title: `Change "${wrong}" to "${name}"`, from: start, to: end, insert: name });
  }
  return fixes;
}

const WORD_CHAR = /[A-Za-z0-9_]/;

/** The 0-based offset of a 1-based line and column (columns count UTF-16 units, as spans do). */
export function offsetAt(source: string, line: number, column: number): number | null {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const next = source.indexOf('\n', offset);
    if (next < 0) return null;
    offset = next + 1;
  }
  const lineEnd = source.indexOf('\n', offset);
  const end = lineEnd < 0 ? source.length : lineEnd;
  const at = offset + column - 1;
  return at <= end ? at : null;
}

function closestPart(text: string, name: string): { start: number; end: number } | null {
  const parts: { start: number; end: number; text: string }[] = [];
  const trimmed = text.trim();
  if (trimmed !== '') {
    const start = text.indexOf(trimmed);
    parts.push({ start, end: start + trimmed.length, text: trimmed });
  }
  for (const m of text.matchAll(/[A-Za-z0-9_./:-]+/g)) {
    parts.push({ start: m.index, end: m.index + m[0].length, text: m[0] });
  }
  let best: { start: number; end: number; d: number } | null = null;
  const target = name.toLowerCase();
  for (const part of parts) {
    if (part.text === name) continue;
    const d = distance(part.text.toLowerCase(), target);
    if (!best || d < best.d) best = { start: part.start, end: part.end, d };
  }
  // Close means what `suggest` offered it for: a few edits, relative to the name's length.
  return best && best.d <= Math.max(3, Math.ceil(name.length / 2)) ? best : null;
}
