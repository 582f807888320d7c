import type {
  CelUser,
  CompiledEffect,
  EntityExpressions,
  RecordCounter,
  RecordLoader,
  RecordValue,
  RecordValues,
} from './evaluate.ts';
import { assertNever, kindFacts } from './field-kinds.ts';
import type { FieldType } from './model.ts';

/** What a transition's `sets` came to: the values to store, or the assignment that could not be worked out. */
export type EffectsOutcome =
  | { ok: true; values: Record<string, RecordValue> }
  /** `empty` when an empty field the expression needs is why. */
  | { ok: false; field: string; empty: boolean };

/**
 * Works out what a transition sets (point 4's `sets`), on the server in the transition's
 * transaction and in the browser before it is taken. Every expression sees `record` as the guard
 * saw it (the call's payload applied, still in its from-state), not the other assignments'
 * results; `now` is the write's instant and `today` its UTC day. Values come back as the API
 * stores them: a date as `YYYY-MM-DD` (the UTC day of the instant), a date-time as ISO 8601 UTC,
 * an integer as a number, a decimal rounded to its declared places, a reference as the id of
 * the record (or user) it names. Throws only a loader's `LoadPending`.
 */
export function transitionEffects(
  evaluator: EntityExpressions,
  effects: readonly CompiledEffect[],
  record: RecordValues,
  load: RecordLoader,
  user: CelUser,
  now: Date,
  count?: RecordCounter,
): EffectsOutcome {
  const values: Record<string, RecordValue> = {};
  for (const { field, expression } of effects) {
    const result = evaluator.compute(expression, record, load, user, now, count);
    if (!result.ok) return { ok: false, field: field.name, empty: result.empty };
    const value = storedValue(field.type, result.value);
    if (value === undefined) return { ok: false, field: field.name, empty: false };
    values[field.name] = value;
  }
  return { ok: true, values };
}

/** A CEL value as a field of `type` stores it; undefined when it cannot hold it. */
export function storedValue(type: FieldType, value: unknown): RecordValue | undefined {
  if (value === null || value === undefined) return null;
  const cel = kindFacts(type).cel;
  switch (cel) {
    case 'int':
      if (typeof value === 'bigint') return Number(value);
      return typeof value === 'number' && Number.isInteger(value) ? value : undefined;
    case 'double': {
      const n = typeof value === 'bigint' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isFinite(n)) return undefined;
      const scale = type.kind === 'decimal' ? type.scale : null;
      return scale === null ? n : Number(n.toFixed(scale));
    }
    case 'bool':
      return typeof value === 'boolean' ? value : undefined;
    case 'string':
      return typeof value === 'string' ? value : undefined;
    case 'timestamp': {
      if (!(value instanceof Date) || Number.isNaN(value.getTime())) return undefined;
      const iso = value.toISOString();
      return type.kind === 'date' ? iso.slice(0, 10) : iso;
    }
    case 'reference': {
      // cel-js hands a record or user back as an instance of its type, whose fields `get` reads.
      const held = value as { id?: unknown; get?: (key: string) => unknown };
      const id = typeof held.get === 'function' ? held.get('id') : held.id;
      return typeof id === 'string' && id !== '' ? id : undefined;
    }
    default:
      return assertNever(cel);
  }
}
