/**
 * Writes docs/diagnostics.md from the spec package's diagnostic catalogue and its examples
 * (`npm run docs:diagnostics`). `packages/spec/src/diagnostics-doc.test.ts` fails when the
 * committed file differs from what this writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { DIAGNOSTICS_DOC, diagnosticsDoc } from '../packages/spec/src/diagnostics-doc.ts';

const root = new URL('../', import.meta.url);
const base = readFileSync(new URL('packages/spec/test/fixtures/docs-base.md', root), 'utf8');
writeFileSync(new URL(DIAGNOSTICS_DOC, root), diagnosticsDoc(base));
console.log(`wrote ${DIAGNOSTICS_DOC}`);
