import type { Position } from 'unist';
import type { Span } from './model.ts';

/** The span of an mdast node (nodes from the parser always carry a position). */
export function spanOf(position: Position | undefined): Span {
  if (!position) return { line: 1, column: 1, endLine: 1, endColumn: 1, offset: 0 };
  return {
    line: position.start.line,
    column: position.start.column,
    endLine: position.end.line,
    endColumn: position.end.column,
    offset: position.start.offset ?? 0,
  };
}

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

/** The span of a whole 1-based line (used when nothing more precise exists). */
export function lineSpan(line: number): Span {
  return { line, column: 1, endLine: line, endColumn: 1, offset: 0 };
}
