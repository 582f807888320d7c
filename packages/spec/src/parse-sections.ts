import type { Heading, RootContent } from 'mdast';
import { toString as mdToString } from 'mdast-util-to-string';
import type { DiagnosticBag } from './diagnostics.ts';
import { POINTS, type PointKey, type Span } from './model.ts';
import { parseMarkdown } from './parse-markdown.ts';
import { readTable, type Table } from './parse-tables.ts';
import { spanOf } from './spans.ts';

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

const NOT_SHOWN = /\b(is|are)\s+not\s+shown\b|^\s*not\s+shown\b/i;

/** Markdown → title and the nine sections, each with its prose, tables and `###` sub-sections. */
export function parseSections(source: string, bag: DiagnosticBag): ParsedSpec {
  const tree = parseMarkdown(source);
  let title: ParsedSpec['title'] = null;
  const sections: ParsedSpec['sections'] = {};
  let current: { section: Section; blocks: RootContent[] } | null = null;
  const finished: { section: Section; blocks: RootContent[] }[] = [];

  for (const node of tree.children) {
    if (node.type === 'heading' && node.depth === 1 && title === null && current === null) {
      title = { text: mdToString(node).trim(), span: spanOf(node.position) };
      continue;
    }
    if (node.type === 'heading' && node.depth <= 2) {
      if (current) finished.push(current);
      current = null;
      const point = node.depth === 2 ? recognise(node, bag) : null;
      if (point === null) continue;
      const span = spanOf(node.position);
      const earlier = sections[point];
      if (earlier) {
        bag.report(
          'duplicate-section',
          span,
          `Point ${POINTS.indexOf(point) + 1} (${POINT_TITLES[point]}) appears twice.`,
          {
            hint: `Merge it with the section at line ${earlier.span.line}.`,
          },
        );
        continue;
      }
      const section: Section = { point, span, shown: false, prose: '', tables: [], subsections: [] };
      sections[point] = section;
      current = { section, blocks: [] };
      continue;
    }
    current?.blocks.push(node);
  }
  if (current) finished.push(current);

  for (const { section, blocks } of finished) fillSection(section, blocks, source, bag);
  if (title === null) {
    bag.report('missing-title', { line: 1, column: 1, endLine: 1, endColumn: 1, offset: 0 }, 'The spec has no title.', {
      hint: 'Start the file with a heading such as "# Specification: Lending desk".',
    });
  }
  return { title, sections };
}

function recognise(heading: Heading, bag: DiagnosticBag): PointKey | null {
  const text = mdToString(heading).trim();
  const span = spanOf(heading.position);
  const match = /^(?:point\s+)?(\d+)\s*[.):-]?\s*(.*)$/i.exec(text);
  const number = match ? Number(match[1]) : null;
  const words = (match ? (match[2] ?? '') : text).toLowerCase();
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

function fillSection(section: Section, blocks: RootContent[], source: string, bag: DiagnosticBag): void {
  let sub: Subsection | null = null;
  const prose: string[] = [];
  let subProse: string[] = [];
  const closeSub = () => {
    if (sub) sub.prose = subProse.join('\n\n');
    subProse = [];
  };
  for (const node of blocks) {
    if (node.type === 'heading' && node.depth === 3) {
      closeSub();
      sub = { name: mdToString(node).trim(), span: spanOf(node.position), prose: '', tables: [] };
      section.subsections.push(sub);
    } else if (node.type === 'table') {
      (sub ? sub.tables : section.tables).push(readTable(node, source));
    } else {
      const text = sliceOf(node, source);
      if (text.trim() !== '') (sub ? subProse : prose).push(text);
    }
  }
  closeSub();
  section.prose = prose.join('\n\n');
  const hasTables = section.tables.length > 0 || section.subsections.some((s) => s.tables.length > 0);
  const allProse = [section.prose, ...section.subsections.map((s) => s.prose)].join('\n').trim();
  const saysNotShown = allProse === '' || NOT_SHOWN.test(allProse);
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

function sliceOf(node: RootContent, source: string): string {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  return start === undefined || end === undefined ? '' : source.slice(start, end);
}
