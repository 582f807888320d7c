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

/** The folders of packages/server/src that are features: each one owns its routes, schemas, OpenAPI calls and tables. */
const FEATURES = ['people', 'records', 'live', 'views', 'outbox', 'timers', 'import', 'code', 'files', 'validators'];
/** What runs underneath the features, and what sits above them. */
const BELOW_FEATURES = ['compile', 'store', 'http', 'mail'];
const ABOVE_FEATURES = ['app', 'dev'];

/** The top folder of a path under packages/server/src (`.` for a file at its root), or null outside it. */
function folderOf(path: string): string | null {
  if (!path.startsWith(`${SERVER}/`)) return null;
  const parts = relative(SERVER, path).split('/');
  return parts.length > 1 ? (parts[0] as string) : '.';
}

/** Imports between folders of packages/server/src, test files and the package's index.ts aside. */
function folderImports(): { from: string; to: string; file: string; target: string }[] {
  return sources(SERVER)
    .filter((file) => !file.endsWith('.test.ts') && file !== join(SERVER, 'index.ts'))
    .flatMap((file) =>
      importsOf(file).flatMap((target) => {
        const from = folderOf(file);
        const to = folderOf(target);
        return from && to && from !== to ? [{ from, to, file, target }] : [];
      }),
    );
}

describe('layering of the server package', () => {
  it('keeps compile/ free of the HTTP layer, the stores, the features and the other runtime folders', () => {
    expect(offending('compile', ['http', 'store', 'mail', ...FEATURES, ...ABOVE_FEATURES])).toEqual([]);
  });

  it('keeps each database dialect from importing the other', () => {
    expect(offending('store/sqlite', ['store/postgres'])).toEqual([]);
    expect(offending('store/postgres', ['store/sqlite'])).toEqual([]);
  });

  it('keeps the stores (their tests aside) free of the HTTP layer, the features and the app', () => {
    expect(offending('store', ['http', ...FEATURES, ...ABOVE_FEATURES], { tests: false })).toEqual([]);
  });

  it("keeps http/, what every feature's calls share, free of the features and of the app that composes them", () => {
    expect(offending('http', [...FEATURES, ...ABOVE_FEATURES], { tests: false })).toEqual([]);
  });

  it('keeps each feature free of the app that composes it and of the dev server', () => {
    for (const feature of FEATURES) expect(offending(feature, ABOVE_FEATURES, { tests: false })).toEqual([]);
  });

  it("lets code outside a feature use only the feature's public face, its index.ts", () => {
    // A feature's routes, stores and schemas are its own: another feature, the app and the dev
    // server reach them through what its index.ts exports, so they can change without the others.
    const found = folderImports()
      .filter(({ to, target }) => FEATURES.includes(to) && target !== join(SERVER, to, 'index.ts'))
      .map(({ file, target }) => `${relative(ROOT, file)} imports ${relative(ROOT, target)}`);
    expect(found).toEqual([]);
  });

  it('has no import circle between two folders', () => {
    const edges = new Set(folderImports().map(({ from, to }) => `${from} -> ${to}`));
    const circles = [...edges].filter((edge) => {
      const [from, to] = edge.split(' -> ');
      return (from as string) < (to as string) && edges.has(`${to} -> ${from}`);
    });
    expect(circles).toEqual([]);
    // Every folder is below the features, a feature, or above them: nothing else may appear.
    const folders = new Set([...edges].flatMap((edge) => edge.split(' -> ')));
    const known = new Set([...BELOW_FEATURES, ...FEATURES, ...ABOVE_FEATURES]);
    expect([...folders].filter((folder) => !known.has(folder))).toEqual([]);
  });

  // Type-only imports count too: a circle of types still ties two files into one unit to read.
  it.each(
    readdirSync(join(ROOT, 'packages')).filter((pkg) => readdirSync(join(ROOT, 'packages', pkg)).includes('src')),
  )('has no import circle between files of packages/%s', (pkg) => {
    const src = join(ROOT, 'packages', pkg, 'src');
    const graph = new Map(
      sources(src)
        .filter((file) => !/\.test\.tsx?$/.test(file))
        .map((file) => [file, importsOf(file).filter((target) => target.startsWith(`${src}/`))]),
    );
    const circles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        circles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(src, f)).join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const target of graph.get(file) ?? []) visit(target, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    expect(circles).toEqual([]);
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
