import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blankModel, tempDir } from '../../test/helpers.ts';
import { createServer, type NinepointServer } from '../app/server.ts';
import { COMPRESS_MIN_BYTES, preferredCoding } from './compression.ts';

describe('choosing a coding from Accept-Encoding', () => {
  it('prefers brotli, then gzip, and honours q=0 and *', () => {
    expect(preferredCoding(undefined)).toBeNull();
    expect(preferredCoding('')).toBeNull();
    expect(preferredCoding('gzip, deflate, br')).toBe('br');
    expect(preferredCoding('gzip')).toBe('gzip');
    expect(preferredCoding('br;q=0, gzip;q=0.5')).toBe('gzip');
    expect(preferredCoding('identity')).toBeNull();
    expect(preferredCoding('*')).toBe('br');
    expect(preferredCoding('*;q=0, gzip')).toBe('gzip');
    expect(preferredCoding('GZIP ; Q=1')).toBe('gzip');
    expect(preferredCoding('br, gzip', { gz: true })).toBe('gzip');
  });
});

describe('compressed API answers', () => {
  let server: NinepointServer;
  let remove: () => void;

  beforeAll(async () => {
    const temp = tempDir();
    remove = temp.remove;
    server = await createServer({ model: blankModel(), dbPath: temp.dbPath, logger: false });
  });
  afterAll(async () => {
    await server.close();
    remove();
  });

  const get = (url: string, acceptEncoding?: string) =>
    server.app.inject({ method: 'GET', url, headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} });

  it('sends a large JSON answer with brotli or gzip as accepted, the same JSON once decoded', async () => {
    const plain = await get('/api/openapi.json');
    expect(plain.rawPayload.length).toBeGreaterThan(COMPRESS_MIN_BYTES);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('accept-encoding');

    const br = await get('/api/openapi.json', 'gzip, deflate, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('accept-encoding');
    expect(Number(br.headers['content-length'])).toBe(br.rawPayload.length);
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);

    const gz = await get('/api/openapi.json', 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(plain.body);
    expect(gz.headers['content-type']).toBe(plain.headers['content-type']);
  });

  it('sends an answer under 1 KB as it is, without Vary', async () => {
    const health = await get('/api/health', 'br, gzip');
    expect(health.rawPayload.length).toBeLessThan(COMPRESS_MIN_BYTES);
    expect(health.headers['content-encoding']).toBeUndefined();
    expect(health.headers.vary).toBeUndefined();
    expect(health.json()).toMatchObject({ status: 'ok' });
  });
});
