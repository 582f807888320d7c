import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DIAGNOSTIC_CODES } from './diagnostic-codes.ts';

const docs = readFileSync(new URL('../../../docs/diagnostics.md', import.meta.url), 'utf8');
const documented = new Set([...docs.matchAll(/^### `?([a-z-]+)`?\s*$/gm)].map((m) => m[1]));

describe('the diagnostic catalogue', () => {
  it('documents every code in docs/diagnostics.md under its own heading', () => {
    const missing = Object.keys(DIAGNOSTIC_CODES).filter((code) => !documented.has(code));
    expect(missing).toEqual([]);
  });

  it('documents no code the checker does not have', () => {
    const codes = new Set(Object.keys(DIAGNOSTIC_CODES));
    const stale = [...docs.matchAll(/^### `?([a-z-]+)`?\s*$/gm)].map((m) => m[1]).filter((c) => !codes.has(c ?? ''));
    expect(stale).toEqual([]);
  });
});
