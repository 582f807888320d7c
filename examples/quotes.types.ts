// Written by `ninepoint types quotes.md` from the spec: do not edit. `ninepoint dev` writes it
// again on every save, so the modules beside the spec are checked against the spec they run under.
import type { CallContext, CodeCall, CodeHook, CodeJob, HookContext, JobContext } from '@ninepoint/server';

/** Quote, as the API answers it. */
export interface Quote {
  id: string;
  state: QuoteState;
  customer: string;
  product: 'bench' | 'stool' | 'shelf';
  quantity: number;
  discount: number | null;
  total: number | null;
  priced_at: string | null;
  created_at: string;
  updated_at: string;
  created_by: string | null;
}

/** Order, as the API answers it. */
export interface Order {
  id: string;
  quote: string;
  total: number;
  created_at: string;
  updated_at: string;
  created_by: string | null;
}

export type QuoteState = 'draft' | 'sent' | 'accepted' | 'declined';
export type QuoteTransition = 'send' | 'accept' | 'decline';

/** Point 9. */
export interface Constants {
  readonly MAX_QUANTITY: number;
  readonly MAX_DISCOUNT: number;
  readonly SMALL_ORDER_DISCOUNT: number;
  readonly MIN_VOLUME: number;
  readonly TIME_ZONE: string;
}

/** Point 8 and the built-in codes: what `refuse` takes, and what a refusal answers. */
export type ErrorCode = 'NOT_FOUND' | 'UNKNOWN_CALL' | 'NOT_SIGNED_IN' | 'FORBIDDEN' | 'INVALID_PAYLOAD' | 'VALIDATION_FAILED' | 'REQUIRED' | 'INVALID_TYPE' | 'TOO_SHORT' | 'TOO_LONG' | 'OUT_OF_RANGE' | 'PATTERN_MISMATCH' | 'INVALID_CHOICE' | 'NOT_UNIQUE' | 'UNKNOWN_REFERENCE' | 'READ_ONLY_FIELD' | 'TRANSITION_NOT_ALLOWED' | 'CONFLICT' | 'PAYLOAD_TOO_LARGE' | 'RATE_LIMITED' | 'SIGN_IN_FAILED' | 'SIGN_IN_LOCKED' | 'RESET_LINK_INVALID' | 'ACCOUNT_DEACTIVATED' | 'CANNOT_DEACTIVATE_SELF' | 'LAST_MANAGER' | 'SIGN_UP_DOMAIN' | 'VERIFY_LINK_INVALID' | 'INVITATION_INVALID' | 'UNSUPPORTED_MEDIA_TYPE' | 'IMPORT_UNREADABLE' | 'IMPORT_REFUSED' | 'FILE_NOT_FOUND' | 'FILE_TOO_LARGE' | 'FILE_KIND_NOT_ALLOWED' | 'FILE_EMPTY' | 'TOO_MANY_FILES' | 'INVALID_FILE_NAME' | 'UPLOAD_INCOMPLETE' | 'TWO_FACTOR_FAILED' | 'TWO_FACTOR_EXPIRED' | 'TWO_FACTOR_REQUIRED' | 'TWO_FACTOR_ENABLED' | 'INTERNAL_ERROR' | 'OUT_OF_STOCK' | 'DISCOUNT_TOO_HIGH';

export interface Spec {
  records: { Quote: Quote; Order: Order };
  transitions: { Quote: QuoteTransition };
  constants: Constants;
  errors: ErrorCode;
}

export type EntityName = keyof Spec['records'];

/** A custom call (`code …` in point 7) on the entity named: its context is typed from the spec. */
export function defineCall<E extends EntityName>(_entity: E, run: (context: CallContext<Spec, E>) => unknown): CodeCall<Spec, E> {
  return Object.assign(run, { ninepoint: 'call' as const });
}

/** A hook (point 7's Code, `before …` or `after …`) on the entity named. */
export function defineHook<E extends EntityName>(_entity: E, run: (context: HookContext<Spec, E>) => unknown): CodeHook<Spec, E> {
  return Object.assign(run, { ninepoint: 'hook' as const });
}

/** A scheduled job's module (point 7's Code, `schedule …`). */
export function defineJob(run: (context: JobContext<Spec>) => unknown): CodeJob<Spec> {
  return Object.assign(run, { ninepoint: 'job' as const });
}
