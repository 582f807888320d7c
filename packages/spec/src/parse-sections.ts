import type { DiagnosticBag } from './diagnostics.ts';
import { POINTS, type PointKey, type Span } from './model.ts';
import { parseMarkdown, sourceLines, type Token } from './parse-markdown.ts';
import { overflowOf, readRow, type Table } from './parse-tables.ts';
import { START } from './spans.ts';

/** Canonical titles of the nine points. */
export const POINT_TITLES: Record<PointKey, string> = {
  product: 'What the product does and for whom',
  screens: 'Screens and routes',
  entities: 'Entities and their fields',
  states: 'States and transitions',
  rules: 'Validation rules',
  roles: 'Roles and permissions',
  calls: 'The calls it makes',
  errors: 'The error catalogue',
  constants: 'Business constants and limits',
};

/** Words in a `##` title that name a point; the earliest match in the title wins. */
const TITLE_WORDS: Record<PointKey, readonly string[]> = {
  product: ['what the product does', 'what it does', 'for whom', 'purpose', 'overview', 'product', 'about'],
  screens: ['screen', 'route', 'page'],
  entities: ['entit', 'field', 'data model'],
  states: ['state', 'transition', 'workflow', 'lifecycle'],
  rules: ['validation', 'rule'],
  roles: ['role', 'permission', 'access'],
  calls: ['call', 'api', 'endpoint'],
  errors: ['error'],
  constants: ['constant', 'limit', 'setting'],
};

/** A `###` sub-section: its heading, prose and tables. */
export interface Subsection {
  name: string;
  span: Span;
  prose: string;
  tables: Table[];
}

/** A `##` section recognised as one of the nine points. */
export interface Section {
  point: PointKey;
  span: Span;
  shown: boolean;
  /** Prose before the first `###`, as Markdown. */
  prose: string;
  /** Tables before the first `###`. */
  tables: Table[];
  subsections: Subsection[];
}

export interface ParsedSpec {
  title: { text: string; span: Span } | null;
  sections: Partial<Record<PointKey, Section>>;
}

/** Prose saying the point is absent: it starts with "Not shown", or is one sentence with "is/are not shown". */
const NOT_SHOWN = /^(not shown\b.*|[^.]*\b(is|are) not shown\b[^.]*\.?)$/i;

/** A top-level block of the document: a heading, a table, or prose (anything else). */
type Block =
  | { kind: 'heading'; depth: number; text: string; span: Span }
  | { kind: 'table'; table: Table }
  | { kind: 'prose'; text: string };

/** Markdown → title and the nine sections, each with its prose, tables and `###` sub-sections. */
export function parseSections(source: string, bag: DiagnosticBag): ParsedSpec {
  const blocks = readBlocks(source);
  let title: ParsedSpec['title'] = null;
  const sections: ParsedSpec['sections'] = {};
  let current: { section: Section; blocks: Block[] } | null = null;
  const started: { section: Section; blocks: Block[] }[] = [];

  for (const block of blocks) {
    if (block.kind === 'heading' && block.depth === 1 && title === null && current === null) {
      title = { text: block.text, span: block.span };
      continue;
    }
    if (block.kind === 'heading' && block.depth <= 2) {
      current = null;
      const point = block.depth === 2 ? recognise(block.text, block.span, bag) : null;
      if (point === null) continue;
      const earlier = sections[point];
      if (earlier) {
        bag.report(
          'duplicate-section',
          block.span,
          `Point ${POINTS.indexOf(point) + 1} (${POINT_TITLES[point]}) appears twice.`,
          {
            hint: `Merge it with the section at line ${earlier.span.line}.`,
          },
        );
        continue;
      }
      const section: Section = { point, span: block.span, shown: false, prose: '', tables: [], subsections: [] };
      sections[point] = section;
      current = { section, blocks: [] };
      started.push(current);
      continue;
    }
    current?.blocks.push(block);
  }
  for (const { section, blocks } of started) fillSection(section, blocks, bag);
  if (title === null) {
    bag.report('missing-title', START, 'The spec has no title.', {
      hint: 'Start the file with a heading such as "# Specification: Lending desk".',
    });
  }
  return { title, sections };
}

