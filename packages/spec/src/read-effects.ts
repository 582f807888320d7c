import type { DiagnosticBag } from './diagnostics.ts';
import type { Assignment } from './model.ts';
import type { Cell } from './parse-tables.ts';
import { cellPart } from './parse-tables.ts';

const FIELD = /^[A-Za-z_][A-Za-z0-9_]*$/;
const GRAMMAR =
  'Write each as "field = expression", several separated by ";", e.g. "decided_by = user; decided_on = today".';

/**
 * Point 4's `sets` cell: `field = expression` assignments separated by `;` (a comma may sit
 * inside an expression, `max(a, b)`; CEL has no `;`). A `;` inside a string literal or a code
 * span does not separate; an item wrapped in backticks is read without them. Each assignment's
 * `=` is the first one that is not part of `==`, `!=`, `<=` or `>=`. An empty cell, `-` or `—`
 * sets nothing.
 */
export function readAssignments(cell: Cell, bag: DiagnosticBag, transition: string): Assignment[] {
  if (cell.text === '' || /^[-—–]$/.test(cell.text)) return [];
  const assignments: Assignment[] = [];
  for (const item of splitAssignments(cell)) {
    const at = assignmentEquals(item.text);
    if (at < 0) {
      bag.report(
        'invalid-assignment',
        item.span,
        `Transition "${transition}" sets "${item.text}", which is not "field = expression".`,
        { hint: GRAMMAR },
      );
      continue;
    }
    const field = trimmed(item, 0, at);
    const source = trimmed(item, at + 1, item.text.length);
    if (!FIELD.test(field.text)) {
      bag.report(
        'invalid-assignment',
        field.text === '' ? item.span : field.span,
        `Transition "${transition}" sets "${field.text}", which is not a field name.`,
        { hint: GRAMMAR },
      );
      continue;
    }
    if (source.text === '') {
      bag.report('invalid-assignment', item.span, `Transition "${transition}" sets ${field.text} to nothing.`, {
        hint: GRAMMAR,
      });
      continue;
    }
    assignments.push({
      field: field.text,
      source: source.text,
      span: item.span,
      fieldSpan: field.span,
      sourceSpan: source.span,
    });
  }
  return assignments;
}

/** The cell split at each `;` outside string literals and code spans, trimmed, without wrapping backticks. */
function splitAssignments(cell: Cell): Cell[] {
  const items: Cell[] = [];
  const text = cell.text;
  let start = 0;
  let quote: string | null = null;
  let code = false;
  const push = (end: number) => {
    let part = trimmed(cell, start, end);
    if (part.text.length >= 2 && part.text.startsWith('`') && part.text.endsWith('`')) {
      part = trimmed(part, 1, part.text.length - 1);
    }
    if (part.text !== '') items.push(part);
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote !== null) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '`') code = !code;
    else if (ch === ';' && !code) {
      push(i);
      start = i + 1;
    }
  }
  push(text.length);
  return items;
}

/** The index of the assignment's `=`, or -1. */
function assignmentEquals(text: string): number {
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote !== null) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = null;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '=') {
      const before = text[i - 1];
      if (text[i + 1] === '=' || before === '!' || before === '<' || before === '>' || before === '=') {
        if (text[i + 1] === '=') i++;
        continue;
      }
      return i;
    }
  }
  return -1;
}

/** `cell`'s text from `from` to `to`, without surrounding white space, with its span. */
function trimmed(cell: Cell, from: number, to: number): Cell {
  let s = from;
  let e = to;
  while (s < e && /\s/.test(cell.text[s] ?? '')) s++;
  while (e > s && /\s/.test(cell.text[e - 1] ?? '')) e--;
  return cellPart(cell, s, e - s);
}
