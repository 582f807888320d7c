import { Anchor, Blockquote, Code, List, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * The spec's Markdown prose as React elements: paragraphs, headings, lists, block quotes, code,
 * emphasis and links. It builds elements from text and never injects HTML: raw HTML in the prose
 * shows as the text it is, and a link is a link only when it is http(s), mailto or a path of
 * this app.
 */
export function Prose({ markdown, headingOrder = 3 }: { markdown: string; headingOrder?: 2 | 3 | 4 }) {
  return <>{blocks(markdown).map((block, i) => renderBlock(block, i, headingOrder))}</>;
}

type Block =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'list'; ordered: boolean; items: string[] }
  | { kind: 'quote'; text: string }
  | { kind: 'code'; text: string };

/** The first paragraph of some Markdown and the rest, e.g. a summary and what follows it. */
export function splitFirstParagraph(markdown: string): [string, string] {
  const parts = markdown.trim().split(/\n\s*\n/);
  return [parts[0] ?? '', parts.slice(1).join('\n\n')];
}

/** Markdown blocks, read line by line (CommonMark's common cases; anything odd is a paragraph). */
export function blocks(markdown: string): Block[] {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const out: Block[] = [];
  let i = 0;
  const isListItem = (line: string) => /^\s{0,3}([-*+]|\d{1,9}[.)])\s+/.test(line);
  const startsBlock = (line: string) =>
    /^\s{0,3}(#{1,6}\s|>|```|~~~)/.test(line) || isListItem(line) || line.trim() === '';
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (line.trim() === '') {
      i++;
      continue;
    }
    const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      out.push({ kind: 'heading', level: heading[1]?.length ?? 1, text: heading[2] ?? '' });
      i++;
      continue;
    }
    const fence = /^\s{0,3}(```|~~~)/.exec(line);
    if (fence) {
      const close = fence[1] ?? '```';
      const code: string[] = [];
      i++;
      while (i < lines.length && !(lines[i] ?? '').trim().startsWith(close)) code.push(lines[i++] ?? '');
      i++;
      out.push({ kind: 'code', text: code.join('\n') });
      continue;
    }
    if (/^\s{0,3}>/.test(line)) {
      const quote: string[] = [];
      while (i < lines.length && /^\s{0,3}>/.test(lines[i] ?? ''))
        quote.push((lines[i++] ?? '').replace(/^\s{0,3}>\s?/, ''));
      out.push({ kind: 'quote', text: quote.join(' ') });
      continue;
    }
    if (isListItem(line)) {
      const ordered = /^\s{0,3}\d/.test(line);
      const items: string[] = [];
      while (i < lines.length) {
        const current = lines[i] ?? '';
        if (isListItem(current)) {
          items.push(current.replace(/^\s{0,3}([-*+]|\d{1,9}[.)])\s+/, ''));
        } else if (current.trim() !== '' && /^\s+/.test(current) && items.length > 0) {
          // A continuation line of the item above.
          items[items.length - 1] += ` ${current.trim()}`;
        } else if (current.trim() === '' && isListItem(lines[i + 1] ?? '')) {
          // A blank line between items keeps the list going.
        } else {
          break;
        }
        i++;
      }
      out.push({ kind: 'list', ordered, items });
      continue;
    }
    const paragraph: string[] = [line.trim()];
    i++;
    while (i < lines.length && !startsBlock(lines[i] ?? '')) paragraph.push((lines[i++] ?? '').trim());
    out.push({ kind: 'paragraph', text: paragraph.join(' ') });
  }
  return out;
}

function renderBlock(block: Block, key: number, headingOrder: 2 | 3 | 4): ReactNode {
  switch (block.kind) {
    case 'heading':
      return (
        <Title
          key={key}
          order={Math.min(6, headingOrder + Math.max(0, block.level - 3)) as 2 | 3 | 4 | 5 | 6}
          mt="md"
          mb="xs"
        >
          {inline(block.text)}
        </Title>
      );
    case 'paragraph':
      return (
        <Text key={key} mb="sm" lh={1.65}>
          {inline(block.text)}
        </Text>
      );
    case 'list':
      return (
        <List key={key} type={block.ordered ? 'ordered' : 'unordered'} spacing="xs" mb="sm" pr="md">
          {block.items.map((item, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the items of a fixed text never reorder
            <List.Item key={i}>
              <Text span lh={1.6}>
                {inline(item)}
              </Text>
            </List.Item>
          ))}
        </List>
      );
    case 'quote':
      return (
        <Blockquote key={key} mb="sm" p="sm">
          {inline(block.text)}
        </Blockquote>
      );
    case 'code':
      return (
        <Code key={key} block mb="sm">
          {block.text}
        </Code>
      );
  }
}

/** Inline Markdown: `code`, **strong**, *emphasis*, [links](…) and bare https:// addresses. */
export function inline(text: string): ReactNode[] {
  const out: ReactNode[] = [];
  const pattern =
    /(`+)([\s\S]*?[^`])\1(?!`)|\*\*([^*]+?)\*\*|__([^_]+?)__|\*([^*\s][^*]*?)\*|(?<![\p{L}\p{N}])_([^_\s][^_]*?)_(?![\p{L}\p{N}])|\[([^\]]+)\]\(([^)\s]+)(?:\s+"[^"]*")?\)|<?(https?:\/\/[^\s<>)]+[^\s<>).,;:!?'"])>?/gu;
  let last = 0;
  let key = 0;
  for (const match of text.matchAll(pattern)) {
    const index = match.index ?? 0;
    if (index > last) out.push(unescapeMarkdown(text.slice(last, index)));
    const [, , code, strong1, strong2, em1, em2, linkText, href, bare] = match;
    if (code !== undefined) out.push(<Code key={key++}>{code.trim()}</Code>);
    else if (strong1 !== undefined || strong2 !== undefined)
      out.push(<strong key={key++}>{inline(strong1 ?? strong2 ?? '')}</strong>);
    else if (em1 !== undefined || em2 !== undefined) out.push(<em key={key++}>{inline(em1 ?? em2 ?? '')}</em>);
    else if (linkText !== undefined && href !== undefined) out.push(link(href, inline(linkText), key++));
    else if (bare !== undefined) out.push(link(bare, bare, key++));
    last = index + match[0].length;
  }
  if (last < text.length) out.push(unescapeMarkdown(text.slice(last)));
  return out;
}

function link(href: string, children: ReactNode, key: number): ReactNode {
  const safe = /^(https?:|mailto:)/i.test(href) || (href.startsWith('/') && !href.startsWith('//'));
  if (!safe) return <span key={key}>{children}</span>;
  const external = !href.startsWith('/');
  return (
    <Anchor
      key={key}
      href={href}
      underline="always"
      {...(external ? { target: '_blank', rel: 'noopener noreferrer' } : {})}
    >
      {children}
    </Anchor>
  );
}

/** Markdown's backslash escapes: `\*` is a star. */
function unescapeMarkdown(text: string): string {
  return text.replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, '$1');
}
