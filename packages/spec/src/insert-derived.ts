import { deriveCalls, formatCallsTable } from './derive-calls.ts';
import { deriveScreens, formatScreensTable } from './derive-screens.ts';
import { type Model, POINTS, type PointKey } from './model.ts';
import { parseMarkdown, sourceLines } from './parse-markdown.ts';
import { POINT_TITLES } from './parse-sections.ts';

/** The points whose derived content can be written into the spec. */
export type InsertablePoint = 'screens' | 'calls';

/** Whether the runtime derives this point's content when it is not shown, so that it can be inserted. */
export function isInsertable(point: PointKey): point is InsertablePoint {
  return point === 'screens' || point === 'calls';
}

/**
 * The spec with the derived screens or calls written into its point as a Markdown table: what
 * the runtime serves already, made explicit so the author can edit it. The point's "Not shown."
 * line is replaced and its other prose kept; a missing section is added in its place among the
 * nine. Answers the source unchanged when the point is already shown.
 */
export function insertDerived(source: string, model: Model, point: InsertablePoint): string {
  const state = model.points.find((p) => p.key === point);
  if (state?.shown) return source;
  const table = point === 'calls' ? formatCallsTable(deriveCalls(model)) : formatScreensTable(deriveScreens(model));
  const eol = source.includes('\r\n') ? '\r\n' : '\n';
  const lines = sourceLines(source);
  const tableLines = table.split('\n');

  if (state?.span) {
    // The section's extent as the parser sees it (markdown-it's blocks, not a scan for "## "): a
    // setext heading spans two lines, a "## " inside a code fence is not a heading, and a heading
    // may be indented. The section ends at the next heading of depth 1 or 2.
    const tokens = parseMarkdown(source);
    const headings = tokens.flatMap((t) =>
      t.type === 'heading_open' && t.level === 0 && t.map
        ? [{ first: t.map[0], last: t.map[1], depth: Number(t.tag.slice(1)) }]
        : [],
    );
    const heading = headings.find((h) => h.first === (state.span?.line ?? 0) - 1);
    if (!heading) return source;
    const later = headings.filter((h) => h.first > heading.first);
    const end = later.find((h) => h.depth <= 2)?.first ?? lines.length;
    // The table goes in the point's own part, before its first ### sub-section.
    const own = Math.min(later[0]?.first ?? end, end);
    const prose = new Set<number>();
    for (const t of tokens) {
      if (t.type !== 'paragraph_open' || t.level !== 0 || !t.map) continue;
      for (let n = t.map[0]; n < t.map[1]; n++) prose.add(n);
    }
    const body: string[] = [];
    for (let n = heading.last; n < own; n++) {
      const line = lines[n] ?? '';
      if (prose.has(n) && (/^\s*not shown\b/i.test(line) || isNotShownSentence(line))) continue;
      body.push(line);
    }
    const kept = trimBlank(body);
    const replacement = ['', ...(kept.length > 0 ? [...kept, ''] : []), ...tableLines, ''];
    lines.splice(heading.last, own - heading.last, ...replacement);
    return lines.join(eol);
  }

  // The section is missing: add it before the next point that is present, or at the end.
  const number = POINTS.indexOf(point) + 1;
  const section = [`## ${number}. ${POINT_TITLES[point]}`, '', ...tableLines, ''];
  const next = model.points.find((p) => p.number > number && p.span !== null);
  if (next?.span) {
    lines.splice(next.span.line - 1, 0, ...section);
  } else {
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    lines.push('', ...section);
  }
  return lines.join(eol);
}

/** "Calls are not shown." as a sentence of its own: how a section says it is absent. */
function isNotShownSentence(line: string): boolean {
  return /^[^.]*\b(is|are) not shown\b[^.]*\.?\s*$/i.test(line.trim());
}

function trimBlank(lines: string[]): string[] {
  let from = 0;
  let to = lines.length;
  while (from < to && (lines[from] ?? '').trim() === '') from++;
  while (to > from && (lines[to - 1] ?? '').trim() === '') to--;
  return lines.slice(from, to);
}
