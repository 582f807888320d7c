import { createHash } from 'node:crypto';
import { realpath, stat } from 'node:fs/promises';
import { registerHooks } from 'node:module';
import { join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type CodeUse, codeNeeds, type Model, type ModuleFacts } from '@ninepoint/spec';

/** The modules a spec names, loaded: what `check` judges, and the exports the runtime calls. */
export interface LoadedModules {
  /** By file as the spec names it (`code/pricing.ts`). */
  facts: Map<string, ModuleFacts>;
  /** By file: the module's namespace, for the files that loaded. */
  namespaces: Map<string, Readonly<Record<string, unknown>>>;
}

/**
 * Loads each module the model names from `folder` (the spec's), with Node's own TypeScript (type
 * stripping: no bundler, no build). `version` (with the named files' times and sizes) is added to
 * each module's URL so that a changed file is loaded anew (`ninepoint dev` after a save): Node
 * caches a module by its URL. The modules they import from the spec's folder get the same query
 * (`versionGraph`), so a save of a helper is seen too, and a helper two modules import is one
 * module. A module that is not there, resolves outside the folder (a symbolic link), or throws
 * while loading is a fact, never an exception. Each loaded version stays in Node's module cache
 * until the process ends: a copy of the graph per reload in `ninepoint dev` (16 KiB for two small
 * modules and a helper, over 200 reloads); none in `serve`, which loads once.
 */
export async function loadModules(model: Model, folder: string, version?: string): Promise<LoadedModules> {
  const facts = new Map<string, ModuleFacts>();
  const namespaces = new Map<string, Readonly<Record<string, unknown>>>();
  const files = [...new Set(codeNeeds(model).map((n) => n.file))];
  if (files.length === 0) return { facts, namespaces };
  const root = await realpath(folder);
  versionGraph(root);
  const found: { file: string; path: string }[] = [];
  const stamps = createHash('sha256').update(version ?? '0');
  for (const file of files) {
    let path: string;
    try {
      path = await realpath(join(root, file));
    } catch {
      facts.set(file, { found: false, why: `is not there (looked in ${root})` });
      continue;
    }
    if (!path.startsWith(root + sep)) {
      facts.set(file, { found: false, why: "is a link to a file outside the spec's folder" });
      continue;
    }
    const { mtimeMs, size } = await stat(path);
    stamps.update(`\0${path}\0${Math.trunc(mtimeMs)}\0${size}`);
    found.push({ file, path });
  }
  // Node caches a module by its URL: a named file changed since (its time and size) is a new URL.
  // One version for the whole load, so that what two modules import (or one module importing
  // another) is one module, as Node would load it, rather than a copy for each.
  const key = `${version ?? 0}.${stamps.digest('base64url').slice(0, 16)}`;
  for (const { file, path } of found) {
    const url = pathToFileURL(path);
    url.searchParams.set(VERSION, key);
    try {
      const namespace = (await import(url.href)) as Record<string, unknown>;
      namespaces.set(file, namespace);
      facts.set(file, { found: true, exports: exportKinds(namespace) });
    } catch (error) {
      const message = error instanceof Error ? error.message.split('\n', 1)[0] : String(error);
      facts.set(file, { found: false, why: `fails to load: ${message}` });
    }
  }
  return { facts, namespaces };
}

/** What each export is for: marked by `defineCall`/`defineHook`/`defineJob`, a plain function, or other. */
function exportKinds(namespace: Record<string, unknown>): Record<string, CodeUse | 'function' | 'other'> {
  const kinds: Record<string, CodeUse | 'function' | 'other'> = {};
  for (const [name, value] of Object.entries(namespace)) {
    if (typeof value !== 'function') {
      kinds[name] = 'other';
      continue;
    }
    const mark = (value as { ninepoint?: unknown }).ninepoint;
    kinds[name] = mark === 'call' || mark === 'hook' || mark === 'job' ? mark : 'function';
  }
  return kinds;
}

/** The function a module exports under `name`, or null. */
export function exportOf(loaded: LoadedModules, file: string, name: string): ((context: never) => unknown) | null {
  const value = loaded.namespaces.get(file)?.[name];
  return typeof value === 'function' ? (value as (context: never) => unknown) : null;
}

/** The query parameter a module's version is in, on its URL and on those of the modules it imports. */
const VERSION = 'v';
/** The spec folders whose module graphs are versioned (each with a trailing separator). */
const versioned = new Set<string>();
let hooked = false;

/**
 * Gives a module's version to what it imports from the same spec folder (a resolve hook of Node's
 * loader): `./tariff.ts` imported by `pricing.ts?v=3…` is `tariff.ts?v=3…`, so each
 * reload loads the whole graph under the folder anew, not only the file the spec names. What it
 * imports from elsewhere (packages, Node's own) keeps its one URL.
 */
function versionGraph(root: string): void {
  versioned.add(root + sep);
  if (hooked) return;
  hooked = true;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      const parent = context.parentURL;
      // Every import and require of the process passes here: most parents carry no query at all.
      if (!parent?.startsWith('file:') || !parent.includes('?') || !resolved.url.startsWith('file:')) return resolved;
      const version = new URL(parent).searchParams.get(VERSION);
      if (version === null) return resolved;
      const child = new URL(resolved.url);
      if (child.searchParams.has(VERSION)) return resolved;
      const path = fileURLToPath(child);
      if (path.includes(`${sep}node_modules${sep}`)) return resolved;
      if (![...versioned].some((r) => path.startsWith(r))) return resolved;
      child.searchParams.set(VERSION, version);
      return { ...resolved, url: child.href };
    },
  });
}
