import type { CodeKeywordDefinition, KeywordErrorDefinition } from 'ajv';
import { _, str } from 'ajv/dist/compile/codegen/index.js';
import { decimalMultipleTest } from './decimals.ts';

const error: KeywordErrorDefinition = {
  message: ({ schemaCode }) => str`must be multiple of ${schemaCode}`,
  params: ({ schemaCode }) => _`{multipleOf: ${schemaCode}}`,
};

/**
 * JSON Schema's `multipleOf` decided in decimal, as an Ajv keyword definition (replace Ajv's own:
 * `ajv.removeKeyword('multipleOf'); ajv.addKeyword(DECIMAL_MULTIPLE_OF)`). Ajv's own divides in
 * binary, so with a tolerance it lets 0.30000000000000004 pass as a multiple of 0.01, and without
 * one it refuses 1.1. A code keyword, not a compiled one, so that Ajv's standalone output can hold
 * it: the server validates with the test itself, the browser with the code that names it, so
 * both run `decimalMultipleTest`. The error is Ajv's own `multipleOf`'s.
 */
export const DECIMAL_MULTIPLE_OF: CodeKeywordDefinition = {
  keyword: 'multipleOf',
  type: 'number',
  schemaType: 'number',
  error,
  code(cxt) {
    const { gen, data, schema } = cxt;
    const divisor = schema as number;
    // How standalone code names the test: the web app loads the validators the server generates
    // (`/app/validators.js`) with a `require` that answers this package for it.
    const make = gen.scopeValue('func', {
      ref: decimalMultipleTest,
      code: _`require("@ninepoint/spec").decimalMultipleTest`,
    });
    // One test a divisor, made once per Ajv instance (the key), not on every validation.
    const test = gen.scopeValue('func', {
      key: `decimalMultipleTest(${divisor})`,
      ref: decimalMultipleTest(divisor),
      code: _`${make}(${divisor})`,
    });
    cxt.fail(_`!${test}(${data})`);
  },
};
