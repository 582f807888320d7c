import type { Model, RuntimeSettings } from '@ninepoint/spec';
import type { EntityLogic } from './entity-logic.ts';
import type { EntitySchemas } from './json-schemas.ts';
import type { OpenApiDocument } from './openapi.ts';
import type { EntityPermissions } from './permissions.ts';
import type { ProblemCatalogue } from './problems.ts';
import type { RouteTable } from './route-table.ts';
import type { SqlSchema } from './sql-schema.ts';

/** Everything the runtime needs from a model, computed once at start-up and never re-read per request. */
export interface CompiledApp {
  readonly model: Model;
  readonly settings: Readonly<RuntimeSettings>;
  readonly catalogue: ProblemCatalogue;
  readonly sqlSchema: SqlSchema;
  /** By entity name. */
  readonly jsonSchemas: ReadonlyMap<string, EntitySchemas>;
  readonly routeTable: RouteTable;
  readonly openapi: OpenApiDocument;
  /** By entity name: the rules, guards and limits every write checks, with their CEL programs compiled. */
  readonly logic: ReadonlyMap<string, EntityLogic>;
  /** By entity name: what point 6 lets each actor do. */
  readonly permissions: ReadonlyMap<string, EntityPermissions>;
  /** `GET /api/spec` and `GET /api/openapi.json` answer these strings as they are. */
  readonly modelJson: string;
  readonly openapiJson: string;
}
