import { type ErrorCode, MessageCatalogue, type MessageParams, type Model, type SpecLine } from '@ninepoint/spec';
import { type JsonSchema, SPEC_LINE_SCHEMA } from '../compile/json-schemas.ts';

/** Every error answer has this media type (RFC 9457). */
export const PROBLEM_MEDIA_TYPE = 'application/problem+json';
export const PROBLEM_CONTENT_TYPE = `${PROBLEM_MEDIA_TYPE}; charset=utf-8`;

/** A problem's `type` is this prefix and its catalogue code: an identifier, not a page to fetch. */
export const PROBLEM_TYPE_PREFIX = 'urn:ninepoint:problem:';

/** An error answer: the RFC 9457 members, the catalogue code, and the request id to quote in a report. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance: string;
  requestId?: string;
  /** For VALIDATION_FAILED, and for NOT_UNIQUE and UNKNOWN_REFERENCE: the fields at fault. */
  errors?: FieldError[];
  /** Where the spec writes what refused: the rule, guard, limit, field or permission (see `SpecLine`). */
  spec?: SpecLine;
  /**
   * For a guard's refusal (TRANSITION_NOT_ALLOWED): the record's empty fields the guard reads,
   * whose emptiness is most likely why it failed; setting them may let the step through.
   */
  empty?: string[];
}

/** One field's failure: its catalogue code and that code's message, filled in for the field. */
export interface FieldError {
  /** Null for a rule about the whole record. */
  field: string | null;
  code: string;
  message: string;
  /** The spec line of the rule or field that failed. */
  spec?: SpecLine;
}

/** What a problem says besides its code's message. */
export interface ProblemExtras {
  errors?: readonly FieldError[];
  /**
   * Said instead of the built-in message when the spec has not given the code its own: for
   * a code whose built-in message fits only its usual cause (CONFLICT for a record still in use).
   */
  detail?: string;
  /**
   * Said instead of the code's message, whoever wrote it: a message the caller has already chosen
   * from the catalogue (a guard's refusal, see the spec package's `guardRefusal`).
   */
  message?: string;
  /** The spec line of what refused; with one source among `errors`, theirs (see `oneSpecLine`). */
  spec?: SpecLine | null;
  /** See `ProblemBody.empty`. */
  empty?: readonly string[];
}

/** The one spec line the failures share, or null when they come from several lines (or none). */
export function oneSpecLine(errors: readonly FieldError[]): SpecLine | null {
  const first = errors[0]?.spec;
  if (!first) return null;
  return errors.every((e) => e.spec?.line === first.line) ? first : null;
}

/** What can fill a message's `{placeholders}`. */
export type ProblemParams = MessageParams;

/**
 * Thrown by a handler to answer with a catalogued problem. The error handler turns it into the
 * answer; nothing else about the error reaches the client.
 */
export class ProblemError extends Error {
  override name = 'ProblemError';
  readonly code: string;
  readonly params: ProblemParams;
  readonly extras: ProblemExtras;

  constructor(code: string, params: ProblemParams = {}, extras: ProblemExtras = {}, options?: ErrorOptions) {
    super(code, options);
    this.code = code;
    this.params = params;
    this.extras = extras;
  }
}

/**
 * The error catalogue of one model, compiled once: built-in codes overridden or extended by
 * point 8, and the values its messages may name (point-9 constants and runtime settings).
 */
export class ProblemCatalogue {
  readonly #messages: MessageCatalogue;

  constructor(model: Pick<Model, 'errors' | 'constants'>) {
    this.#messages = new MessageCatalogue(model);
  }

  /** The messages as the spec package fills them, for wording shared with the web app. */
  get messages(): MessageCatalogue {
    return this.#messages;
  }

  /** The entry for a code; an unknown code is a bug in the runtime and answers as INTERNAL_ERROR. */
  entry(code: string): ErrorCode {
    return this.#messages.entry(code) ?? (this.#messages.entry('INTERNAL_ERROR') as ErrorCode);
  }

  status(code: string): number {
    return this.entry(code).status;
  }

  /** A code's message with placeholders filled from `params`, then constants; unknown ones stay as written. */
  message(code: string, params: ProblemParams): string {
    return this.#messages.fill(this.entry(code).message, params);
  }

  /** The problem body for a code: its message with placeholders filled from `params`, then constants. */
  problem(
    code: string,
    params: ProblemParams,
    context: { instance: string; requestId?: string },
    extras: ProblemExtras = {},
  ): ProblemBody {
    const entry = this.entry(code);
    const known = entry.code === code;
    const spec = extras.spec ?? (extras.errors ? oneSpecLine(extras.errors) : null);
    const detail =
      known && extras.message !== undefined
        ? extras.message
        : known && extras.detail !== undefined && entry.builtin
          ? extras.detail
          : this.message(code, params);
    return {
      type: `${PROBLEM_TYPE_PREFIX}${entry.code}`,
      title: problemTitle(entry.code),
      status: entry.status,
      detail,
      code: entry.code,
      instance: context.instance,
      ...(context.requestId ? { requestId: context.requestId } : {}),
      ...(known && extras.errors && extras.errors.length > 0 ? { errors: [...extras.errors] } : {}),
      ...(spec ? { spec } : {}),
      ...(known && extras.empty && extras.empty.length > 0 ? { empty: [...extras.empty] } : {}),
    };
  }
}

/** `UNKNOWN_CALL` → `Unknown call`: the same for every occurrence of the code, as RFC 9457 asks of `title`. */
export function problemTitle(code: string): string {
  const words = code.toLowerCase().replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The schema of a problem body, for the OpenAPI document. */
export const PROBLEM_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'An error answer (RFC 9457). `code` names its entry in the error catalogue.',
  properties: {
    type: { type: 'string', format: 'uri', description: `${PROBLEM_TYPE_PREFIX} and the code.` },
    title: { type: 'string' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string' },
    code: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' },
    instance: { type: 'string', description: 'The path of the request that failed.' },
    requestId: { type: 'string', description: 'Quote it when reporting a problem: the logs carry the same id.' },
    errors: {
      type: 'array',
      description: 'The fields at fault, each with its catalogue code and message.',
      items: {
        type: 'object',
        properties: {
          field: { type: ['string', 'null'] },
          code: { type: 'string' },
          message: { type: 'string' },
          spec: SPEC_LINE_SCHEMA,
        },
        required: ['field', 'code', 'message'],
      },
    },
    spec: SPEC_LINE_SCHEMA,
    empty: {
      type: 'array',
      description:
        "For a transition's guard: the record's empty fields it reads (most likely why it failed); setting them may let the step through.",
      items: { type: 'string' },
    },
  },
  required: ['type', 'title', 'status', 'detail', 'code', 'instance'],
};
