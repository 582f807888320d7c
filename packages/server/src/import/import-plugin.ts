import fastifyPlugin from 'fastify-plugin';
import { type ImportOptions, registerImports } from './import-routes.ts';

/** Imports of CSV and XLSX files into the spec's entities, as a Fastify plugin: `POST /api/<collection>/import`. */
export const imports = fastifyPlugin<ImportOptions>(
  (app, options, done) => {
    registerImports(app, options);
    done();
  },
  { name: 'ninepoint-import', fastify: '5.x', dependencies: ['ninepoint-people'] },
);
