import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { clearCookie, readCookies, registerCookies, setCookie } from './cookies.ts';

async function answer(route: (request: FastifyRequest, reply: FastifyReply) => FastifyReply) {
  const app = Fastify();
  registerCookies(app);
  app.get('/', route);
  try {
    const response = await app.inject({ method: 'GET', url: '/' });
    const header = response.headers['set-cookie'];
    return header === undefined ? [] : Array.isArray(header) ? header : [header];
  } finally {
    await app.close();
  }
}

describe('cookies', () => {
  it('reads a Cookie header by name, and none without one', () => {
    expect(readCookies('a=1; np_session=nps_x%3D')).toEqual({ a: '1', np_session: 'nps_x=' });
    expect(readCookies(undefined)).toEqual({});
  });

  it('reads a connection’s Cookie header again only when it changes, and keeps connections apart', () => {
    const [a, b] = [{}, {}];
    const first = readCookies('np_session=one', a);
    expect(first).toEqual({ np_session: 'one' });
    expect(readCookies('np_session=one', a)).toBe(first);
    expect(readCookies('np_session=two', b)).toEqual({ np_session: 'two' });
    expect(readCookies('np_session=three; x=1', a)).toEqual({ np_session: 'three', x: '1' });
    expect(readCookies(undefined, a)).toEqual({});
    expect(readCookies('np_session=one', a)).not.toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('sends one Set-Cookie a cookie, SameSite=Lax unless told otherwise', async () => {
    const lines = await answer((_request, reply) => {
      setCookie(reply, 'a', '1', { path: '/', httpOnly: true });
      setCookie(reply, 'b', '2', { path: '/', sameSite: 'strict', secure: true });
      return reply.send('ok');
    });
    expect(lines).toEqual(['a=1; Path=/; HttpOnly; SameSite=Lax', 'b=2; Path=/; Secure; SameSite=Strict']);
  });

  it('replaces a cookie set again with the same name and path, so a browser is never sent both', async () => {
    const lines = await answer((_request, reply) => {
      clearCookie(reply, 'np_session', { path: '/', httpOnly: true });
      setCookie(reply, 'np_session', 'new', { path: '/', httpOnly: true });
      return reply.send('ok');
    });
    expect(lines).toEqual(['np_session=new; Path=/; HttpOnly; SameSite=Lax']);
  });

  it('clears a cookie with an empty value that has already expired', async () => {
    const lines = await answer((_request, reply) => {
      clearCookie(reply, 'np_session', { path: '/', httpOnly: true, sameSite: 'lax' });
      return reply.send('ok');
    });
    expect(lines).toEqual([
      'np_session=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax',
    ]);
  });

  it('sets none on an answer that sets none', async () => {
    expect(await answer((_request, reply) => reply.send('ok'))).toEqual([]);
  });
});
