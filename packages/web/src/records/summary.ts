import type { Entity, Field } from '@ninepoint/spec';
import { webKind } from '../fields/field-kinds.ts';
import { titleFields } from './title.ts';

/**
 * The few fields a card shows under its title: besides the title, the required ones first, then
 * amounts, dates, choices and references before free text (never long text), in the entity's order.
 */
export function summaryFields(entity: Entity, count = 3): Field[] {
  const title = new Set(titleFields(entity).map((f) => f.name));
  const candidates = entity.fields.filter((f) => !title.has(f.name) && webKind(f.type).brief);
  const ranked = [...candidates].sort(
    (a, b) => Number(b.required) - Number(a.required) || webKind(a.type).cardRank - webKind(b.type).cardRank,
  );
  const chosen = new Set(ranked.slice(0, count).map((f) => f.name));
  return candidates.filter((f) => chosen.has(f.name));
}
