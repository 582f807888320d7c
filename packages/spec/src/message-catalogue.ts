import { errorCatalogue } from './builtin-errors.ts';
import type { ErrorCode, Model } from './model.ts';
import { runtimeSettings } from './runtime-constants.ts';

/** What can fill a message's `{placeholders}`. */
export type MessageParams = Readonly<Record<string, string | number | boolean>>;

/**
 * The error catalogue's codes and how their messages are filled: the built-in codes, overridden or
 * extended by point 8, and the values messages may name (point-9 constants as written, runtime
 * settings). The server's answers and the browser's checks both fill messages through it, so a
 * refusal reads the same whichever side noticed it.
 */
export class MessageCatalogue {
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

  /** A template with placeholders filled from `params`, then constants; unknown ones stay as written. */
  fill(template: string, params: MessageParams = {}): string {
    return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => {
      const value = params[name] ?? this.#values.get(name);
      return value === undefined ? whole : String(value);
    });
  }

  /** A code's message, filled; an unknown code reads as itself. */
  message(code: string, params: MessageParams = {}): string {
    return this.fill(this.entry(code)?.message ?? code, params);
  }
}
