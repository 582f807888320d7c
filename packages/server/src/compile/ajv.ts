import { Ajv, type Options } from 'ajv';
import formats from 'ajv-formats';

/**
 * The Ajv instance that validates request bodies against the compiled JSON Schemas.
 *
 * Fastify's own defaults suit forms, not an API whose schemas are its contract: they coerce types
 * (`"5"` passes as 5), fill in defaults and silently drop unknown properties. Here nothing is
 * coerced or dropped, every error is reported, and fractional `multipleOf` (a decimal's scale)
 * is compared with a tolerance instead of failing on binary rounding (`1.1 / 0.01`).
 */
export function createAjv(options: Options = {}): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: false,
    useDefaults: false,
    removeAdditional: false,
    multipleOfPrecision: 9,
    strict: true,
    ...options,
  });
  addFormats(ajv);
  return ajv;
}

// ajv-formats is CommonJS with `exports.default`; Node's ESM loader hands back module.exports.
const addFormats = ((formats as unknown as { default?: typeof formats }).default ?? formats) as unknown as (
  ajv: Ajv,
) => Ajv;
