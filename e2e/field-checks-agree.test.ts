import { readFileSync } from 'node:fs';
import { createAjv } from '@ninepoint/server';
import { checkSpec, type Field, type FieldKind, fieldValueSchema, type Model } from '@ninepoint/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkField, type Value } from '../packages/web/src/rules/field-checks.ts';

/**
 * The web app checks a form's fields before sending (`rules/field-checks.ts`) against the bounds
 * of the JSON Schema the server validates them with (`fieldValueSchema`). The browser cannot run
 * Ajv (the app's CSP refuses `new Function`), so this holds the two to one answer: on every field
 * of the examples, for values of every kind, the browser refuses exactly what the server's Ajv
 * refuses. Where the browser's check is looser by design (an address's or a moment's format, a
 * reference's id: the server's answer is shown then), it must never refuse what Ajv accepts.
 */
const EXAMPLES = ['lending-desk.md', 'expenses.md', 'helpdesk.md'];
/** Kinds whose every rule the browser checks as the server does. */
const EXACT: ReadonlySet<FieldKind> = new Set(['integer', 'decimal', 'text', 'longText', 'choice', 'boolean', 'date']);

const modelOf = (name: string): Model => {
  const { model, ok } = checkSpec(readFileSync(new URL(`../examples/${name}`, import.meta.url), 'utf8'));
  if (!ok) throw new Error(`${name} has errors`);
  return model;
};

/** Values near a field's bounds and of every type: the places where two checks part. */
const values = (field: Field): fc.Arbitrary<Value> => {
  const near = [field.min?.value, field.max?.value, field.minLength?.value, field.maxLength?.value].filter(
    (n): n is number => n !== undefined,
  );
  const choices = field.type.kind === 'choice' ? field.type.values : [];
  return fc.oneof(
    fc.integer({ min: -1_000_000, max: 1_000_000 }),
    fc.integer({ min: -100_000_000, max: 100_000_000 }).map((n) => n / 1000),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.constantFrom(
      ...near,
      ...near.map((n) => n + 1),
      ...near.map((n) => n - 1),
      ...near.map((n) => n + 0.01),
      0.1 + 0.2,
    ),
    fc.string({ maxLength: 40 }),
    fc.nat({ max: 3000 }).map((n) => 'x'.repeat(n)),
    ...(near.length > 0
      ? [
          fc
            .constantFrom(...near)
            .chain((n) => fc.constantFrom('y'.repeat(Math.max(n - 1, 0)), 'y'.repeat(n), 'y'.repeat(n + 1))),
        ]
      : []),
    fc.constantFrom(...choices, 'not a choice', '2026-02-29', '2024-02-29', '2026-13-01', '2026-05-10'),
    fc.boolean(),
  );
};

describe("the browser's field checks and the server's Ajv", () => {
  for (const name of EXAMPLES) {
    it(`give one answer on every field of ${name}`, () => {
      const model = modelOf(name);
      const ajv = createAjv();
      for (const entity of model.entities) {
        for (const field of entity.fields) {
          const validate = ajv.compile(fieldValueSchema(field));
          fc.assert(
            fc.property(values(field), (value) => {
              const server = validate(value);
              const browser = checkField(model, field, value, { creating: false }) === null;
              const where = `${entity.name}.${field.name} (${field.type.kind}) with ${JSON.stringify(value)}`;
              if (EXACT.has(field.type.kind)) expect(browser, where).toBe(server);
              else if (server) expect(browser, `${where}: refused in the browser, accepted by the server`).toBe(true);
            }),
            { numRuns: 300 },
          );
        }
      }
    });
  }
});
