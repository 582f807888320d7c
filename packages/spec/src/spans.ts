import type { Span } from './model.ts';

/** A span covering `length` characters starting `delta` characters into a one-line span. */
export function subSpan(span: Span, delta: number, length: number): Span {
  return {
    line: span.line,
    column: span.column + delta,
    endLine: span.line,
    endColumn: span.column + delta + length,
    offset: span.offset + delta,
  };
}

/** The start of the document, for problems that belong to no line in particular. */
export const START: Span = { line: 1, column: 1, endLine: 1, endColumn: 1, offset: 0 };
