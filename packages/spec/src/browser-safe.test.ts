import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const dir = new URL('./', import.meta.url);
const sources = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter(
  (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'),
);

describe('the spec package', () => {
  it('imports no Node built-in module, so it runs in the browser', () => {
    const nodeOnly = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
    for (const file of sources) {
      const text = readFileSync(new URL(file, dir), 'utf8');
      for (const [, specifier] of text.matchAll(/from\s+'([^']+)'/g)) {
        expect(nodeOnly.has(specifier ?? ''), `${file} imports ${specifier}`).toBe(false);
      }
      expect(text, `${file} uses process`).not.toMatch(/\bprocess\./);
    }
  });

  it('bundles for the browser with no Node built-in reached through its dependencies', async () => {
    const { code } = await bundle();
    expect(code.length).toBeGreaterThan(10_000);
    expect(bundleWarnings.filter((w) => /externalized for browser|node:/.test(w))).toEqual([]);
    expect(code).not.toMatch(/from\s*["'](node:)?(fs|path|module|url|process)["']/);
  });

  it('evaluates rules and guards from that bundle, as the web app does', async () => {
    const { chunks } = await bundle();
    const dir = mkdtempSync(join(tmpdir(), 'ninepoint-spec-bundle-'));
    try {
      for (const chunk of chunks) writeFileSync(join(dir, chunk.fileName), chunk.code);
      const entry = chunks.find((c) => c.isEntry)?.fileName ?? '';
      const spec = (await import(pathToFileURL(join(dir, entry)).href)) as typeof import('./index.ts');
      const source = readFileSync(new URL('../../../examples/lending-desk.md', import.meta.url), 'utf8');
      const compiled = spec.compileExpressions(spec.checkSpec(source).model);
      const loan = compiled.entities.get('Loan');
      const due = compiled.rules.get('due after lending');
      const lend = compiled.guards.get('Loan')?.get('lend');
      if (!loan || !due || !lend) throw new Error('Loan is not compiled');
      const record = { id: 'l1', book: 'b1', lent_on: '2026-05-10', due: '2026-05-05' };
      const book = { id: 'b1', copies: 0 };
      expect(loan.evaluate(due, record, () => book, 'rule')).toBe('fails');
      expect(loan.evaluate(due, { ...record, due: '2026-05-20' }, () => book, 'rule')).toBe('holds');
      expect(loan.evaluate(lend, record, () => book, 'guard')).toBe('fails');
      const pending = () => {
        throw new spec.LoadPending();
      };
      expect(() => loan.evaluate(lend, record, pending, 'guard')).toThrow(spec.LoadPending);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const bundleWarnings: string[] = [];
let bundled: Promise<{ code: string; chunks: { fileName: string; code: string; isEntry: boolean }[] }> | undefined;

/** The package's public API bundled once by Vite for the browser, as the web app bundles it. */
function bundle() {
  bundled ??= (async () => {
    const { build } = await import('vite');
    const output = await build({
      configFile: false,
      logLevel: 'silent',
      build: {
        write: false,
        lib: { entry: fileURLToPath(new URL('./index.ts', dir)), formats: ['es'], fileName: 'spec' },
        rolldownOptions: { onwarn: (warning) => void bundleWarnings.push(String(warning.message)) },
      },
    });
    const chunks = (Array.isArray(output) ? output : [output])
      .flatMap((o) => ('output' in o ? o.output : []))
      .flatMap((c) => ('code' in c ? [{ fileName: c.fileName, code: c.code, isEntry: c.isEntry }] : []));
    return { code: chunks.map((c) => c.code).join('\n'), chunks };
  })();
  return bundled;
}
