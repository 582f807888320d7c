import { DECIMAL_MULTIPLE_OF } from '@ninepoint/spec';
import { Ajv, type Options } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import formats from 'ajv-formats';
import { RE2JS } from 're2js';

/**
 * The Ajv instance that validates request bodies against the compiled JSON Schemas.
 *
 * Fastify's own defaults suit forms, not an API whose schemas are its contract: they coerce types
 * (`"5"` passes as 5), fill in defaults and silently drop unknown properties. Here nothing is
 * coerced or dropped, every error is reported, and `multipleOf` (a decimal's scale) is decided
 * in decimal on the number as written (`decimalMultipleTest`): Ajv's own divides in binary, so with
 * a tolerance it lets 0.30000000000000004 pass as a multiple of 0.01, and without one it refuses 1.1.
 * Field patterns run on RE2 (linear time), as the checker compiles them, so no request body can
 * make a pattern backtrack for seconds (ReDoS).
 */
export function createAjv(options: Options = {}): Ajv {
  return withNinepointKeywords(new Ajv({ ...AJV_OPTIONS, ...options }));
}

/** Adds the formats and the decimal `multipleOf` (the spec package's) to an Ajv of either draft. */
export function withNinepointKeywords<A extends Ajv | Ajv2020>(ajv: A): A {
  addFormats(ajv as Ajv);
  ajv.removeKeyword('multipleOf');
  ajv.addKeyword(DECIMAL_MULTIPLE_OF);
  return ajv;
}

// ajv-formats is CommonJS with `exports.default`; Node's ESM loader hands back module.exports.
const addFormats = ((formats as unknown as { default?: typeof formats }).default ?? formats) as unknown as (
  ajv: Ajv,
) => Ajv;

/** Ajv's `code.regExp` hook: a RegExp-like object backed by RE2 (`code` names it for standalone output). */
const re2: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => {
    const compiled = RE2JS.compile(pattern, flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0);
    // Ajv caches compiled patterns by their string form, so each must print as itself.
    return { test: (value: string) => compiled.matcher(value).find(), toString: () => `/${pattern}/${flags}` };
  },
  { code: 'RE2JS' },
);

/** The options `createAjv` starts from: strict, every error, nothing coerced, defaulted or dropped. */
export const AJV_OPTIONS: Options = {
  allErrors: true,
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  strict: true,
  code: { regExp: re2 },
};
