import fastifyPlugin from 'fastify-plugin';
import type { CompiledApp } from '../compile/compiled-app.ts';
import type { RecordFiles } from '../files/index.ts';
import type { Store } from '../store/store.ts';
import { type Committed, registerEntityRoutes, type WriteAround } from './entity-routes.ts';

export interface RecordsOptions {
  compiled: CompiledApp;
  store: Store;
  /** Told of each write once the store has committed it (live updates). */
  committed?: Committed;
  /** The server's clock, which stamps writes. Default `Date.now`. */
  now?: () => number;
  /** Uploads to file fields and the files' lives (the files feature). */
  files?: RecordFiles | null;
  /** Runs each write with the call's `before` hooks (the code feature). Default: just runs it. */
  around?: WriteAround;
}

/**
 * The spec's records, as a Fastify plugin: each entity's calls (list, get, create, update, delete,
 * history, transitions) and the dashboards' summaries, with point 6 applied to each.
 */
export const records = fastifyPlugin<RecordsOptions>(
  (app, { compiled, store, committed, now, files, around }, done) => {
    registerEntityRoutes(app, compiled, store, committed, now, files ?? null, around);
    done();
  },
  { name: 'ninepoint-records', fastify: '5.x', dependencies: ['ninepoint-people'] },
);
