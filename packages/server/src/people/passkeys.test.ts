import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, TEST_DATABASES } from '../../test/databases.ts';
import { DESK, modelOf } from '../../test/helpers.ts';
import { userWithToken } from '../../test/users.ts';
import { createServer, type NinepointServer } from '../app/server.ts';
import { PASSKEY_CHALLENGE_MINUTES } from './passkeys.ts';

// biome-ignore lint/suspicious/noExplicitAny: answers are JSON, read by tests that know their shape.
type Json = any;

const ORIGIN = 'http://localhost:80';

/** Just enough CBOR (RFC 8949) for an attestation object and a COSE key: maps, ints, text, bytes. */
function cbor(value: unknown): Buffer {
  const head = (major: number, n: number): Buffer => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 256) return Buffer.from([(major << 5) | 24, n]);
    const b = Buffer.alloc(3);
    b[0] = (major << 5) | 25;
    b.writeUInt16BE(n, 1);
    return b;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  if (value instanceof Map) {
    return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
  }
  throw new Error(`no CBOR for ${String(value)}`);
}

/**
 * A software authenticator: an ES256 key pair per credential, `none` attestation, user present
 * and verified, a signature counter that goes up at each use; as a platform authenticator answers.
 */
class SoftAuthenticator {
  readonly credentialId = randomBytes(16);
  readonly #key: KeyObject;
  readonly #jwk: { x: string; y: string };
  counter = 0;
  userHandle = '';

  constructor() {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.#key = privateKey;
    this.#jwk = publicKey.export({ format: 'jwk' }) as { x: string; y: string };
  }

  #authData(rpId: string, flags: number, attested: Buffer | null): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(this.counter);
    const parts: Buffer[] = [createHash('sha256').update(rpId).digest(), Buffer.from([flags]), count];
    if (attested) parts.push(attested);
    return Buffer.concat(parts);
  }

  create(options: Json, origin = ORIGIN): Json {
    this.userHandle = options.user.id;
    const clientDataJSON = Buffer.from(
      JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin, crossOrigin: false }),
    );
    const cose = cbor(
      new Map<number, unknown>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(this.#jwk.x, 'base64url')],
        [-3, Buffer.from(this.#jwk.y, 'base64url')],
      ]),
    );
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, cose]);
    // UP | UV | AT
    const authData = this.#authData(options.rp.id, 0x01 | 0x04 | 0x40, attested);
    const attestationObject = cbor(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    const id = this.credentialId.toString('base64url');
    return {
      id,
      rawId: id,
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        attestationObject: attestationObject.toString('base64url'),
        transports: ['internal'],
      },
    };
  }

  get(options: Json, origin = ORIGIN, rpId = options.rpId): Json {
    this.counter += 1;
    const clientDataJSON = Buffer.from(
      JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin, crossOrigin: false }),
    );
    const authData = this.#authData(rpId, 0x01 | 0x04, null);
    const signed = Buffer.concat([authData, createHash('sha256').update(clientDataJSON).digest()]);
    const signature = sign('sha256', signed, this.#key);
    const id = this.credentialId.toString('base64url');
    return {
      id,
      rawId: id,
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        authenticatorData: authData.toString('base64url'),
        signature: signature.toString('base64url'),
        userHandle: this.userHandle,
      },
    };
  }
}

