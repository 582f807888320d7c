import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { composeSnippet, DOCS_BASE } from '../test/compose-snippet.ts';
import { checkSpec, MAX_SPEC_BYTES } from './check.ts';
import { checkModules, type ModuleFacts } from './code-modules.ts';
import { DIAGNOSTIC_CODES, type DiagnosticCode } from './diagnostic-codes.ts';
import { DIAGNOSTIC_EXAMPLES, type DiagnosticExample } from './diagnostic-examples.ts';
import { DIAGNOSTICS_DOC, diagnosticsDoc } from './diagnostics-doc.ts';

const committed = readFileSync(new URL(`../../../${DIAGNOSTICS_DOC}`, import.meta.url), 'utf8');
const codes = Object.keys(DIAGNOSTIC_CODES) as DiagnosticCode[];

/** The spec an example stands for: a snippet completed from the base, or a spec grown past the limit. */
function specOf(example: DiagnosticExample, which: 'bad' | 'fixed'): string {
  const text = example[which];
  if (which === 'bad' && example.large) {
    const paragraph = 'Lets the staff of a small library lend books to members.\n';
    const grown = paragraph.repeat(Math.ceil(MAX_SPEC_BYTES / paragraph.length) + 1);
    return `${composeSnippet(text.replace(/^….*\n/m, ''))}\n${grown}`;
  }
  return example.whole ? text : composeSnippet(text);
}

const found = (source: string, modules?: Record<string, ModuleFacts>) => {
  const { model, diagnostics } = checkSpec(source);
  const more = modules ? checkModules(model, new Map(Object.entries(modules))) : [];
  return [...diagnostics, ...more].map((d) => d.code);
};

describe('docs/diagnostics.md', () => {
  it('is what `npm run docs:diagnostics` writes from the catalogue and its examples', () => {
    expect(committed).toEqual(diagnosticsDoc(DOCS_BASE));
  });

  it('has a base spec that checks clean', () => {
    expect(found(DOCS_BASE)).toEqual([]);
  });

  it.each(codes)('the example of %s gives that code and no other', (code) => {
    const codes = found(specOf(DIAGNOSTIC_EXAMPLES[code], 'bad'), DIAGNOSTIC_EXAMPLES[code].modules?.bad);
    expect(codes.length).toBeGreaterThan(0);
    expect(codes.filter((c) => c !== code)).toEqual([]);
  });

  it.each(codes)('the fixed example of %s checks clean', (code) => {
    expect(found(specOf(DIAGNOSTIC_EXAMPLES[code], 'fixed'), DIAGNOSTIC_EXAMPLES[code].modules?.fixed)).toEqual([]);
  });
});
