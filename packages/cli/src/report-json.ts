import type { Diagnostic, PointSummary } from '@ninepoint/spec';

/** The `check --json` document. `version` is bumped on any incompatible change; keys never reorder. */
export interface CheckJson {
  version: 1;
  file: string;
  ok: boolean;
  errors: number;
  warnings: number;
  points: PointSummary[];
  diagnostics: Diagnostic[];
}

/**
 * Builds every object key by key rather than by spreading the checker's data, so the JSON's key
 * order and contents are this file's promise to scripts and CI, not an accident of the checker.
 */
export function toCheckJson(
  file: string,
  points: readonly PointSummary[],
  diagnostics: readonly Diagnostic[],
): CheckJson {
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  return {
    version: 1,
    file,
    ok: errors === 0,
    errors,
    warnings: diagnostics.length - errors,
    points: points.map((pt) => ({
      number: pt.number,
      key: pt.key,
      title: pt.title,
      shown: pt.shown,
      count: pt.count,
      detail: pt.detail,
    })),
    diagnostics: diagnostics.map((d) => ({
      code: d.code,
      severity: d.severity,
      message: d.message,
      line: d.line,
      column: d.column,
      endLine: d.endLine,
      endColumn: d.endColumn,
      hint: d.hint,
      expected: [...d.expected],
      url: d.url,
    })),
  };
}

/** Pretty-printed, one document, ending in a newline: readable in a terminal, parseable by `jq`. */
export function formatCheckJson(json: CheckJson): string {
  return `${JSON.stringify(json, null, 2)}\n`;
}
