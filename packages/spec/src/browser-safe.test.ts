import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const dir = new URL('./', import.meta.url);
const sources = readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));

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
    const { build } = await import('vite');
    const warnings: string[] = [];
    const output = await build({
      configFile: false,
      logLevel: 'silent',
      build: {
        write: false,
        lib: { entry: fileURLToPath(new URL('./index.ts', dir)), formats: ['es'], fileName: 'spec' },
        rolldownOptions: { onwarn: (warning) => void warnings.push(String(warning.message)) },
      },
    });
    const chunks = (Array.isArray(output) ? output : [output]).flatMap((o) => ('output' in o ? o.output : []));
    const code = chunks.map((c) => ('code' in c ? c.code : '')).join('\n');
    expect(code.length).toBeGreaterThan(10_000);
    expect(warnings.filter((w) => /externalized for browser|node:/.test(w))).toEqual([]);
    expect(code).not.toMatch(/from\s*["'](node:)?(fs|path|module|url|process)["']/);
  });
});
