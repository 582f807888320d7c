import type { RuntimeSettings } from '@ninepoint/spec';
import { ProblemError, type ProblemExtras, type ProblemParams } from '../compile/problems.ts';

/** What an error answers with: a catalogue code, its message's values, and whether it is our fault. */
export interface ClassifiedError {
  code: string;
  params: ProblemParams;
  /** Field errors and the like, from a handler's ProblemError. */
  extras?: ProblemExtras;
  /** True for a fault of the server: logged with its stack, answered with INTERNAL_ERROR only. */
  internal: boolean;
}

/** Fastify's body errors, described without echoing the body back. */
const BODY_ERRORS: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'the body is not valid JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'the body is empty but its Content-Type says JSON',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'the body must be JSON (Content-Type: application/json)',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'the body is not as long as its Content-Length says',
};

/**
 * Maps anything thrown while answering a request to a catalogue code. Only codes and fixed
 * descriptions leave this function: never a message, stack or SQL from the error itself.
 */
export function classifyError(error: unknown, settings: Pick<RuntimeSettings, 'MAX_BODY_BYTES'>): ClassifiedError {
  if (error instanceof ProblemError) {
    return { code: error.code, params: error.params, internal: false, extras: error.extras };
  }
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return { code: 'PAYLOAD_TOO_LARGE', params: { limit: settings.MAX_BODY_BYTES }, internal: false };
  }
  // The client went away while its body was being read: nobody is left to answer, and it is
  // no fault of the server's (Fastify reports it as an error with status 400).
  if (code === 'ECONNRESET' || code === 'ECONNABORTED' || code === 'ERR_STREAM_PREMATURE_CLOSE') {
    return {
      code: 'INVALID_PAYLOAD',
      params: { detail: 'the connection closed before the body arrived' },
      internal: false,
    };
  }
  const body = BODY_ERRORS[code];
  if (body) return { code: 'INVALID_PAYLOAD', params: { detail: body }, internal: false };
  if (code.startsWith('FST_ERR_CTP_') && statusOf(error) < 500) {
    return { code: 'INVALID_PAYLOAD', params: { detail: 'the body could not be read' }, internal: false };
  }
  if (code === 'FST_ERR_VALIDATION') {
    // Field-by-field answers (VALIDATION_FAILED) come with the entity calls; this is the fallback.
    const where = (error as { validationContext?: string }).validationContext ?? 'request';
    return { code: 'INVALID_PAYLOAD', params: { detail: `the ${where} does not match its schema` }, internal: false };
  }
  if (code === 'FST_ERR_BAD_URL') return { code: 'UNKNOWN_CALL', params: {}, internal: false };
  return { code: 'INTERNAL_ERROR', params: {}, internal: true };
}

function statusOf(error: unknown): number {
  const status = typeof error === 'object' && error !== null && 'statusCode' in error ? error.statusCode : 500;
  return typeof status === 'number' ? status : 500;
}
