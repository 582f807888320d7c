import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname } from 'node:path';

/** Editors write in bursts (truncate, write, rename); a save is one change once it has been quiet this long. */
const SETTLE_MS = 80;

/**
 * Calls `onChange` after each save of the file. The folder is watched rather than the file, since
 * many editors save by writing a new file and renaming it over the old one, which a watch on the
 * old file would miss. Answers a function that stops watching.
 */
export function watchSpec(path: string, onChange: () => void): () => void {
  const name = basename(path);
  let timer: NodeJS.Timeout | null = null;
  const watcher: FSWatcher = watch(dirname(path), (_event, file) => {
    if (file !== null && file !== name) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      onChange();
    }, SETTLE_MS);
  });
  watcher.on('error', () => {
    // The folder went away; there is nothing left to watch, and the app keeps serving.
  });
  return () => {
    if (timer) clearTimeout(timer);
    watcher.close();
  };
}

/**
 * Calls `onChange` after each save of a TypeScript module in the spec's folder or under it
 * (`ninepoint dev` loads them again), but not of `ignored` (the types file it writes itself).
 */
export function watchCode(folder: string, ignored: string, onChange: () => void): () => void {
  let timer: NodeJS.Timeout | null = null;
  let watcher: FSWatcher;
  try {
    watcher = watch(folder, { recursive: true }, (_event, file) => {
      if (file === null || !/\.m?ts$/.test(file) || file === ignored || file.includes('node_modules')) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = null;
        onChange();
      }, SETTLE_MS);
    });
  } catch {
    // A folder that cannot be watched: modules are loaded again with the next applied spec.
    return () => {};
  }
  watcher.on('error', () => {
    // The folder went away; the app keeps serving.
  });
  return () => {
    if (timer) clearTimeout(timer);
    watcher.close();
  };
}
