import { parseCookie, type SetCookie, stringifySetCookie } from 'cookie';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { LastPerConnection } from './per-connection.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's cookies by name, read before its body (people's preParsing hook, `readCookies`). */
    cookies: Readonly<Record<string, string | undefined>>;
  }
}

/** A cookie's attributes: path, expiry, `HttpOnly`, `SameSite`, `Secure`… */
export type CookieOptions = Omit<SetCookie, 'name' | 'value'>;

/**
 * Cookies without a plugin's per-answer hook: `@fastify/cookie` ran an `onSend` hook on every
 * answer to write the few that set one (sign-in, sign-out, a two-factor or single-sign-on step),
 * about 1 % of a get (issue 31). Here the `Set-Cookie` header is written when a cookie is set.
 * `request.cookies` is decorated, so every request has the same shape.
 */
export function registerCookies(app: FastifyInstance): void {
  app.decorateRequest('cookies', null as unknown as Readonly<Record<string, string | undefined>>);
}

type Cookies = Readonly<Record<string, string | undefined>>;

const NONE: Cookies = Object.freeze({});
/** Each connection's last `Cookie` header and its cookies, frozen: the calls of a connection share them. */
const parsed = new LastPerConnection<string, Cookies>((header) => Object.freeze(parseCookie(header)));

/**
 * A `Cookie` header's cookies by name; none without one. Remembered per connection when given one:
 * a browser sends the same header with every call on a keep-alive connection, so it is parsed once
 * per connection and header.
 */
export function readCookies(header: string | undefined, connection?: object | null): Cookies {
  return header === undefined ? NONE : parsed.get(connection, header);
}

/** The cookies set on an answer so far, by name, domain and path. */
const SET = new WeakMap<FastifyReply, Map<string, string>>();

/**
 * Sets a cookie on the answer (`SameSite=Lax` unless told otherwise). One set again with the same
 * name, domain and path replaces the earlier (a sign-in after an expired session was cleared):
 * a browser is never sent both.
 */
export function setCookie(reply: FastifyReply, name: string, value: string, options: CookieOptions): FastifyReply {
  let set = SET.get(reply);
  if (set === undefined) {
    set = new Map();
    SET.set(reply, set);
  }
  set.set(
    `${name};${options.domain ?? ''};${options.path ?? '/'}`,
    stringifySetCookie({ sameSite: 'lax', ...options, name, value }),
  );
  reply.removeHeader('set-cookie');
  return reply.header('set-cookie', [...set.values()]);
}

/** Tells the browser to drop a cookie: empty, expired, with the attributes it was set with. */
export function clearCookie(reply: FastifyReply, name: string, options: CookieOptions): FastifyReply {
  return setCookie(reply, name, '', { path: '/', ...options, expires: new Date(0), maxAge: 0 });
}
