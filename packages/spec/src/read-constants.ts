import type { Constant, ConstantType } from './model.ts';
import { CONSTANT_NAME } from './names.ts';
import type { Section } from './parse-sections.ts';
import { allTables, docOf, NameSet, requiredCell, rowsOf, validName } from './read-helpers.ts';
import { RUNTIME_CONSTANTS } from './runtime-constants.ts';
import type { Scope } from './scope.ts';

const COLUMNS = [
  { key: 'name', names: ['name', 'constant', 'limit', 'setting'], required: true },
  { key: 'value', names: ['value', 'default'], required: true },
];

const DURATION_UNITS: Record<string, number> = {
  second: 1,
  minute: 60,
  hour: 3600,
  day: 86400,
  week: 604800,
};

/** Point 9: constants with typed values. Runtime settings are range-checked here. */
export function readConstants(section: Section, scope: Scope): Constant[] {
  const { bag } = scope;
  const names = new NameSet(bag, 'constant');
  const constants: Constant[] = [];
  for (const row of rowsOf(allTables(section), COLUMNS, bag, 'constants')) {
    const name = requiredCell(row, 'name', bag, 'A constant');
    const value = requiredCell(row, 'value', bag, `Constant ${name?.text ?? ''}`.trim());
    if (!name || !value) continue;
    if (!validName(name, CONSTANT_NAME, bag, 'constant', 'Constants are UPPER_SNAKE_CASE, e.g. MAX_LOANS')) continue;
    if (!names.add(name)) continue;
    const typed = readValue(value.text);
    const constant: Constant = { name: name.text, ...typed, raw: value.text, meaning: docOf(row), span: row.span };
    const setting = RUNTIME_CONSTANTS[name.text as keyof typeof RUNTIME_CONSTANTS];
    if (setting) {
      scope.usedConstants.add(name.text);
      if (typed.type !== 'integer' || (typed.value as number) < setting.min || (typed.value as number) > setting.max) {
        bag.report(
          'invalid-constant',
          value.span,
          `${name.text} sets the runtime's ${setting.meaning}; "${value.text}" is not allowed.`,
          {
            hint: `Write a whole number from ${setting.min} to ${setting.max} (default ${setting.default}).`,
          },
        );
        continue;
      }
    }
    constants.push(constant);
    scope.constants.set(constant.name, constant);
  }
  const page = scope.constants.get('PAGE_SIZE');
  const maxPage = scope.constants.get('MAX_PAGE_SIZE')?.value ?? RUNTIME_CONSTANTS.MAX_PAGE_SIZE.default;
  if (page && typeof page.value === 'number' && page.value > (maxPage as number)) {
    bag.report('invalid-constant', page.span, `PAGE_SIZE (${page.value}) is larger than MAX_PAGE_SIZE (${maxPage}).`, {
      hint: 'Lower PAGE_SIZE or raise MAX_PAGE_SIZE.',
    });
  }
  return constants;
}

/** Reads a constant's value: number, boolean, duration, or text (quoted or bare). */
export function readValue(text: string): { type: ConstantType; value: number | boolean | string } {
  if (/^-?\d+$/.test(text)) return { type: 'integer', value: Number(text) };
  if (/^-?\d+\.\d+$/.test(text)) return { type: 'decimal', value: Number(text) };
  if (/^(true|yes)$/i.test(text)) return { type: 'boolean', value: true };
  if (/^(false|no)$/i.test(text)) return { type: 'boolean', value: false };
  const duration = /^(\d+(?:\.\d+)?)\s*(second|minute|hour|day|week)s?$/i.exec(text);
  if (duration) {
    const unit = DURATION_UNITS[(duration[2] ?? '').toLowerCase()] ?? 1;
    return { type: 'duration', value: Number(duration[1]) * unit };
  }
  const quoted = /^"(.*)"$/.exec(text);
  return { type: 'text', value: quoted ? (quoted[1] ?? '') : text };
}
