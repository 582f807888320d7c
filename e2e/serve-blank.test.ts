import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const bin = new URL('../packages/cli/bin/ninepoint.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'ninepoint-e2e-'));
let child: ChildProcess;
let url = '';

beforeAll(async () => {
  child = spawn(
    process.execPath,
    [bin, 'serve', '--port', '0', '--db', join(dir, 'blank.db'), '--log-format', 'pretty'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /serving "[^"]*" at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code} before listening:\n${out}`)));
  });
});

afterAll(() => {
  child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

describe('ninepoint serve with no spec (the blank spec)', () => {
  it('answers health, the spec, an OpenAPI document with no entity paths and its reference page', async () => {
    expect((await fetch(`${url}/api/health`)).status).toBe(200);
    const spec = (await (await fetch(`${url}/api/spec`)).json()) as { points: { shown: boolean }[] };
    expect(spec.points.filter((p) => p.shown)).toEqual([]);
    const openapi = (await (await fetch(`${url}/api/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(openapi.paths).sort()).toEqual([
      '/api/auth/me',
      '/api/auth/passkeys',
      '/api/auth/passkeys/register',
      '/api/auth/passkeys/register/options',
      '/api/auth/passkeys/sign-in',
      '/api/auth/passkeys/sign-in/options',
      '/api/auth/passkeys/{id}',
      '/api/auth/password-reset',
      '/api/auth/password-reset/confirm',
      '/api/auth/sign-in',
      '/api/auth/sign-in/two-factor',
      '/api/auth/sign-out',
      '/api/auth/sign-up',
      '/api/auth/two-factor/confirm',
      '/api/auth/two-factor/disable',
      '/api/auth/two-factor/enrol',
      '/api/auth/verify-email',
      '/api/deliveries',
      '/api/deliveries/{id}/retry',
      '/api/docs',
      '/api/events',
      '/api/health',
      '/api/invitations',
      '/api/invitations/accept',
      '/api/invitations/lookup',
      '/api/invitations/{id}',
      '/api/notifications',
      '/api/notifications/read',
      '/api/notifications/{id}/read',
      '/api/openapi.json',
      '/api/spec',
      '/api/users',
      '/api/users/{id}',
      '/api/users/{id}/history',
      '/api/users/{id}/passkeys',
      '/api/users/{id}/passkeys/{passkeyId}',
      '/api/users/{id}/two-factor',
      '/api/views',
      '/api/views/{id}',
    ]);
    const docs = await fetch(`${url}/api/docs`);
    expect(docs.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await docs.text()).toContain('<title>New product — API reference</title>');
  });

  it('serves its home page, and answers every other path with a catalogued 404 problem', async () => {
    const home = await fetch(`${url}/`);
    expect(home.status).toBe(200);
    expect(home.headers.get('content-type')).toBe('text/html; charset=utf-8');
    // A browser asking for a page the app does not have gets the app, which says so, with a 404.
    const page = await fetch(`${url}/studio`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    for (const path of ['/api/books', '/api/books/1', '/studio', '/api/../etc/passwd']) {
      const response = await fetch(`${url}${path}`, { method: path === '/api/books' ? 'POST' : 'GET' });
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(((await response.json()) as { code: string }).code).toBe('UNKNOWN_CALL');
    }
  });

  it('sends the built app brotli- or gzip-compressed as the browser accepts, the same bytes once decoded', async () => {
    const home = await rawGet('/', 'identity');
    const script = /src="(\/assets\/index-[^"]+\.js)"/.exec(home.body.toString())?.[1];
    expect(script).toBeDefined();
    for (const path of ['/', script ?? '']) {
      const plain = await rawGet(path, 'identity');
      const br = await rawGet(path, 'gzip, deflate, br');
      const gz = await rawGet(path, 'gzip');
      expect([br.headers['content-encoding'], gz.headers['content-encoding']], path).toEqual(['br', 'gzip']);
      expect(br.headers.vary).toBe('accept-encoding');
      expect(brotliDecompressSync(br.body).equals(plain.body), path).toBe(true);
      expect(gunzipSync(gz.body).equals(plain.body), path).toBe(true);
      expect(br.body.length).toBeLessThan(plain.body.length);
    }
  });

  it('shuts down cleanly on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

/** A GET as bytes on the wire (fetch would decode them), with the Accept-Encoding given. */
function rawGet(path: string, acceptEncoding: string): Promise<{ headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    httpGet(`${url}${path}`, { headers: { 'accept-encoding': acceptEncoding } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    }).on('error', reject);
  });
}
