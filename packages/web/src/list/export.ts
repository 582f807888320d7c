import { type Entity, type Model, USER_ENTITY } from '@ninepoint/spec';
import { api } from '../api/client.ts';
import type { Me } from '../api/session.ts';
import type { DirectoryUser } from '../api/users.ts';
import { callOf, callUrl, entityOf } from '../app/screens.ts';
import { type ApiRecord, recordTitle } from '../format.ts';
import { csvRow, UTF8_BOM } from './csv.ts';

/**
 * How an export names what records refer to: the referenced entity of each reference field (and
 * `created_by`), and a way to name a batch of ids of one entity. A name not found keeps the id.
 */
export interface ReferenceNames {
  fields: Readonly<Record<string, string>>;
  name: (entity: string, ids: readonly string[]) => Promise<ReadonlyMap<string, string>>;
}

export interface ExportOptions {
  /** The list call's path, e.g. `/api/loans`. */
  path: string;
  /** The query string of one page: the list's sort, search and filters with this cursor. */
  query: (cursor: string | null) => string;
  /** The fields written, in order; the header row names them as the API does. */
  fields: readonly string[];
  /** Records kept (a screen's filter the server cannot apply); all when not given. */
  keep?: (record: ApiRecord) => boolean;
  /** References written as names (a user's, a record's title) instead of ids. */
  names?: ReferenceNames;
  /** Called after each page with the records written so far. */
  onProgress?: (written: number) => void;
  signal?: AbortSignal;
}

/**
 * Every record of a list, page after page through the API (the largest page it gives, so few
 * calls), as a CSV file. Only the CSV text of each page is kept, never the records, and the page
 * stays responsive: each page is a call the browser waits on.
 */
export async function exportCsv(options: ExportOptions): Promise<{ blob: Blob; count: number }> {
  const parts: string[] = [UTF8_BOM, csvRow(options.fields)];
  let cursor: string | null = null;
  let count = 0;
  // Names found so far, by entity: each id is asked for once in an export.
  const known = new Map<string, Map<string, string>>();
  do {
    if (options.signal?.aborted) throw new DOMException('The export was cancelled.', 'AbortError');
    const answer: { items: ApiRecord[]; next: string | null } = (
      await api<{ items: ApiRecord[]; next: string | null }>('GET', `${options.path}?${options.query(cursor)}`)
    ).body;
    const kept = options.keep ? answer.items.filter(options.keep) : answer.items;
    if (options.names) await learnNames(options.names, kept, known);
    let chunk = '';
    for (const record of kept) {
      chunk += csvRow(namedValues(record, options.fields, options.names?.fields ?? {}, known));
      count++;
    }
    parts.push(chunk);
    options.onProgress?.(count);
    cursor = answer.next;
  } while (cursor);
  return { blob: new Blob(parts, { type: 'text/csv;charset=utf-8' }), count };
}

/** Offers a file to the user as a download. */
export function download(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // Some browsers read the file after the click returns.
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}

/** Names the references of a page that are not known yet, one call per entity (`names.name`). */
async function learnNames(
  names: ReferenceNames,
  records: readonly ApiRecord[],
  known: Map<string, Map<string, string>>,
): Promise<void> {
  const wanted = new Map<string, Set<string>>();
  for (const [field, entity] of Object.entries(names.fields)) {
    const have = known.get(entity);
    for (const record of records) {
      const id = record[field];
      if (typeof id !== 'string' || have?.has(id)) continue;
      const ids = wanted.get(entity) ?? new Set<string>();
      ids.add(id);
      wanted.set(entity, ids);
    }
  }
  await Promise.all(
    [...wanted].map(async ([entity, ids]) => {
      const found = await names.name(entity, [...ids]);
      const have = known.get(entity) ?? new Map<string, string>();
      // An id that could not be named is remembered as itself, so it is not asked for again.
      for (const id of ids) have.set(id, found.get(id) ?? id);
      known.set(entity, have);
    }),
  );
}

/**
 * One record's values for a CSV row, in the order of `fields`: a reference (`fields` → its
 * entity in `references`) as the name `known` has for it, else its id.
 */
export function namedValues(
  record: ApiRecord,
  fields: readonly string[],
  references: Readonly<Record<string, string>>,
  known: ReadonlyMap<string, ReadonlyMap<string, string>>,
): unknown[] {
  return fields.map((field) => {
    const value = record[field] ?? null;
    const entity = references[field];
    if (entity === undefined || typeof value !== 'string') return value;
    return known.get(entity)?.get(value) ?? value;
  });
}

/** The most ids one `GET /api/users?id=…` call takes, and the most records fetched at once. */
const USERS_PER_CALL = 100;
const PARALLEL_GETS = 6;

/**
 * Names for an export of an entity's records: users by name (the user directory), referenced
 * records by title (their get call, when the user may read them); references the user cannot
 * read keep their ids.
 */
export function referenceNames(model: Model, me: Me, entity: Entity): ReferenceNames {
  const fields: Record<string, string> = { created_by: USER_ENTITY };
  for (const field of entity.fields) if (field.type.kind === 'reference') fields[field.name] = field.type.entity;
  return {
    fields,
    async name(target, ids) {
      const names = new Map<string, string>();
      if (target === USER_ENTITY) {
        for (let i = 0; i < ids.length; i += USERS_PER_CALL) {
          const search = ids
            .slice(i, i + USERS_PER_CALL)
            .map((id) => `id=${encodeURIComponent(id.toLowerCase())}`)
            .join('&');
          const { items } = (await api<{ items: DirectoryUser[] }>('GET', `/api/users?${search}`)).body;
          for (const user of items) names.set(user.id, user.name);
        }
        return names;
      }
      const call = callOf(model, target, 'get');
      const referenced = entityOf(model, target);
      const access = me.access[target];
      if (!call || !referenced || !access || access.read === 'none') return names;
      for (let i = 0; i < ids.length; i += PARALLEL_GETS) {
        await Promise.all(
          ids.slice(i, i + PARALLEL_GETS).map(async (id) => {
            try {
              names.set(id, recordTitle(referenced, (await api<ApiRecord>('GET', callUrl(call, id))).body));
            } catch {
              // Gone, or not this user's to read: the id stays.
            }
          }),
        );
      }
      return names;
    },
  };
}
