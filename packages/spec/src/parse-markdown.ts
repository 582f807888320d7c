import type { Root } from 'mdast';
import { gfmTableFromMarkdown } from 'mdast-util-gfm-table';
import { gfmTable } from 'micromark-extension-gfm-table';
import remarkParse from 'remark-parse';
import { type Processor, unified } from 'unified';

/**
 * GFM tables only. Specs need CommonMark plus tables; the rest of `remark-gfm` (autolinks,
 * footnotes, strikethrough, task lists) costs parse time and changes nothing the checker reads.
 */
function remarkGfmTables(this: Processor): void {
  const data = this.data() as { micromarkExtensions?: unknown[]; fromMarkdownExtensions?: unknown[] };
  data.micromarkExtensions = [...(data.micromarkExtensions ?? []), gfmTable()];
  data.fromMarkdownExtensions = [...(data.fromMarkdownExtensions ?? []), gfmTableFromMarkdown()];
}

const processor = unified().use(remarkParse).use(remarkGfmTables).freeze();

/** Parses CommonMark + GFM tables into an mdast tree with positions. */
export function parseMarkdown(source: string): Root {
  return processor.parse(source);
}
