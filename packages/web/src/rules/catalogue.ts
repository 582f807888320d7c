import { type ErrorCode, errorCatalogue, type Model, runtimeSettings } from '@ninepoint/spec';

/** What can fill a message's `{placeholders}`. */
export type MessageParams = Readonly<Record<string, string | number | boolean>>;

/**
 * The error catalogue as the server answers with it: the built-in codes, overridden or extended by
 * point 8, and the values its messages may name (point-9 constants as written, runtime settings).
 * The browser fills messages the same way the server does, so a refusal reads the same whichever
 * side noticed it first.
 */
export class Catalogue {
  readonly #codes: ReadonlyMap<string, ErrorCode>;
  readonly #values: ReadonlyMap<string, string>;

  constructor(model: Pick<Model, 'errors' | 'constants'>) {
    this.#codes = new Map(errorCatalogue(model).map((e) => [e.code, e]));
    const settings = Object.entries(runtimeSettings(model)).map(([k, v]): [string, string] => [k, String(v)]);
    // As written (`21 days`, `5000.00`), but text without the quotes the spec may put around it.
    const constants = model.constants.map((c): [string, string] => [
      c.name,
      c.type === 'text' ? String(c.value) : c.raw,
    ]);
    this.#values = new Map([...settings, ...constants]);
  }

  /** The catalogue entry of a code, if the catalogue has it. */
  entry(code: string): ErrorCode | undefined {
    return this.#codes.get(code);
  }

  /** A code's message with placeholders filled from `params`, then constants; unknown ones stay as written. */
  message(code: string, params: MessageParams = {}): string {
    const template = this.#codes.get(code)?.message ?? code;
    return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => {
      const value = params[name] ?? this.#values.get(name);
      return value === undefined ? whole : String(value);
    });
  }
}

const catalogues = new WeakMap<Model, Catalogue>();

/** The model's catalogue, made once per model. */
export function catalogueOf(model: Model): Catalogue {
  let catalogue = catalogues.get(model);
  if (!catalogue) {
    catalogue = new Catalogue(model);
    catalogues.set(model, catalogue);
  }
  return catalogue;
}
