import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LENDING_DESK, modelOf, tempDir } from '../../test/helpers.ts';
import { userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';

// Found by e2e/reliability/bad-input.test.ts: a body with bytes that are not UTF-8 was stored
// with U+FFFD in their place.
describe('JSON bodies', () => {
  let server: NinepointServer;
  let authorization: string;
  let remove: () => void;

  beforeAll(async () => {
    const temp = tempDir();
    remove = temp.remove;
    server = await createServer({ model: modelOf(LENDING_DESK), dbPath: temp.dbPath, logger: false });
    ({ authorization } = await userWithToken(server));
  });
  afterAll(async () => {
    await server.close();
    remove();
  });

  const post = (title: Buffer) =>
    server.app.inject({
      method: 'POST',
      url: '/api/books',
      headers: { authorization, 'content-type': 'application/json; charset=utf-8' },
      payload: Buffer.concat([Buffer.from('{"title":"'), title, Buffer.from('","isbn":"9780441013593"}')]),
    });

  it('refuses a body that is not UTF-8 with INVALID_PAYLOAD instead of storing U+FFFD', async () => {
    for (const bytes of [[0xc3, 0x28], [0xff], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xe2, 0x82]]) {
      const response = await post(Buffer.from(bytes));
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({
        code: 'INVALID_PAYLOAD',
        detail: 'The request is not valid: the body is not valid UTF-8.',
      });
    }
  });

  it('reads UTF-8 as before: any character, a byte order mark, and the same refusals of malformed JSON', async () => {
    const created = await post(Buffer.from('Ünïcödé 😀 ﬁ', 'utf8'));
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ title: 'Ünïcödé 😀 ﬁ' });
    const withBom = await server.app.inject({
      method: 'POST',
      url: '/api/books',
      headers: { authorization, 'content-type': 'application/json' },
      payload: Buffer.from('\uFEFF{"title":"BOM","isbn":"9780441013594"}', 'utf8'),
    });
    expect(withBom.statusCode).toBe(201);
    for (const payload of ['', '{', '{"__proto__":{"a":1}}']) {
      const response = await server.app.inject({
        method: 'POST',
        url: '/api/books',
        headers: { authorization, 'content-type': 'application/json' },
        payload,
      });
      expect(response.json()).toMatchObject({ code: 'INVALID_PAYLOAD' });
    }
  });
});
