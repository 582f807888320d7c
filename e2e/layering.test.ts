import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The architecture's direction of dependencies, checked on the sources' import statements: data
 * flows from the spec to compiled artefacts to the stores and the HTTP layer, never back.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SERVER = join(ROOT, 'packages/server/src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|tsx)$/.test(entry.name) ? [path] : [];
  });
}

/** Every module a file imports (static, type-only, re-exports and dynamic), resolved when relative. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [
    ...text.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/g),
    ...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1] as string);
  return specifiers.map((s) => (s.startsWith('.') ? resolve(dirname(file), s) : s));
}

/**
 * `file imports target` pairs where the import lands inside `forbidden` (folders under
 * packages/server/src); `tests: false` leaves out test files, which may drive a whole server.
 */
function offending(from: string, forbidden: readonly string[], { tests = true } = {}): string[] {
  const found: string[] = [];
  for (const file of sources(join(SERVER, from))) {
    if (!tests && file.endsWith('.test.ts')) continue;
    for (const target of importsOf(file)) {
      const inside = forbidden.find((folder) => target.startsWith(`${join(SERVER, folder)}/`));
      if (inside) found.push(`${relative(ROOT, file)} imports ${relative(ROOT, target)}`);
    }
  }
  return found;
}

describe('layering of the server package', () => {
  it('keeps compile/ free of the HTTP layer, the stores and the other runtime folders', () => {
    expect(offending('compile', ['http', 'store', 'live', 'dev', 'auth', 'mail'])).toEqual([]);
  });

  it('keeps each database dialect from importing the other', () => {
    expect(offending('store/sqlite', ['store/postgres'])).toEqual([]);
    expect(offending('store/postgres', ['store/sqlite'])).toEqual([]);
  });

  it('keeps the stores (their tests aside) free of the HTTP layer', () => {
    expect(offending('store', ['http', 'live', 'dev'], { tests: false })).toEqual([]);
  });
});

describe('packages', () => {
  it("never reach into another package's src/", () => {
    const found: string[] = [];
    for (const pkg of readdirSync(join(ROOT, 'packages'))) {
      const src = join(ROOT, 'packages', pkg, 'src');
      let files: string[];
      try {
        files = sources(src);
      } catch {
        continue;
      }
      for (const file of files) {
        for (const target of importsOf(file)) {
          const other = /packages\/([^/]+)\/src\//.exec(target);
          if (other && other[1] !== pkg) found.push(`${relative(ROOT, file)} imports ${relative(ROOT, target)}`);
        }
      }
    }
    expect(found).toEqual([]);
  });

  it('keep the spec package free of I/O, so that it runs in the browser', () => {
    const found = sources(join(ROOT, 'packages/spec/src'))
      .filter((file) => !file.endsWith('.test.ts'))
      .flatMap((file) =>
        importsOf(file)
          .filter((target) => target.startsWith('node:') || ['fs', 'path', 'child_process'].includes(target))
          .map((target) => `${relative(ROOT, file)} imports ${target}`),
      );
    expect(found).toEqual([]);
  });
});
