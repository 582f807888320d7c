import type { Model, Span } from './model.ts';

/**
 * Where in the spec something the running app does was written: the 1-based line and that line
 * as the author wrote it (trimmed). A refusal, an OpenAPI operation and a transition's history
 * entry carry one, so a client (and `ninepoint dev`'s "why?") can point at the sentence behind
 * the behaviour.
 */
export interface SpecLine {
  line: number;
  text: string;
}

/**
 * The source lines of the parts of a model that the runtime points at (rules and limits,
 * transitions, permission cells, roles, declared calls, fields, entity and machine headings, the
 * point headings), by line number: kept in the checked model (`Model.lines`) so the runtime
 * compiles its pointers once, without the spec's text, and the browser reads them from the model.
 */
export function specLinesOf(source: string, model: Omit<Model, 'lines'>): Record<string, string> {
  const spans: (Span | null)[] = [
    ...model.points.map((p) => p.span),
    ...model.entities.flatMap((e) => [e.span, ...e.fields.map((f) => f.span)]),
    ...model.machines.flatMap((m) => [m.span, ...m.transitions.map((t) => t.span)]),
    ...model.rules.map((r) => r.span),
    ...model.roles.map((r) => r.span),
    ...model.permissions.map((p) => p.span),
    ...model.calls.map((c) => c.span),
  ];
  const wanted = new Set(spans.filter((s): s is Span => s !== null).map((s) => s.line));
  const lines: Record<string, string> = {};
  let line = 1;
  let start = 0;
  while (start <= source.length && wanted.size > 0) {
    const end = source.indexOf('\n', start);
    const stop = end === -1 ? source.length : end;
    if (wanted.delete(line)) lines[String(line)] = source.slice(start, stop).trim();
    if (end === -1) break;
    start = end + 1;
    line++;
  }
  return lines;
}

/** The spec line of a span of the model, as `specLinesOf` kept it; null when it kept none. */
export function specLine(model: Pick<Model, 'lines'>, span: Span | null | undefined): SpecLine | null {
  if (!span) return null;
  const text = model.lines?.[String(span.line)];
  return text === undefined ? null : { line: span.line, text };
}
