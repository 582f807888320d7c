import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOCS_BASE as BASE, composeSnippet as compose } from '../test/compose-snippet.ts';
import { checkSpec } from './check.ts';

/**
 * Every Markdown example in docs/spec-format.md checks clean. A snippet that is not a whole spec
 * is completed from a small base spec, section by section. (The diagnostics' examples, in
 * docs/diagnostics.md, are checked by diagnostics-doc.test.ts.)
 */
const doc = readFileSync(new URL('../../../docs/spec-format.md', import.meta.url), 'utf8');

interface Block {
  h2: string;
  info: string;
  text: string;
}

function blocks(): Block[] {
  const out: Block[] = [];
  let h2 = '';
  let fence: { info: string; lines: string[] } | null = null;
  for (const line of doc.split('\n')) {
    if (!fence && line.startsWith('```')) fence = { info: line.slice(3).trim(), lines: [] };
    else if (fence && /^```\s*$/.test(line)) {
      out.push({ h2, info: fence.info, text: `${fence.lines.join('\n')}\n` });
      fence = null;
    } else if (fence) fence.lines.push(line);
    else if (line.startsWith('## ')) h2 = line.slice(3);
  }
  return out;
}

const codesOf = (source: string) =>
  checkSpec(source).diagnostics.map((d) => `${d.line}:${d.column} ${d.code} ${d.message}`);
const reference = blocks().filter((b) => b.info === 'markdown');
const point = (n: string) => reference.find((b) => b.h2.startsWith(`${n}.`))?.text ?? '';
const RICH = compose(point('4'), compose(point('3')));

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
});
