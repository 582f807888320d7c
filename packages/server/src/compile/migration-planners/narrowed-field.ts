import type { Field } from '@ninepoint/spec';
import { SERVER_FIELD_KINDS } from '../field-kinds.ts';
import { plural } from '../migration-report.ts';
import { brokenRowsAdvice, kindLabel, makeStep, verb } from './step-words.ts';
import type { ColumnPlan, TablePlan } from './table-plan.ts';

/**
 * A field whose value rules narrowed (`narrowings`) on a table with rows: safe when every stored
 * value satisfies them, else flagged.
 */
export function planNarrowedField(plan: TablePlan, c: ColumnPlan, field: Field, beforeField: Field): void {
  const narrowed = narrowings(beforeField, field);
  if (narrowed.length === 0) return;
  const { column, where } = c;
  const check = plan.context.validator(field);
  const broken = plan.scan.count((row) => {
    const value = row[column.name];
    return value != null && !check(value);
  });
  plan.later(() => {
    const what = `${plan.entity.name}.${field.name} must now be ${narrowed.join(', ')}`;
    if (broken.n === 0) return makeStep(where, 'tighten-field', 'safe', 0, `${what}; every row satisfies it.`);
    const step = makeStep(
      where,
      'tighten-field',
      'needs-flag',
      broken.n,
      `${what}, but ${plural(broken.n, 'row')} ${verb(broken.n, 'breaks', 'break')} it.`,
    );
    step.advice = brokenRowsAdvice();
    return step;
  });
}

/** How a field's value rules narrowed, in words (`at most 100 characters (was 200)`); empty when none did. */
export function narrowings(before: Field, after: Field): string[] {
  const out: string[] = [];
  const was = (text: string | null) => (text === null ? '' : ` (was ${text})`);
  const b = before.type;
  const a = after.type;
  if (a.kind === 'choice') {
    if (b.kind !== 'choice') out.push(`one of ${a.values.join(', ')}${was(kindLabel(b))}`);
    else {
      const removed = b.values.filter((v) => !a.values.includes(v));
      if (removed.length > 0) out.push(`one of ${a.values.join(', ')} (${removed.join(', ')} removed)`);
    }
  } else if (a.kind !== b.kind) {
    const demands = SERVER_FIELD_KINDS[a.kind].demands;
    if (demands !== null) out.push(`${demands}${was(kindLabel(b))}`);
  }
  if (a.kind === 'decimal' && a.scale !== null && (b.kind !== 'decimal' || b.scale === null || a.scale < b.scale)) {
    const before = b.kind === 'decimal' && b.scale !== null ? `${b.scale}` : 'any';
    out.push(`at most ${plural(a.scale, 'decimal place')} (was ${before})`);
  }
  const bound = (
    next: Field['min'],
    prev: Field['min'],
    tighter: (x: number, y: number) => boolean,
    say: (n: number) => string,
  ) => {
    if (next === null) return;
    if (prev === null) out.push(say(next.value));
    else if (tighter(next.value, prev.value)) out.push(`${say(next.value)}${was(String(prev.value))}`);
  };
  bound(
    after.min,
    before.min,
    (x, y) => x > y,
    (n) => `at least ${n}`,
  );
  bound(
    after.max,
    before.max,
    (x, y) => x < y,
    (n) => `at most ${n}`,
  );
  bound(
    after.minLength,
    before.minLength,
    (x, y) => x > y,
    (n) => `at least ${plural(n, 'character')}`,
  );
  bound(
    after.maxLength,
    before.maxLength,
    (x, y) => x < y,
    (n) => `at most ${plural(n, 'character')}`,
  );
  if (after.pattern !== null && after.pattern !== before.pattern) {
    out.push(`matching ${after.pattern}${was(before.pattern)}`);
  }
  return out;
}
