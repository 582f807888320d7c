export { createAjv } from './compile/ajv.ts';
export { type CompiledApp, compileApp } from './compile/compile-app.ts';
export { compileJsonSchemas, type EntitySchemas, fieldSchema, type JsonSchema } from './compile/json-schemas.ts';
export {
  compileOpenApi,
  HEALTH_SCHEMA,
  OPENAPI_VERSION,
  type OpenApiDocument,
  type Operation,
} from './compile/openapi.ts';
export {
  compileRouteTable,
  type Payload,
  type Route,
  type RouteTable,
  schemaComponent,
} from './compile/route-table.ts';
export {
  compileSqlSchema,
  SCHEMA_TABLE,
  type SqlColumn,
  type SqlIndex,
  type SqlSchema,
  SqlSchemaError,
  type SqlTable,
  type SqlType,
  tableName,
} from './compile/sql-schema.ts';
export { SYSTEM_ROUTES } from './compile/system-routes.ts';
export {
  PROBLEM_CONTENT_TYPE,
  PROBLEM_MEDIA_TYPE,
  PROBLEM_TYPE_PREFIX,
  type ProblemBody,
  ProblemCatalogue,
  ProblemError,
} from './http/problem.ts';
export { createServer, DEFAULT_HOST, DEFAULT_PORT, type NinepointServer, type ServerOptions } from './http/server.ts';
export { closeOnSignals, type ShutdownOptions } from './http/shutdown.ts';
export { formatDiagnostic, type ServeOptions, type ServeResult, serve } from './serve.ts';
export { DEFAULT_DB_PATH, openStore, type StoreOptions } from './store/open-store.ts';
export { SqliteStore, type SqliteStoreOptions } from './store/sqlite/sqlite-store.ts';
export type { AppliedSchema, Store } from './store/store.ts';
export { UnsupportedDatabaseError } from './store/store.ts';
