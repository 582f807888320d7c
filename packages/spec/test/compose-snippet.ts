import { readFileSync } from 'node:fs';

/** The spec the docs' snippets are completed from: the small lending desk. */
export const DOCS_BASE = readFileSync(new URL('./fixtures/docs-base.md', import.meta.url), 'utf8');

interface Section {
  key: string;
  lines: string[];
}

function split(text: string): { head: string[]; sections: Section[] } {
  const head: string[] = [];
  const sections: Section[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('## ')) sections.push({ key: /^## (\d)/.exec(line)?.[1] ?? line, lines: [line] });
    else (sections.at(-1)?.lines ?? head).push(line);
  }
  return { head, sections };
}

function subsections(lines: string[]): { pre: string[]; subs: { name: string; lines: string[] }[] } {
  const pre: string[] = [];
  const subs: { name: string; lines: string[] }[] = [];
  for (const line of lines) {
    if (line.startsWith('### ')) subs.push({ name: line.slice(4).trim(), lines: [line] });
    else (subs.at(-1)?.lines ?? pre).push(line);
  }
  return { pre, subs };
}

/**
 * A whole spec from a docs snippet: its sections replace the base's (by number), and in points 3
 * and 4 its `###` sub-sections replace or join the base's. A snippet starting with a `#` title is
 * a whole spec already.
 */
export function composeSnippet(snippet: string, base = DOCS_BASE): string {
  if (snippet.startsWith('# ')) return snippet;
  const b = split(base);
  for (const section of split(snippet).sections) {
    const at = b.sections.findIndex((s) => s.key === section.key);
    if (at < 0) {
      b.sections.push(section);
      continue;
    }
    const into = b.sections[at] as Section;
    if (section.key === '3' || section.key === '4') {
      const ours = subsections(into.lines);
      const theirs = subsections(section.lines);
      if (theirs.subs.length > 0) {
        for (const sub of theirs.subs) {
          const i = ours.subs.findIndex((s) => s.name === sub.name);
          if (i >= 0) ours.subs[i] = sub;
          else ours.subs.push(sub);
        }
        const pre = theirs.pre.some((l) => l.trim() !== '' && !l.startsWith('## ')) ? theirs.pre : ours.pre;
        b.sections[at] = { key: section.key, lines: [...pre, ...ours.subs.flatMap((s) => [...s.lines, ''])] };
        continue;
      }
    }
    b.sections[at] = { key: section.key, lines: [...section.lines, ''] };
  }
  return [...b.head, ...b.sections.flatMap((s) => s.lines)].join('\n');
}
