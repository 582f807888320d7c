import { readFileSync } from 'node:fs';
import { compileJsonSchemas, createAjv, PAYLOADS, validatorsModule } from '@ninepoint/server';
import { checkSpec, type Field, type Model, payloadFaults } from '@ninepoint/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkFields, type Value } from '../packages/web/src/rules/field-checks.ts';
import { type Validators, validatorsOf } from '../packages/web/src/rules/validators.ts';

/**
 * The web app checks a form's fields before sending (`rules/field-checks.ts`) with the validators
 * the server generates from its own JSON Schemas (`/app/validators.js`: Ajv standalone code, since
 * the app's CSP refuses Ajv's `new Function`). This holds the two to one answer: on every field
 * of the examples, in a create and an update, for values near every bound and of every type, the
 * browser refuses exactly what the server's Ajv refuses, with the same catalogue code.
 */
const EXAMPLES = ['lending-desk.md', 'expenses.md', 'helpdesk.md'];

const modelOf = (name: string): Model => {
  const { model, ok } = checkSpec(readFileSync(new URL(`../examples/${name}`, import.meta.url), 'utf8'));
  if (!ok) throw new Error(`${name} has errors`);
  return model;
};

/** The module the server serves for this model, loaded with the web app's runtime, as the page loads it. */
async function servedValidators(model: Model): Promise<Validators> {
  const url = `data:text/javascript;base64,${Buffer.from(validatorsModule(model).code).toString('base64')}`;
  return validatorsOf((await import(/* @vite-ignore */ url)).default);
}

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
      Number.MAX_SAFE_INTEGER + 2,
    ),
    fc.string({ maxLength: 40 }),
    fc.string({ maxLength: 12, unit: 'grapheme' }),
    fc.nat({ max: 3000 }).map((n) => 'x'.repeat(n)),
    ...(near.length > 0
      ? [
          fc
            .constantFrom(...near)
            .chain((n) => fc.constantFrom('y'.repeat(Math.max(n - 1, 0)), 'y'.repeat(n), 'y'.repeat(n + 1))),
        ]
      : []),
    fc.constantFrom(
      ...choices,
      'not a choice',
      '2026-02-29',
      '2024-02-29',
      '2026-13-01',
      '2026-05-10',
      '2026-05-10T09:30:00Z',
      '2026-05-10T25:30:00Z',
      'sam@example.org',
      'sam@',
      'https://example.org/a',
      'javascript:alert(1)',
      '0190a5e2-7c3b-7def-8abc-0123456789ab',
      ' ',
      '\u00a0',
      '\t\n',
    ),
    fc.boolean(),
    fc.constant(null),
  );
};

describe("the browser's field checks and the server's Ajv", () => {
  for (const name of EXAMPLES) {
    it(`give one answer on every field of ${name}, in a create and an update`, async () => {
      const model = modelOf(name);
      const browser = await servedValidators(model);
      const ajv = createAjv();
      for (const [entityName, schemas] of compileJsonSchemas(model)) {
        const entity = model.entities.find((e) => e.name === entityName);
        if (!entity) throw new Error(`no ${entityName}`);
        for (const payload of PAYLOADS) {
          const validate = ajv.compile(schemas[payload]);
          for (const field of entity.fields) {
            fc.assert(
              fc.property(values(field), (value) => {
                const body = { [field.name]: value };
                const faults = validate(body) ? null : payloadFaults(entity, validate.errors ?? [], body);
                const server =
                  faults?.kind === 'fields' ? (faults.faults.find((f) => f.field === field.name) ?? null) : null;
                const shown = checkFields(model, entity, [field], body, payload, browser)[field.name] ?? null;
                const where = `${entityName}.${payload} ${field.name} (${field.type.kind}) with ${JSON.stringify(value)}`;
                expect(shown?.code ?? null, where).toBe(server?.code ?? null);
              }),
              { numRuns: 200 },
            );
          }
        }
      }
    });
  }
});