/** Groups markdown-it's top-level tokens into headings, tables (with cells read from the source) and prose. */
function readBlocks(source: string): Block[] {
  const lines = sourceLines(source);
  const offsets: number[] = [];
  let offset = 0;
  for (const line of lines) {
    offsets.push(offset);
    offset += line.length + 1;
  }
  const blocks: Block[] = [];
  const tokens = parseMarkdown(source);
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    if (token.level !== 0 || !token.map || token.nesting === -1) continue;
    const [first, last] = token.map;
    if (token.type === 'heading_open') {
      const text = (tokens[i + 1]?.content ?? '').trim();
      // The span covers the heading's text, so "### Bok" points at "Bok". A setext heading's text
      // may run over several lines; its span then covers those lines.
      const textLines = text.split('\n');
      const at = Math.max(0, (lines[first] ?? '').indexOf(textLines[0] ?? ''));
      const endLine = first + textLines.length;
      blocks.push({
        kind: 'heading',
        depth: Number(token.tag.slice(1)),
        text: text.replace(/\s+/g, ' '),
        span: {
          line: first + 1,
          column: at + 1,
          endLine,
          endColumn: textLines.length > 1 ? (lines[endLine - 1] ?? '').length + 1 : at + 1 + text.length,
          offset: (offsets[first] ?? 0) + at,
        },
      });
    } else if (token.type === 'table_open') {
      const rows = [];
      for (let j = i + 1; j < tokens.length && tokens[j]?.type !== 'table_close'; j++) {
        const row = tokens[j] as Token;
        if (row.type !== 'tr_open' || !row.map) continue;
        const n = row.map[0];
        rows.push(readRow(lines[n] ?? '', n + 1, offsets[n] ?? 0));
      }
      const [header, ...body] = rows;
      const count = header?.cells.length ?? 0;
      const lastLine = lines[last - 1] ?? '';
      blocks.push({
        kind: 'table',
        table: {
          header: header?.cells ?? [],
          rows: body.map((row) => ({ ...row, cells: row.cells.slice(0, count), opens: row.opens.slice(0, count) })),
          overflow: body.map((row) => overflowOf(row, count)).filter((span): span is Span => span !== null),
          span: {
            line: first + 1,
            column: 1,
            endLine: last,
            endColumn: lastLine.length + 1,
            offset: offsets[first] ?? 0,
          },
        },
      });
    } else {
      blocks.push({ kind: 'prose', text: lines.slice(first, last).join('\n') });
    }
  }
  return blocks;
}

function recognise(text: string, span: Span, bag: DiagnosticBag): PointKey | null {
  const match = /^(?:point\s+)?(\d+)\s*[.):-]?\s*(.*)$/i.exec(text);
  const number = match ? Number(match[1]) : null;
  const words = (match ? (match[2] ?? '') : text).toLowerCase().replace(/[`*_]/g, '');
  const byNumber = number !== null && number >= 1 && number <= 9 ? (POINTS[number - 1] ?? null) : null;
  const byTitle = pointByTitle(words);
  if (byNumber && byTitle && byNumber !== byTitle) {
    bag.report(
      'section-number-mismatch',
      span,
      `Section "${text}" is numbered ${number} (${POINT_TITLES[byNumber]}) but its title names point ${POINTS.indexOf(byTitle) + 1} (${POINT_TITLES[byTitle]}).`,
      {
        hint: `Number it ${POINTS.indexOf(byTitle) + 1}, or retitle it "${POINT_TITLES[byNumber]}". It is read as point ${POINTS.indexOf(byTitle) + 1}.`,
      },
    );
    return byTitle;
  }
  const point = byTitle ?? byNumber;
  if (!point) {
    bag.report('unknown-section', span, `Section "${text}" is not one of the nine points; it is ignored.`, {
      hint: `The nine points are: ${POINTS.map((p, i) => `${i + 1}. ${POINT_TITLES[p]}`).join('; ')}. Use ### inside a point for sub-sections.`,
    });
  }
  return point;
}

function pointByTitle(words: string): PointKey | null {
  let best: PointKey | null = null;
  let bestAt = Number.POSITIVE_INFINITY;
  for (const point of POINTS) {
    for (const word of TITLE_WORDS[point]) {
      const at = words.indexOf(word);
      if (at >= 0 && at < bestAt) {
        best = point;
        bestAt = at;
      }
    }
  }
  return best;
}

function fillSection(section: Section, blocks: Block[], bag: DiagnosticBag): void {
  let sub: Subsection | null = null;
  const prose: string[] = [];
  let subProse: string[] = [];
  const closeSub = () => {
    if (sub) sub.prose = subProse.join('\n\n');
    subProse = [];
  };
  for (const block of blocks) {
    if (block.kind === 'heading' && block.depth === 3) {
      closeSub();
      sub = { name: block.text, span: block.span, prose: '', tables: [] };
      section.subsections.push(sub);
    } else if (block.kind === 'table') {
      (sub ? sub.tables : section.tables).push(block.table);
      reportOverflow(block.table, bag);
    } else {
      const text = block.kind === 'heading' ? `${'#'.repeat(block.depth)} ${block.text}` : block.text;
      if (text.trim() !== '') (sub ? subProse : prose).push(text);
    }
  }
  closeSub();
  section.prose = prose.join('\n\n');
  const hasTables = section.tables.length > 0 || section.subsections.some((s) => s.tables.length > 0);
  const allProse = [section.prose, ...section.subsections.map((s) => s.prose)].join('\n').trim();
  const saysNotShown = allProse === '' || NOT_SHOWN.test(allProse.replace(/\s+/g, ' '));
  if (section.point === 'product') {
    section.shown = !saysNotShown;
  } else if (hasTables) {
    section.shown = true;
  } else if (!saysNotShown) {
    bag.report(
      'section-without-table',
      section.span,
      `Point ${POINTS.indexOf(section.point) + 1} (${POINT_TITLES[section.point]}) has prose but no table, so it is treated as not shown.`,
      { hint: 'Add the point\'s table, or write "Not shown." to say so on purpose.' },
    );
  }
}

/** An `extra-cell` error for each row of a point's table with more cells than its header. */
function reportOverflow(table: Table, bag: DiagnosticBag): void {
  for (const span of table.overflow) {
    bag.report(
      'extra-cell',
      span,
      `This row has more cells than the table's header (${table.header.length}); the cells from here on would be dropped.`,
      {
        hint: "A bare | ends a cell: write CEL's || as \\|\\| and a literal pipe as \\|, or add the missing column to the header.",
      },
    );
  }
}
