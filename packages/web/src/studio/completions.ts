import type { Completion, CompletionContext, CompletionResult } from '@codemirror/autocomplete';
import { FILE_FORMATS } from '@ninepoint/spec';
import { cells, fileKinds, isTableLine } from './guided.ts';

/** Where the cursor is in a Markdown table: its column's header word and the row's cells. */
export interface CellContext {
  /** The column's header, lower case (`type`, `rules`). */
  column: string;
  /** The row's cells by header, trimmed. */
  row: Record<string, string>;
}

/** A row's cells, trimmed. */
const cellsOf = (line: string) => cells(line).map((c) => c.trim());

/** The table cell at an offset of the text, with its column's header; null outside a table's body. */
export function cellAt(text: string, offset: number): CellContext | null {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const lineEnd = text.indexOf('\n', offset);
  const line = text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd);
  if (!isTableLine(line)) return null;
  const lines = text.slice(0, lineStart).split('\n');
  lines.pop();
  let header = line;
  let rows = 0;
  while (lines.length > 0 && isTableLine(lines[lines.length - 1] ?? '')) {
    header = lines.pop() ?? '';
    rows++;
  }
  // The header itself and the |---| line under it take no completions.
  if (rows < 2) return null;
  const before = line.slice(0, offset - lineStart).replace(/^\s*\|/, '');
  const index = before.split(/(?<!\\)\|/).length - 1;
  const names = cellsOf(header).map((h) => h.toLowerCase().replace(/`/g, ''));
  const cells = cellsOf(line);
  const column = names[index];
  if (column === undefined) return null;
  return { column, row: Object.fromEntries(names.map((n, i) => [n, cells[i] ?? ''])) };
}

const TYPES: Completion[] = [
  { label: 'text', detail: 'one line' },
  { label: 'long text', detail: 'paragraphs' },
  { label: 'integer', detail: 'a whole number' },
  { label: 'decimal', detail: 'decimal(2) keeps two places' },
  { label: 'boolean', detail: 'yes or no' },
  { label: 'date' },
  { label: 'datetime' },
  { label: 'email' },
  { label: 'url' },
  { label: 'choice of ', detail: 'choice of low, normal, high' },
  { label: 'file', detail: 'one upload; limits in rules: at most 10 MB, pdf, png' },
  { label: 'files', detail: 'several; files, at most 5' },
  { label: 'files, at most 5', detail: 'at most 5 files' },
  { label: 'image', detail: 'one raster image, with thumbnails' },
  { label: 'images', detail: 'several; images, at most 5' },
  { label: 'images, at most 5', detail: 'at most 5 images' },
];

const FILE_TYPE = /^(file|image)s?\b/i;

/**
 * What may be written in the cell: in a field table's `type` column the types (with `file`,
 * `files`, `image`, `images`) and the entities a field may refer to; in its `rules` column the
 * rules, and for a file field its size limit and the kinds its bytes may be (an image's raster
 * kinds only).
 */
export function cellCompletions(cell: CellContext, entities: readonly string[]): Completion[] {
  if (!('field' in cell.row)) return [];
  if (cell.column === 'type') {
    return [
      ...TYPES.map((t) => ({ ...t, type: 'type' })),
      ...['User', ...entities].map((e) => ({ label: e, detail: 'a reference', type: 'class' })),
    ];
  }
  if (cell.column !== 'rules') return [];
  const file = FILE_TYPE.exec(cell.row.type ?? '');
  const rules: Completion[] = [{ label: 'required', type: 'keyword' }];
  if (file) {
    const image = file[1]?.toLowerCase() === 'image';
    rules.push({ label: 'at most 10 MB', detail: 'the largest file (default 25 MB)', type: 'keyword' });
    for (const kind of fileKinds(image))
      rules.push({ label: kind, detail: FILE_FORMATS[kind]?.mime, type: 'constant' });
    return rules;
  }
  return [
    ...rules,
    { label: 'unique', type: 'keyword' },
    { label: 'default ', type: 'keyword' },
    { label: 'at most 200 characters', type: 'keyword' },
    { label: 'pattern ', detail: 'a regular expression the value matches', type: 'keyword' },
  ];
}

/** The entity names of a spec's `###` headings (point 3's, and point 4's, which name the same). */
export function entityNames(text: string): string[] {
  return [...new Set([...text.matchAll(/^###\s+([A-Z][A-Za-z0-9]*)\s*$/gm)].map((m) => m[1] ?? ''))];
}

/** CodeMirror's completion source for the spec's field tables. */
export function specCompletions(context: CompletionContext): CompletionResult | null {
  const text = context.state.doc.toString();
  const cell = cellAt(text, context.pos);
  if (!cell) return null;
  const options = cellCompletions(cell, entityNames(text));
  if (options.length === 0) return null;
  const word = context.matchBefore(/[A-Za-z0-9_]*$/);
  if (!word || (word.from === word.to && !context.explicit)) return null;
  return { from: word.from, options, validFor: /^[A-Za-z0-9_]*$/ };
}
