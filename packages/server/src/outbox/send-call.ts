import { isIP } from 'node:net';
import type { Agent, Dispatcher } from 'undici';
import { guardedLookup, isPrivateAddress, PrivateAddressError } from './address-guard.ts';

/**
 * The connections calls are made on (undici): kept alive between calls and pooled per receiver
 * origin, so a call is one request on an open connection, not a new connection and handshake.
 * Without `allowPrivate` every connection resolves its host through `guardedLookup`, which refuses
 * private addresses (the very addresses then connected to). `close` when the server stops.
 * undici is loaded by the first call rather than at start-up: it cost about 175 ms of CPU to
 * import, on every start of every server, most of which call no other system.
 */
export async function callConnections(allowPrivate: boolean): Promise<Agent> {
  const { Agent } = await import('undici');
  return new Agent({
    // At most a deliverer batch's calls at once to one receiver.
    connections: 32,
    keepAliveTimeout: 4_000,
    // The call's own timeout (`timeoutMs`) covers the whole answer.
    headersTimeout: 0,
    bodyTimeout: 0,
    ...(allowPrivate ? {} : { connect: { lookup: guardedLookup as never } }),
  });
}

export interface OutgoingCall {
  url: string;
  method: 'POST' | 'PUT' | 'PATCH';
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** `CALLS_ALLOW_PRIVATE=true`: loopback and private addresses may be called (tests, an internal system). */
  allowPrivate: boolean;
}

/** How one attempt ended: the receiver's status (null when none came) and why it failed, if it did. */
export interface CallOutcome {
  ok: boolean;
  status: number | null;
  error: string | null;
}

/** The most of an answer's body read (and dropped): a receiver cannot make the server buffer much. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Makes one call on `connections` (`callConnections`): a 2xx answer is delivered; a redirect (not
 * followed: the URL is the spec's), any other status, a timeout, a refused or closed connection
 * and a private address are failures to try again. Never throws.
 */
export async function sendCall(call: OutgoingCall, connections: Dispatcher): Promise<CallOutcome> {
  let url: URL;
  try {
    url = new URL(call.url);
  } catch {
    return { ok: false, status: null, error: 'the URL is not valid' };
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!call.allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) {
    return { ok: false, status: null, error: new PrivateAddressError(host, host).message };
  }
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), call.timeoutMs);
  try {
    const answer = await connections.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: call.method,
      headers: call.headers,
      body: call.body,
      signal: abort.signal,
    });
    // Read (and drop) what it says, up to a limit; past it the connection is closed.
    await answer.body.dump({ limit: MAX_ANSWER_BYTES });
    const status = answer.statusCode;
    if (status >= 200 && status < 300) return { ok: true, status, error: null };
    if (status >= 300 && status < 400) return { ok: false, status, error: 'a redirect, which is not followed' };
    return { ok: false, status, error: `answered ${status}` };
  } catch (error) {
    if (abort.signal.aborted) return { ok: false, status: null, error: `no answer within ${call.timeoutMs} ms` };
    return { ok: false, status: null, error: messageOf(error) };
  } finally {
    clearTimeout(timer);
  }
}

/** An error's message, with its cause's (undici wraps a refused connection's or a private address's). */
function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause.message : null;
  return cause && !error.message.includes(cause) ? `${error.message}: ${cause}` : error.message;
}
