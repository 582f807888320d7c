// Every test file in the repository runs in exactly one vitest project (vitest.config.ts): a file
// in no project would never run, one in two would run twice. Asks vitest itself which project each
// file is in (`vitest list --filesOnly --json`) and compares with the test files on disk.
// `node scripts/test-projects.mjs` runs the check alone; `npm test` runs it alongside the tests.
import { spawn } from 'node:child_process';
import { globSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const TEST_FILE = '**/*.{test,spec}.{ts,tsx,mts,cts,js,mjs,jsx}';
const SKIPPED = new Set(['node_modules', '.git', 'dist', 'test-results']);

/** The test files on disk, relative to the repository's root. */
export function testFilesOnDisk() {
  return globSync(TEST_FILE, {
    cwd: root,
    exclude: (entry) => SKIPPED.has(typeof entry === 'string' ? entry.split('/').at(-1) : entry.name),
  }).sort();
}

/** What vitest would run: `{ file, projectName }` for each file in each project. */
function listedByVitest() {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('npx', ['vitest', 'list', '--filesOnly', '--json'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    child.on('error', reject);
    child.on('close', (status) => {
      if (status !== 0) return reject(new Error(`vitest list exited ${status}: ${err}`));
      try {
        resolvePromise(JSON.parse(out));
      } catch (error) {
        reject(new Error(`vitest list printed no JSON (${error.message}): ${out.slice(0, 500)}`));
      }
    });
  });
}

/**
 * Resolves to `{ status, output, projects }`: 0 when each test file is in exactly one project;
 * `projects` names the projects that hold test files.
 */
export async function checkProjects() {
  let listed;
  try {
    listed = await listedByVitest();
  } catch (error) {
    return { status: 1, output: `${error.message}\n` };
  }
  const projects = new Map();
  for (const { file, projectName } of listed) {
    const path = relative(root, file);
    projects.set(path, [...(projects.get(path) ?? []), projectName]);
  }
  const problems = [];
  for (const file of testFilesOnDisk()) {
    const names = projects.get(file) ?? [];
    if (names.length === 0) problems.push(`${file} is in no vitest project: it never runs (vitest.config.ts).`);
    if (names.length > 1) problems.push(`${file} is in ${names.length} projects (${names.join(', ')}): it runs twice.`);
  }
  const counts = {};
  for (const { projectName } of listed) counts[projectName] = (counts[projectName] ?? 0) + 1;
  const summary = Object.entries(counts)
    .map(([name, n]) => `${name} ${n}`)
    .join(', ');
  const names = new Set(Object.keys(counts));
  return problems.length > 0
    ? { status: 1, output: `${problems.join('\n')}\n`, projects: names }
    : { status: 0, output: `${listed.length} test files, each in one project: ${summary}.\n`, projects: names };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { status, output } = await checkProjects();
  process.stdout.write(output);
  process.exit(status);
}
