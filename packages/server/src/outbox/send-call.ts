import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { guardedLookup, isPrivateAddress, PrivateAddressError } from './address-guard.ts';

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
 * Makes one call: a 2xx answer is delivered; a redirect (not followed: the URL is the spec's), any
 * other status, a timeout, a refused or closed connection and a private address are failures
 * to try again. Never throws.
 */
export function sendCall(call: OutgoingCall): Promise<CallOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const done = (outcome: CallOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    let url: URL;
    try {
      url = new URL(call.url);
    } catch {
      return done({ ok: false, status: null, error: 'the URL is not valid' });
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!call.allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) {
      return done({ ok: false, status: null, error: new PrivateAddressError(host, host).message });
    }
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const body = Buffer.from(call.body);
    const req = request(url, {
      method: call.method,
      headers: { ...call.headers, 'content-length': String(body.length) },
      ...(call.allowPrivate ? {} : { lookup: guardedLookup as never }),
    });
    timer = setTimeout(() => {
      req.destroy();
      done({ ok: false, status: null, error: `no answer within ${call.timeoutMs} ms` });
    }, call.timeoutMs);
    req.on('error', (error) => done({ ok: false, status: null, error: error.message }));
    req.on('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) res.destroy();
      });
      const finish = () => {
        if (status >= 200 && status < 300) done({ ok: true, status, error: null });
        else if (status >= 300 && status < 400) done({ ok: false, status, error: 'a redirect, which is not followed' });
        else done({ ok: false, status, error: `answered ${status}` });
      };
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
    });
    req.end(body);
  });
}
