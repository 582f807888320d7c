import { type Entity, type Field, isTextLike, type Model, USER_ENTITY } from '@ninepoint/spec';
import { useQueries } from '@tanstack/react-query';
import type { Answer } from '../api/client.ts';
import { api } from '../api/client.ts';
import { useMe } from '../api/session.ts';
import { webKind } from '../fields/field-kinds.ts';
import { recordKey } from './api.ts';
import { type ApiRecord, callFor, entityNamed, pathOf } from './calls.ts';
import { unnamedUser, useUserDirectory } from './users.ts';

/** Field names that usually name a record, best first. */
const TITLE_NAMES = ['title', 'name', 'full_name', 'display_name', 'subject', 'headline', 'label', 'description'];

/**
 * The fields that name a record of an entity, as a person would: a one-line field called title,
 * name, subject or description; else a required unique field (an employee's `person`); else the
 * first required line of text; else its references (a loan is its book and its borrower); else its
 * first text. Empty when nothing names it (it is then "Entity …1a2b").
 */
export function titleFields(entity: Entity): Field[] {
  const oneLine = entity.fields.filter((f) => webKind(f.type).names);
  for (const name of TITLE_NAMES) {
    const named = oneLine.find((f) => f.name.toLowerCase() === name);
    if (named) return [named];
  }
  const unique = entity.fields.find((f) => f.required && f.unique && (webKind(f.type).names || isReference(f)));
  if (unique) return [unique];
  const line = oneLine.find((f) => f.required && f.type.kind === 'text');
  if (line) return [line];
  const references = entity.fields.filter(isReference);
  if (references.length > 0) {
    return [...references.filter((f) => f.required), ...references.filter((f) => !f.required)].slice(0, 2);
  }
  const text = entity.fields.find((f) => isTextLike(f.type));
  return text ? [text] : [];
}

function isReference(field: Field): boolean {
  return field.type.kind === 'reference';
}

/** "Loan …3f9a": what names a record when nothing else does. */
export function fallbackTitle(entity: string, id: string | undefined): string {
  return id ? `${entity} …${id.slice(-4)}` : entity;
}

/** Names a user by id, when known. */
export type UserNamer = (id: string) => string | undefined;

/**
 * A record's title without fetching anything: its naming text, and the users it names when
 * `users` knows them; references to other records are left out. Else the fallback.
 */
export function plainTitle(entity: Entity, record: ApiRecord, users?: UserNamer): string {
  const parts: string[] = [];
  for (const f of titleFields(entity)) {
    const v = record[f.name];
    if (v === null || v === undefined || v === '') continue;
    if (f.type.kind !== 'reference') parts.push(oneLine(String(v)));
    else if (f.type.entity === USER_ENTITY && users) parts.push(users(String(v)) ?? unnamedUser(String(v)));
  }
  return parts.length > 0 ? parts.join(' · ') : fallbackTitle(entity.name, record.id);
}

/** A namer from the signed-in user and the user directory (as far as it is loaded). */
export function useUserNamer(): UserNamer {
  const me = useMe();
  const directory = useUserDirectory();
  return (id) => (me.data?.user?.id === id ? me.data.user.name : directory.data?.get(id)?.name);
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/**
 * A record's title for people: its naming fields, references resolved to the referenced record's
 * own title (one level deep) and users to their names. Undefined record: the entity's name.
 */
export function useRecordTitle(model: Model, entityName: string, record: ApiRecord | undefined): string {
  const entity = entityNamed(model, entityName);
  const fields = entity ? titleFields(entity) : [];
  const users = useUserNamer();
  const references = fields.flatMap((f) => {
    if (f.type.kind !== 'reference' || f.type.entity === USER_ENTITY) return [];
    const id = record?.[f.name];
    const call = callFor(model, f.type.entity, 'get');
    return typeof id === 'string' && call ? [{ entity: f.type.entity, id, path: pathOf(call, id) }] : [];
  });
  const loaded = useQueries({
    queries: references.map((r) => ({
      queryKey: recordKey(r.entity, r.id),
      queryFn: () => api<ApiRecord>('GET', r.path),
      staleTime: 60_000,
    })),
  });
  if (!entity || !record) return entityName;
  const parts: string[] = [];
  for (const field of fields) {
    const value = record[field.name];
    if (value === null || value === undefined || value === '') continue;
    if (field.type.kind !== 'reference') {
      parts.push(oneLine(String(value)));
      continue;
    }
    const id = String(value);
    if (field.type.entity === USER_ENTITY) {
      parts.push(users(id) ?? unnamedUser(id));
      continue;
    }
    const index = references.findIndex((r) => r.entity === (field.type as { entity: string }).entity && r.id === id);
    const answer = loaded[index]?.data as Answer<ApiRecord> | undefined;
    const target = entityNamed(model, field.type.entity);
    parts.push(answer && target ? plainTitle(target, answer.body, users) : fallbackTitle(field.type.entity, id));
  }
  return parts.length > 0 ? parts.join(' · ') : fallbackTitle(entity.name, record.id);
}
