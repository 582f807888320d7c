import type { Span } from './model.ts';

/**
 * A span covering `length` characters starting `delta` characters into a one-line span, counted
 * in the text the checker reads: a cell's `\|` is one character there and two in the source.
 */
export function subSpan(span: Span, delta: number, length: number): Span {
  const escapes = span.escapes ?? [];
  const source = (at: number) => at + escapes.filter((e) => e < at).length;
  const start = source(delta);
  const end = source(delta + length);
  const inner = escapes.filter((e) => e >= delta && e < delta + length).map((e) => e - delta);
  return {
    line: span.line,
    column: span.column + start,
    endLine: span.line,
    endColumn: span.column + end,
    offset: span.offset + start,
    ...(inner.length > 0 ? { escapes: inner } : {}),
  };
}

/** Where `inner` (a `subSpan` of `outer`) starts in `outer`'s text: `subSpan`'s `delta`. */
export function indexWithin(outer: Span, inner: Span): number {
  const delta = inner.offset - outer.offset;
  return delta - (outer.escapes ?? []).filter((e, k) => e + k < delta).length;
}

/** The start of the document, for problems that belong to no line in particular. */
export const START: Span = { line: 1, column: 1, endLine: 1, endColumn: 1, offset: 0 };
