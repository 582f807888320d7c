import { DIAGNOSTIC_CODES, type DiagnosticCode } from './diagnostic-codes.ts';
import type { Span } from './model.ts';

export type Severity = 'error' | 'warning';

/**
 * One problem found in a spec. Printing is a reporter's job (CLI text, `--json`, editor markers);
 * this is only data.
 */
export interface Diagnostic {
  code: DiagnosticCode;
  severity: Severity;
  message: string;
  /** 1-based. */
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  /** What to do about it, or "" when there is nothing mechanical to say. */
  hint: string;
  /** Names that would have been valid here, best first ("did you mean"). */
  expected: string[];
  /** The link to this code's entry in the diagnostics' docs. */
  url: string;
}

export const DOCS_URL = 'docs/diagnostics.md';

/** Collects diagnostics during one check; never throws. */
export class DiagnosticBag {
  readonly items: Diagnostic[] = [];
  /**
   * Fields reported with a reserved name (`Loan.user`), left out of the model: a use of one is
   * not reported again as an unknown field, so the mistake gives one diagnostic, not one a use.
   */
  readonly reservedFields = new Set<string>();

  /** Whether `entity.field` was reported as a reserved name (see `reservedFields`). */
  reserved(entity: string, field: string): boolean {
    return this.reservedFields.has(`${entity}.${field}`);
  }

  report(
    code: DiagnosticCode,
    span: Span,
    message: string,
    extra: { hint?: string; expected?: readonly string[] } = {},
  ): void {
    const expected = extra.expected ? [...extra.expected] : [];
    const guess = expected.length > 0 ? `Did you mean ${quoteList(expected)}?` : '';
    const hint = [guess, extra.hint ?? ''].filter((s) => s !== '').join(' ');
    this.items.push({
      code,
      severity: DIAGNOSTIC_CODES[code].severity,
      message,
      line: span.line,
      column: span.column,
      endLine: span.endLine,
      endColumn: span.endColumn,
      hint,
      expected,
      url: `${DOCS_URL}#${code}`,
    });
  }

  /** Diagnostics sorted by position, then code: the order every reporter prints. */
  sorted(): Diagnostic[] {
    return [...this.items].sort((a, b) => a.line - b.line || a.column - b.column || a.code.localeCompare(b.code));
  }
}

function quoteList(names: readonly string[]): string {
  const quoted = names.map((n) => `"${n}"`);
  return quoted.length <= 1 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}
