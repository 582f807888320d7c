import MarkdownIt from 'markdown-it';
import type Token from 'markdown-it/lib/token.mjs';

/**
 * CommonMark + GFM tables. markdown-it rather than remark: on the 200-entity benchmark spec
 * (220 KB) remark takes ~700 ms, mostly in micromark's table tokenizer, and markdown-it ~40 ms
 * (see docs/architecture.md). Inline parsing is off: the checker reads blocks and takes cell and
 * heading text from the source, so tokenising emphasis and links would be wasted (~2× the time).
 */
const markdown = new MarkdownIt('commonmark', { html: true }).enable('table').disable(['inline', 'text_join']);

/** One source line per entry, with CRLF and CR line endings normalised as markdown-it does. */
export function sourceLines(source: string): string[] {
  return source.replace(/\r\n?/g, '\n').split('\n');
}

/** Parses into markdown-it block tokens; each top-level block carries its `map` of source lines. */
export function parseMarkdown(source: string): Token[] {
  return markdown.parse(source, {});
}

export type { Token };
