import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkSpec } from './check.ts';
import { DIAGNOSTIC_CODES } from './diagnostic-codes.ts';

/**
 * Every Markdown example in docs/spec-format.md is checked: reference examples must be clean,
 * each diagnostic's "Bad" example must give exactly its own code and its "Fixed" example none.
 * A snippet that is not a whole spec is completed from a small base spec, section by section.
 */
const doc = readFileSync(new URL('../../../docs/spec-format.md', import.meta.url), 'utf8');
const BASE = readFileSync(new URL('../test/fixtures/docs-base.md', import.meta.url), 'utf8');

interface Block {
  h2: string;
  h3: string;
  info: string;
  label: string;
  text: string;
}

function blocks(): Block[] {
  const out: Block[] = [];
  let h2 = '';
  let h3 = '';
  let fence: { info: string; lines: string[] } | null = null;
  let label = '';
  for (const line of doc.split('\n')) {
    if (!fence && line.startsWith('```')) fence = { info: line.slice(3).trim(), lines: [] };
    else if (fence && /^```\s*$/.test(line)) {
      out.push({ h2, h3, info: fence.info, label, text: `${fence.lines.join('\n')}\n` });
      fence = null;
      label = '';
    } else if (fence) fence.lines.push(line);
    else {
      if (line.startsWith('## ')) [h2, h3] = [line.slice(3), ''];
      else if (line.startsWith('### ')) h3 = line.slice(4).replaceAll('`', '').trim();
      if (line.trim() !== '') label = line.trim();
    }
  }
  return out;
}

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

/** A whole spec from a snippet: its sections replace the base's (entities and machines merge by `###`). */
function compose(snippet: string, base = BASE): string {
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

const codesOf = (source: string) =>
  checkSpec(source).diagnostics.map((d) => `${d.line}:${d.column} ${d.code} ${d.message}`);
const all = blocks().filter((b) => b.info === 'markdown');
const reference = all.filter((b) => b.h2 !== 'Diagnostic codes');
const point = (n: string) => reference.find((b) => b.h2.startsWith(`${n}.`))?.text ?? '';
const RICH = compose(point('4'), compose(point('3')));
const diagnostics = all.filter((b) => b.h2 === 'Diagnostic codes');

describe('docs/spec-format.md', () => {
  it('has a base that checks clean', () => {
    expect(codesOf(BASE)).toEqual([]);
    expect(codesOf(RICH)).toEqual([]);
  });

  it.each(reference.map((b) => [`${b.h2}: ${b.text.split('\n')[0]}`, b] as const))(
    'reference example %s checks clean',
    (_, b) => {
      expect(codesOf(compose(b.text, RICH))).toEqual([]);
    },
  );

  it.each(diagnostics.map((b) => [`${b.h3} (${b.label})`, b] as const))('example %s gives what it says', (_, b) => {
    const found = checkSpec(compose(b.text)).diagnostics.map((d) => d.code);
    if (b.label.startsWith('Bad')) expect(found).toEqual(found.length > 0 ? found.map(() => b.h3) : [b.h3]);
    else expect(found).toEqual([]);
  });

  it('shows a bad and a fixed example for most codes', () => {
    const shown = new Set(diagnostics.map((b) => b.h3));
    const wholeFileOnly = ['missing-title', 'missing-section', 'section-number-mismatch', 'spec-too-large'];
    expect(Object.keys(DIAGNOSTIC_CODES).filter((c) => !shown.has(c) && !wholeFileOnly.includes(c))).toEqual([]);
  });
});
