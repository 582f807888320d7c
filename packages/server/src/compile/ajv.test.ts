import { decimalMultipleTest } from '@ninepoint/spec';
import standalone from 'ajv/dist/standalone/index.js';
import { describe, expect, it } from 'vitest';
import { createAjv } from './ajv.ts';

// Ajv's standalone module is CommonJS with `exports.default`; Node's ESM loader hands back module.exports.
const standaloneCode = ((standalone as unknown as { default?: typeof standalone.default }).default ??
  standalone) as unknown as typeof standalone.default;

describe('createAjv', () => {
  it('matches patterns with RE2, so a backtracking pattern cannot stall a request', () => {
    const validate = createAjv().compile({ type: 'string', pattern: '^(a+)+$' });
    // With JavaScript's engine this input takes longer than the test timeout; RE2 answers at once.
    expect(validate(`${'a'.repeat(50_000)}!`)).toBe(false);
    expect(validate('aaaa')).toBe(true);
  });

  it('neither coerces types nor drops unknown properties', () => {
    const validate = createAjv().compile({
      type: 'object',
      properties: { n: { type: 'integer' } },
      additionalProperties: false,
    });
    expect(validate({ n: '5' })).toBe(false);
    expect(validate({ n: 5, extra: 1 })).toBe(false);
  });
});

describe('the decimal multipleOf', () => {
  it('decides in decimal, and holds in standalone code as a call of the spec package', () => {
    const ajv = createAjv({ code: { source: true } });
    const validate = ajv.compile({ type: 'number', multipleOf: 0.01 });
    expect([0.3, 12.5, 4999.99].map((n) => validate(n))).toEqual([true, true, true]);
    expect(validate(0.1 + 0.2)).toBe(false);
    expect(validate.errors?.[0]).toMatchObject({ keyword: 'multipleOf', params: { multipleOf: 0.01 } });
    expect(createAjv().compile({ type: 'number', multipleOf: 0.1 })(1.1)).toBe(true);
    const code = standaloneCode(ajv, validate);
    expect(code).toContain('require("@ninepoint/spec").decimalMultipleTest');
    // The standalone function, run with that package: the same answers.
    const load = new Function('require', 'module', `${code}; return module.exports;`);
    const standalone = load((id: string) => (id === '@ninepoint/spec' ? { decimalMultipleTest } : null), {
      exports: {},
    }) as (value: unknown) => boolean;
    expect([0.3, 0.1 + 0.2, 12.345].map((n) => standalone(n))).toEqual([true, false, false]);
  });
});
