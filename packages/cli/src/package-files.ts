import { existsSync, readdirSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folders the published `@ninepoint/cli` carries beside `dist/` (`examples/`, `docs/`, copied
 * there by `scripts/pack.mjs`), or the repository's own when the command runs from a clone. This
 * file is `src/package-files.ts` in the repo and `dist/package-files.js` installed: one folder up
 * is the package, three up the repository.
 */
function shippedFolder(name: 'examples' | 'docs'): string {
  const installed = fileURLToPath(new URL(`../${name}/`, import.meta.url));
  if (existsSync(installed)) return installed;
  return fileURLToPath(new URL(`../../../${name}/`, import.meta.url));
}

export const EXAMPLES_FOLDER = shippedFolder('examples');
export const DOCS_FOLDER = shippedFolder('docs');

/** The examples `ninepoint new --example` writes, by name: `helpdesk` for `examples/helpdesk.md`. */
export function exampleNames(): string[] {
  return readdirSync(EXAMPLES_FOLDER)
    .filter((file) => file.endsWith('.md') && file !== 'README.md' && file !== 'blank.md')
    .map((file) => file.slice(0, -3))
    .sort();
}

/**
 * A page of the docs, as a person at this terminal finds it: relative to the working folder when
 * it is inside it (`docs/sign-in.md` in a clone, `node_modules/@ninepoint/cli/docs/sign-in.md`
 * where the packages are installed), else its absolute path.
 */
export function docsPage(page: string, cwd: string = process.cwd()): string {
  const path = `${DOCS_FOLDER}${page}`;
  const near = relative(cwd, path);
  return near.startsWith('..') ? path : near;
}
