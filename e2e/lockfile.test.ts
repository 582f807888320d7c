import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The lockfile must install on every platform we support (Linux with glibc and musl, macOS,
 * Windows): npm writes only the optional platform packages it resolved, and a lockfile written
 * by an npm that skipped some leaves those platforms without a linter, bundler or hasher binary.
 */
interface LockPackage {
  version?: string;
  optionalDependencies?: Record<string, string>;
}

const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8')) as {
  packages: Record<string, LockPackage>;
};

/** Where npm would find `name` from the package at `path`: its own node_modules, then each parent's. */
function resolves(path: string, name: string): boolean {
  let base = path;
  for (;;) {
    if (lock.packages[`${base ? `${base}/` : ''}node_modules/${name}`]) return true;
    if (base === '') return false;
    const at = base.lastIndexOf('node_modules/');
    base = at <= 0 ? '' : base.slice(0, at - 1);
  }
}

describe('package-lock.json', () => {
  it('lists every optional platform package of every dependency', () => {
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        if (!resolves(path, name)) missing.push(`${path || '(root)'} → ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('has the linter for Linux (glibc and musl), macOS and Windows', () => {
    for (const platform of ['linux-x64', 'linux-x64-musl', 'linux-arm64', 'darwin-arm64', 'darwin-x64', 'win32-x64']) {
      expect(lock.packages[`node_modules/@biomejs/cli-${platform}`], platform).toBeDefined();
    }
  });
});
