import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Model } from '@ninepoint/spec';
import fastifyPlugin from 'fastify-plugin';
import { preferredCoding } from '../http/compression.ts';
import { type ValidatorsModule, validatorsModule } from './validators-code.ts';

/** Where the web app imports its field checks from: a path of the app's own origin, as its CSP asks. */
export const VALIDATORS_PATH = '/app/validators.js';

export interface ValidatorsOptions {
  /** The checked model whose JSON Schemas the server validates requests with. */
  model: Pick<Model, 'entities' | 'machines' | 'permissions'>;
}

interface Served extends ValidatorsModule {
  br: Buffer;
  gz: Buffer;
}

/**
 * `GET /app/validators.js`: the spec's field checks as Ajv standalone code (`validatorsModule`),
 * for the web app to run before it sends a form. It says no more than `GET /api/spec`, which
 * every visitor may read (the schemas are the model's fields and rules), so it is as open.
 *
 * Made once per app, on the first request (generating it takes a few hundred milliseconds on a
 * loaded machine: every server a test starts would pay that at start-up), then kept with its
 * brotli and gzip forms; never per request. The path is stable and the answer changes with the
 * spec (`ninepoint dev` swaps the app), so it is sent `no-cache` with a strong ETag of its
 * content: a browser asks again, and gets 304 while the spec is the same.
 */
export const validators = fastifyPlugin<ValidatorsOptions>(
  (app, { model }, done) => {
    let served: Served | null = null;
    const made = (): Served => {
      if (served) return served;
      const module = validatorsModule(model);
      served = {
        ...module,
        br: brotliCompressSync(module.code, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }),
        gz: gzipSync(module.code, { level: 9 }),
      };
      return served;
    };
    app.get(VALIDATORS_PATH, (request, reply) => {
      const module = made();
      reply.header('cache-control', 'no-cache').header('etag', module.etag).header('vary', 'accept-encoding');
      if (request.headers['if-none-match'] === module.etag) return reply.code(304).send();
      reply.type('text/javascript; charset=utf-8');
      const coding = preferredCoding(request.headers['accept-encoding']);
      if (coding === 'br') return reply.header('content-encoding', 'br').send(module.br);
      if (coding === 'gzip') return reply.header('content-encoding', 'gzip').send(module.gz);
      return reply.send(module.code);
    });
    done();
  },
  { name: 'ninepoint-validators', fastify: '5.x' },
);
