/**
 * The parts of guards and rules that are not CEL but are filled in by the runtime:
 *
 * - counts of related records: `count(Review where talk = this)`, optionally
 *   `count(Review in state accepted, rejected where talk = this)`, or `… where reviewer = user`;
 * - whether a field has a value: `has(receipt)`.
 *
 * Before an expression is checked or compiled, each is replaced by a variable of the same length
 * (so the positions CEL reports stay right): an int the runtime fills by counting in the write's
 * transaction, or a bool it fills from the record.
 */

/** One count in an expression, as written. */
export interface CountTerm {
  /** The CEL variable that stands for it in the rewritten expression. */
  readonly variable: string;
  /** The entity counted. */
  readonly entity: string;
  /** Its field that must name `this` record, or the acting `user`. */
  readonly field: string;
  readonly target: 'this' | 'user';
  /** The states counted, or null for every state. */
  readonly states: readonly string[] | null;
  /** Where it is in the source: the offset of `count(` and its length up to `)`. */
  readonly start: number;
  readonly length: number;
}

/** A `has(field)` in an expression: true when the record's field has a value. */
export interface PresenceTerm {
  readonly variable: string;
  readonly field: string;
  readonly start: number;
  readonly length: number;
}

/** A `count(` the grammar does not read, at `start`. */
export interface CountMistake {
  readonly start: number;
  readonly length: number;
}

const COUNT =
  /\bcount\(\s*([A-Za-z][A-Za-z0-9]*)(?:\s+in\s+states?\s+([A-Za-z0-9_, -]+?))?\s+where\s+([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(this|user)\s*\)/g;
const COUNT_START = /\bcount\s*\(/g;
const HAS = /(?<![.\w])has\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)/g;

/** String literals blanked (same length), so a count written inside a string is not one. */
function code(source: string): string {
  return source.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, (s) => `"${' '.repeat(s.length - 2)}"`);
}

/**
 * The counts of an expression and the expression with each replaced by its variable. A
 * `count(` that does not follow the grammar is a mistake (the checker reports it).
 */
export function findCounts(source: string): {
  rewritten: string;
  terms: CountTerm[];
  present: PresenceTerm[];
  mistakes: CountMistake[];
} {
  const blanked = code(source);
  const terms: CountTerm[] = [];
  let rewritten = '';
  let last = 0;
  for (const m of blanked.matchAll(COUNT)) {
    const start = m.index ?? 0;
    const length = m[0].length;
    const variable = `_count${terms.length}`.padEnd(length, '_');
    const states = m[2]
      ? m[2]
          .split(/\s*,\s*|\s+or\s+/)
          .map((s) => s.trim())
          .filter((s) => s !== '')
      : null;
    terms.push({
      variable,
      entity: m[1] ?? '',
      field: m[3] ?? '',
      target: m[4] === 'user' ? 'user' : 'this',
      states,
      start,
      length,
    });
    rewritten += source.slice(last, start) + variable;
    last = start + length;
  }
  rewritten += source.slice(last);
  // `has(field)` on a field of the record; `has(book.title)` is CEL's own macro and stays.
  const present: PresenceTerm[] = [];
  let withPresence = '';
  last = 0;
  for (const m of code(rewritten).matchAll(HAS)) {
    const start = m.index ?? 0;
    const length = m[0].length;
    const variable = `_has${present.length}`.padEnd(length, '_');
    if (variable.length > length) continue;
    present.push({ variable, field: m[1] ?? '', start, length });
    withPresence += rewritten.slice(last, start) + variable;
    last = start + length;
  }
  rewritten = withPresence + rewritten.slice(last);
  const mistakes: CountMistake[] = [];
  const rewrittenCode = code(rewritten);
  for (const m of rewrittenCode.matchAll(COUNT_START)) {
    const start = m.index ?? 0;
    const close = rewrittenCode.indexOf(')', start);
    mistakes.push({ start, length: (close < 0 ? rewrittenCode.length : close + 1) - start });
  }
  return { rewritten, terms, present, mistakes };
}
