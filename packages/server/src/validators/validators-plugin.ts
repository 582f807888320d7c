import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Model } from '@ninepoint/spec';
import fastifyPlugin from 'fastify-plugin';
import { codedEtag, etagMatches, preferredCoding } from '../http/compression.ts';
import { validatorsModule } from './validators-code.ts';

/** Where the web app imports its field checks from: a path of the app's own origin, as its CSP asks. */
export const VALIDATORS_PATH = '/app/validators.js';

export interface ValidatorsOptions {
  /** The checked model whose JSON Schemas the server validates requests with. */
  model: Pick<Model, 'entities' | 'machines' | 'permissions'>;
}

/** One encoding of the module as sent: its bytes and the ETag of those bytes. */
interface Representation {
  body: Buffer | string;
  etag: string;
  coding: 'br' | 'gzip' | null;
}

/** The module's three representations, by the coding `preferredCoding` picks. */
interface Served {
  identity: Representation;
  gzip: Representation;
  br: Representation;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Whether `/app/validators.js` is made and compressed yet (`validators` plugin). */
    validatorsBuilt(): boolean;
    /** Settles once the module is made, right after the app is ready (or left, if the app closed first). */
    validatorsReady: Promise<void>;
  }
}

/**
 * `GET /app/validators.js`: the spec's field checks as Ajv standalone code (`validatorsModule`),
 * for the web app to run before it sends a form. It says no more than `GET /api/spec`, which
 * every visitor may read (the schemas are the model's fields and rules), so it is as open.
 *
 * Made once per app with its brotli and gzip forms, in the background right after the app is ready
 * (`serve` right after it listens, `dev` before it swaps the new app in), so that neither the
 * start nor the first page that imports it waits for Ajv's code generation (tens of
 * milliseconds, a few hundred on a loaded machine). A request that comes sooner makes it then.
 * The path is stable and the answer changes with the spec (`ninepoint dev` swaps the app), so it
 * is sent `no-cache` with a strong ETag: a browser asks again, and gets 304 while the spec is the
 * same. Each encoding has its own ETag (the identity one suffixed `-gzip` or `-br`), as a strong
 * ETag names bytes: a cache that keeps the gzip answer cannot hand it out for the identity ETag.
 */
export const validators = fastifyPlugin<ValidatorsOptions>(
  (app, { model }, done) => {
    let served: Served | null = null;
    const made = (): Served => {
      if (served) return served;
      const { code, etag } = validatorsModule(model);
      served = {
        identity: { body: code, etag, coding: null },
        gzip: { body: gzipSync(code, { level: 9 }), etag: codedEtag(etag, 'gzip'), coding: 'gzip' },
        br: {
          body: brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }),
          etag: codedEtag(etag, 'br'),
          coding: 'br',
        },
      };
      return served;
    };
    let closed = false;
    let built: () => void = () => undefined;
    app.decorate('validatorsBuilt', () => served !== null);
    app.decorate('validatorsReady', new Promise<void>((resolve) => (built = resolve)));
    app.addHook('onReady', (ready) => {
      // In the next turn, so that ready (and `listen`, which waits for it) does not wait for it.
      setImmediate(() => {
        try {
          if (!closed) made();
        } catch (error) {
          // The request that asks for it then meets the same error, answered as an internal one.
          app.log.error({ err: error }, 'the browser field checks could not be made');
        }
        built();
      });
      ready();
    });
    app.addHook('onClose', (_app, finished) => {
      closed = true;
      finished();
    });
    app.get(VALIDATORS_PATH, (request, reply) => {
      const module = made();
      const representation = module[preferredCoding(request.headers['accept-encoding']) ?? 'identity'];
      reply.header('cache-control', 'no-cache').header('etag', representation.etag).header('vary', 'accept-encoding');
      if (etagMatches(request.headers['if-none-match'], representation.etag)) return reply.code(304).send();
      reply.type('text/javascript; charset=utf-8');
      if (representation.coding) reply.header('content-encoding', representation.coding);
      return reply.send(representation.body);
    });
    done();
  },
  { name: 'ninepoint-validators', fastify: '5.x' },
);
