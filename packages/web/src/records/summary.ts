import type { Entity, Field } from '@ninepoint/spec';
import { titleFields } from './title.ts';

const KIND_PRIORITY: Record<string, number> = {
  decimal: 0,
  integer: 1,
  date: 2,
  datetime: 3,
  choice: 4,
  reference: 5,
  boolean: 6,
  text: 7,
  email: 8,
  url: 9,
};

/**
 * The few fields a card shows under its title: besides the title, the required ones first, then
 * amounts, dates, choices and references before free text (never long text), in the entity's order.
 */
export function summaryFields(entity: Entity, count = 3): Field[] {
  const title = new Set(titleFields(entity).map((f) => f.name));
  const candidates = entity.fields.filter((f) => !title.has(f.name) && f.type.kind !== 'longText');
  const ranked = [...candidates].sort(
    (a, b) =>
      Number(b.required) - Number(a.required) || (KIND_PRIORITY[a.type.kind] ?? 9) - (KIND_PRIORITY[b.type.kind] ?? 9),
  );
  const chosen = new Set(ranked.slice(0, count).map((f) => f.name));
  return candidates.filter((f) => chosen.has(f.name));
}
