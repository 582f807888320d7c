import { decimalMultipleTest, type SchemaError } from '@ninepoint/spec';
import { useQuery } from '@tanstack/react-query';
import * as equalModule from 'ajv/dist/runtime/equal.js';
import * as ucs2lengthModule from 'ajv/dist/runtime/ucs2length.js';
import { fullFormats } from 'ajv-formats/dist/formats.js';

/** Where the server serves the spec's field checks (the server's `VALIDATORS_PATH`). */
export const VALIDATORS_PATH = '/app/validators.js';

/** One payload's check, as Ajv's standalone code makes it: true or false, the errors on the function. */
export interface PayloadCheck {
  (data: unknown): boolean;
  errors?: SchemaError[] | null;
}

/** The checks by payload: `Book.create` (a create or full replace), `Book.update` (a change, a transition). */
export type Validators = Readonly<Record<string, PayloadCheck>>;

/** What the served module is: a function of the `require` its standalone code calls. */
type ValidatorsFactory = (require: (id: string) => unknown) => Validators;

/**
 * A CommonJS module's `exports.default`: bundled by Vite, `import *` gives it as `default`; run by
 * Node (the tests), `default` is the whole `module.exports`.
 */
function cjsDefault<T>(module: { default: unknown }): T {
  const inner = module.default as { default?: unknown } | T;
  return (typeof inner === 'function' ? inner : (inner as { default: T }).default) as T;
}

/**
 * The modules Ajv's standalone code names, as this build bundled them: Ajv's runtime helpers,
 * ajv-formats' formats and the spec package's decimal test (`DECIMAL_MULTIPLE_OF`'s code). The
 * server's Ajv and this build come from one install, so they are the server's own.
 */
const RUNTIME: Readonly<Record<string, unknown>> = {
  'ajv/dist/runtime/ucs2length': { default: cjsDefault(ucs2lengthModule) },
  'ajv/dist/runtime/equal': { default: cjsDefault(equalModule) },
  'ajv-formats/dist/formats': { fullFormats },
  '@ninepoint/spec': { decimalMultipleTest },
};

function runtimeRequire(id: string): unknown {
  if (!(id in RUNTIME)) throw new Error(`The field checks need "${id}", which the web app does not bundle.`);
  return RUNTIME[id];
}

/** Runs the served module's factory with the web app's runtime. */
export function validatorsOf(factory: ValidatorsFactory): Validators {
  return factory(runtimeRequire);
}

let loads = 0;

/**
 * Imports the served module. Each load after the first asks a new URL (`?load=2`): a page keeps a
 * module it imported for as long as it lives, and under `ninepoint dev` the spec (so the module)
 * changes while the page stays. The server answers every URL with a revalidated ETag, so an
 * unchanged module costs a 304.
 */
export async function loadValidators(): Promise<Validators> {
  loads += 1;
  const url = loads === 1 ? VALIDATORS_PATH : `${VALIDATORS_PATH}?load=${loads}`;
  const module = (await import(/* @vite-ignore */ url)) as { default: ValidatorsFactory };
  return validatorsOf(module.default);
}

/**
 * The spec's field checks, loaded with the model and fetched again whenever it is (the dev loop
 * invalidates every query when the spec changes). Until they have loaded, or if they cannot be,
 * a form is sent unchecked and the server's answer is shown the same way.
 */
export function useValidators() {
  return useQuery({
    queryKey: ['spec', 'validators'],
    queryFn: loadValidators,
    staleTime: Number.POSITIVE_INFINITY,
    retry: 1,
  });
}
