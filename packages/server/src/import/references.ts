import { type Entity, type Field, USER_ENTITY } from '@ninepoint/spec';
import type { CompiledApp } from '../compile/compiled-app.ts';
import type { Actor } from '../compile/permissions.ts';
import { coversEveryRecord } from '../compile/row-access.ts';
import type { Store } from '../store/store.ts';
import { UUID } from '../store/uuidv7.ts';

/** Finds a user's id by email (the people feature's users). */
export type UserByEmail = (email: string) => Promise<string | undefined>;

/** Field names that name a record, in the order the web app picks a record's title by. */
const TITLE_NAMES = ['title', 'name', 'subject', 'label', 'summary', 'description', 'headline', 'code'];
/** Kinds whose values name a record on one line. */
const NAMING_KINDS = new Set(['text', 'email', 'url']);

/**
 * The fields of an entity that a reference cell may match, in order: its unique one-line fields,
 * then its title field (the one the web app shows for a record: named title, name, subject…, else
 * its first required one-line text), when that is not unique.
 */
export function matchingFields(entity: Entity): Field[] {
  const naming = entity.fields.filter((f) => NAMING_KINDS.has(f.type.kind));
  const unique = entity.fields.filter((f) => f.unique && (NAMING_KINDS.has(f.type.kind) || f.type.kind === 'integer'));
  const title =
    TITLE_NAMES.map((name) => naming.find((f) => f.name.toLowerCase() === name)).find((f) => f !== undefined) ??
    naming.find((f) => f.required) ??
    naming[0];
  return title && !unique.includes(title) ? [...unique, title] : unique;
}

/** A reference cell resolved: the id, or why it names no record (a message for the report). */
export type Resolved = { id: string } | { problem: string };

/**
 * Resolves the cells of reference fields into ids, for one import by one actor: an id as it is;
 * otherwise the record of the referred entity whose unique field or title holds the text (only
 * among the records the actor may read: another is no match), or, for a `User` field, the user
 * with that email. Each distinct text is looked up once per field.
 */
export class ReferenceResolver {
  readonly #compiled: CompiledApp;
  readonly #store: Store;
  readonly #actor: Actor;
  readonly #userByEmail: UserByEmail | undefined;
  readonly #cache = new Map<string, Map<string, Resolved>>();

  constructor(compiled: CompiledApp, store: Store, actor: Actor, userByEmail?: UserByEmail) {
    this.#compiled = compiled;
    this.#store = store;
    this.#actor = actor;
    this.#userByEmail = userByEmail;
  }

  async resolve(field: Field, text: string): Promise<Resolved> {
    if (field.type.kind !== 'reference') throw new Error(`${field.name} is not a reference.`);
    const trimmed = text.trim();
    if (UUID.test(trimmed.toLowerCase())) return { id: trimmed.toLowerCase() };
    let cache = this.#cache.get(field.name);
    if (!cache) {
      cache = new Map();
      this.#cache.set(field.name, cache);
    }
    const known = cache.get(trimmed);
    if (known) return known;
    const target = field.type.entity;
    const resolved = target === USER_ENTITY ? await this.#user(trimmed) : await this.#record(target, trimmed);
    cache.set(trimmed, resolved);
    return resolved;
  }

  async #user(email: string): Promise<Resolved> {
    const id = this.#userByEmail ? await this.#userByEmail(email.toLowerCase()) : undefined;
    return id ? { id } : { problem: `no user has the email "${email}" (or the id)` };
  }

  async #record(entityName: string, text: string): Promise<Resolved> {
    const entity = this.#compiled.model.entities.find((e) => e.name === entityName);
    const permissions = this.#compiled.permissions.get(entityName);
    if (!entity || !permissions) throw new Error(`No entity ${entityName}.`);
    const fields = matchingFields(entity);
    const grants = permissions.grants(this.#actor, 'read');
    const names = ['id', ...fields.map((f) => f.name)].join(', ');
    if (grants.length === 0) return { problem: `no ${entityName} you may read has the ${names} "${text}"` };
    const owner = coversEveryRecord(grants) ? null : { grants, userId: this.#actor.userId ?? '' };
    const records = this.#store.records(entityName);
    for (const field of fields) {
      const value = field.type.kind === 'integer' ? (/^[+-]?\d+$/.test(text) ? Number(text) : null) : text;
      if (value === null) continue;
      const page = await records.list({
        sort: { column: 'id', descending: false },
        filters: [{ column: field.name, value }],
        search: null,
        owner,
        after: null,
        limit: 2,
        count: false,
      });
      if (page.records.length > 1) {
        return {
          problem: `${page.next ? 'several' : 'two'} ${entityName} records have the ${field.name} "${text}": give the id instead`,
        };
      }
      const id = page.records[0]?.id;
      if (typeof id === 'string') return { id };
    }
    return { problem: `no ${entityName} has the ${names} "${text}"` };
  }
}