// Both databases: the passkey tables are plain SQL through the one SqlRunner, but a counter that
// must only go up and a challenge answered once are each database's to keep.
describe.each(TEST_DATABASES)('passkeys on $name', (db) => {
  let fresh: FreshDatabase;
  let server: NinepointServer;
  let clock = Date.UTC(2026, 10, 28, 12, 0, 0);

  beforeAll(async () => {
    fresh = await db.fresh();
    server = await createServer({ model: modelOf(DESK), ...fresh.options, logger: false, now: () => clock });
  });
  afterAll(async () => {
    await server.close();
    await fresh.remove();
  });

  const call = async (method: string, url: string, body?: unknown, cookies: Record<string, string> = {}) => {
    const cookie = Object.entries(cookies)
      .filter(([, value]) => value !== '')
      .map(([name, value]) => `${name}=${value}`)
      .join('; ');
    const answer = await server.app.inject({
      method: method as 'GET',
      url,
      headers: {
        host: 'localhost:80',
        origin: ORIGIN,
        ...(cookie ? { cookie } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    const set = (name: string) => answer.cookies.find((c) => c.name === name && c.value !== '')?.value ?? '';
    return {
      status: answer.statusCode,
      body: (answer.body === '' ? {} : answer.json()) as Json,
      session: set('np_session'),
      challenge: set('np_passkey'),
    };
  };

  /** A password user, signed in, with a passkey registered: the authenticator and the session. */
  const registered = async (roles: string[], email: string) => {
    const { user } = await userWithToken(server, roles, email);
    const { session } = await call('POST', '/api/auth/sign-in', { email, password: 'correct horse battery staple' });
    expect(session).not.toBe('');
    const authenticator = new SoftAuthenticator();
    const options = await call('POST', '/api/auth/passkeys/register/options', undefined, { np_session: session });
    expect(options.status).toBe(200);
    expect(options.body.rp).toEqual({ name: 'Desk', id: 'localhost' });
    expect(options.body.authenticatorSelection.userVerification).toBe('required');
    const done = await call(
      'POST',
      '/api/auth/passkeys/register',
      { credential: authenticator.create(options.body), name: 'Laptop' },
      { np_session: session, np_passkey: options.challenge },
    );
    expect(done.status).toBe(201);
    expect(done.body.name).toBe('Laptop');
    return { user, authenticator, session };
  };

  const signInWith = async (authenticator: SoftAuthenticator, change?: (options: Json) => Json) => {
    const options = await call('POST', '/api/auth/passkeys/sign-in/options');
    expect(options.status).toBe(200);
    const credential = change ? change(options.body) : authenticator.get(options.body);
    const answer = await call('POST', '/api/auth/passkeys/sign-in', { credential }, { np_passkey: options.challenge });
    return { ...answer, options, credential };
  };

  it('registers a passkey for a signed-in user, lists it, and signs in with it alone', async () => {
    const { user, authenticator, session } = await registered(['member'], 'mia@desk.example');
    const list = await call('GET', '/api/auth/passkeys', undefined, { np_session: session });
    expect(list.body.items).toEqual([
      {
        id: authenticator.credentialId.toString('base64url'),
        name: 'Laptop',
        createdAt: expect.any(String),
        lastUsedAt: null,
      },
    ]);
    const signedIn = await signInWith(authenticator);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user.id).toBe(user.id);
    const me = await call('GET', '/api/auth/me', undefined, { np_session: signedIn.session });
    expect(me.body.user.email).toBe('mia@desk.example');
  });

  it('refuses an assertion made for another origin, and a challenge answered twice', async () => {
    const { authenticator } = await registered(['member'], 'otto@desk.example');
    const phished = await signInWith(authenticator, (options) => authenticator.get(options, 'http://evil.example'));
    expect(phished.status).toBe(401);
    expect(phished.body.code).toBe('SIGN_IN_FAILED');
    const otherRp = await signInWith(authenticator, (options) => authenticator.get(options, ORIGIN, 'evil.example'));
    expect(otherRp.status).toBe(401);

    const first = await signInWith(authenticator);
    expect(first.status).toBe(200);
    // The same answer to the same challenge again: the challenge is gone.
    const replayed = await call(
      'POST',
      '/api/auth/passkeys/sign-in',
      { credential: first.credential },
      { np_passkey: first.options.challenge },
    );
    expect(replayed.status).toBe(401);
    expect(replayed.session).toBe('');
    // Without the browser's challenge cookie nothing is signed in.
    const options = await call('POST', '/api/auth/passkeys/sign-in/options');
    const noCookie = await call('POST', '/api/auth/passkeys/sign-in', { credential: authenticator.get(options.body) });
    expect(noCookie.status).toBe(401);
  });

  it('refuses a counter that goes back (a cloned authenticator) and an expired challenge', async () => {
    const { authenticator } = await registered(['member'], 'cleo@desk.example');
    expect((await signInWith(authenticator)).status).toBe(200);
    expect((await signInWith(authenticator)).status).toBe(200);
    authenticator.counter = 0;
    expect((await signInWith(authenticator)).status).toBe(401);
    const options = await call('POST', '/api/auth/passkeys/sign-in/options');
    clock += PASSKEY_CHALLENGE_MINUTES * 60_000 + 1;
    authenticator.counter = 10;
    const late = await call(
      'POST',
      '/api/auth/passkeys/sign-in',
      { credential: authenticator.get(options.body) },
      { np_passkey: options.challenge },
    );
    expect(late.status).toBe(401);
    expect((await signInWith(authenticator)).status).toBe(200);
  });

  it('refuses a registration answering another challenge, and a passkey of a deactivated user', async () => {
    const { user, authenticator } = await registered(['member'], 'dora@desk.example');
    const { session } = await call('POST', '/api/auth/sign-in', {
      email: 'dora@desk.example',
      password: 'correct horse battery staple',
    });
    const second = new SoftAuthenticator();
    const options = await call('POST', '/api/auth/passkeys/register/options', undefined, { np_session: session });
    const forged = second.create({ ...options.body, challenge: Buffer.from('another').toString('base64url') });
    const refused = await call(
      'POST',
      '/api/auth/passkeys/register',
      { credential: forged },
      { np_session: session, np_passkey: options.challenge },
    );
    expect(refused.status).toBe(400);

    const { token: admin } = await userWithToken(server, ['admin'], 'ada@desk.example');
    const deactivate = await server.app.inject({
      method: 'PATCH',
      url: `/api/users/${user.id}`,
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ active: false }),
    });
    expect(deactivate.statusCode).toBe(200);
    expect((await signInWith(authenticator)).status).toBe(401);
  });

  it('lets those who manage people list and remove a user’s passkeys, and the user remove their own', async () => {
    const { user, authenticator, session } = await registered(['member'], 'eve@desk.example');
    const { token: admin } = await userWithToken(server, ['admin'], 'abe@desk.example');
    const asAdmin = (method: 'GET' | 'DELETE', url: string) =>
      server.app.inject({ method, url, headers: { authorization: `Bearer ${admin}` } });
    const id = authenticator.credentialId.toString('base64url');
    expect((await asAdmin('GET', `/api/users/${user.id}/passkeys`)).json().items.map((p: Json) => p.id)).toEqual([id]);
    const member = await server.app.inject({
      method: 'GET',
      url: `/api/users/${user.id}/passkeys`,
      headers: { cookie: `np_session=${session}`, host: 'localhost:80' },
    });
    expect(member.statusCode).toBe(403);
    expect((await asAdmin('DELETE', `/api/users/${user.id}/passkeys/${id}`)).statusCode).toBe(204);
    expect((await signInWith(authenticator)).status).toBe(401);
    const history = (await asAdmin('GET', `/api/users/${user.id}/history`)).json();
    expect(history.items.map((e: Json) => e.kind)).toEqual(['created', 'passkey-added', 'passkey-removed']);

    const again = await registered(['member'], 'fay@desk.example');
    const own = again.authenticator.credentialId.toString('base64url');
    expect((await call('DELETE', `/api/auth/passkeys/${own}`, undefined, { np_session: again.session })).status).toBe(
      204,
    );
    expect((await call('GET', '/api/auth/passkeys', undefined, { np_session: again.session })).body.items).toEqual([]);
  });

  it('lets a passkey sign-in through where a role requires two-factor, and holds back a password sign-in', async () => {
    const { authenticator, session } = await registered(['admin'], 'ida@desk.example');
    // Signed in by password, with no code set up: everything but enrolment is refused.
    expect((await call('GET', '/api/users', undefined, { np_session: session })).body.code).toBe('TWO_FACTOR_REQUIRED');
    const signedIn = await signInWith(authenticator);
    expect(signedIn.status).toBe(200);
    const users = await call('GET', '/api/users', undefined, { np_session: signedIn.session });
    expect(users.status).toBe(200);
    const me = await call('GET', '/api/auth/me', undefined, { np_session: signedIn.session });
    expect(me.body.twoFactor).toEqual({ enabled: false, required: false, recoveryCodesLeft: 0 });
  });

  it('binds passkeys to APP_URL when it is set: its host is the RP ID, whatever the request’s Host', async () => {
    const other = await db.fresh();
    const behindProxy = await createServer({
      model: modelOf(DESK),
      ...other.options,
      logger: false,
      appUrl: 'https://desk.example.org',
    });
    try {
      const options = await behindProxy.app.inject({
        method: 'POST',
        url: '/api/auth/passkeys/sign-in/options',
        headers: { host: 'internal:8080' },
      });
      expect(options.statusCode).toBe(200);
      expect(options.json().rpId).toBe('desk.example.org');
    } finally {
      await behindProxy.close();
      await other.remove();
    }
  });
});
