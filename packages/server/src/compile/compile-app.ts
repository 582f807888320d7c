import { compileExpressions, effectiveCalls, type Model, type RuntimeSettings, runtimeSettings } from '@ninepoint/spec';
import { compileEntityLogic, type EntityLogic } from './entity-logic.ts';
import { compileJsonSchemas, type EntitySchemas } from './json-schemas.ts';
import { compileOpenApi, type OpenApiDocument } from './openapi.ts';
import { compilePermissions, type EntityPermissions } from './permissions.ts';
import { ProblemCatalogue } from './problems.ts';
import { compileRouteTable, type RouteTable } from './route-table.ts';
import { compileSqlSchema, type SqlSchema } from './sql-schema.ts';

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

/**
 * Compiles a checked model (one whose `checkSpec` had no errors) into the runtime's artefacts.
 * Throws `SqlSchemaError` when the entities' names cannot be laid out as tables, and
 * `ExpressionCompileError` (`@ninepoint/spec`) when a guard or rule cannot be compiled (the
 * checker refuses those first).
 *
 * @example
 * const { model, ok } = checkSpec(source);
 * if (ok) console.log(compileApp(model).openapi.paths);
 */
/** What the compiled app reads the time from. */
export interface CompileOptions {
  /** The clock of `now` and `today` in guards and rules (tests inject one). Default `Date.now`. */
  clock?: () => number;
}

export function compileApp(model: Model, options: CompileOptions = {}): CompiledApp {
  const settings = Object.freeze(runtimeSettings(model));
  const catalogue = new ProblemCatalogue(model);
  const sqlSchema = compileSqlSchema(model);
  const jsonSchemas = compileJsonSchemas(model);
  const routeTable = compileRouteTable(model, effectiveCalls(model), jsonSchemas);
  const permissions = compilePermissions(model);
  const openapi = compileOpenApi(model, routeTable.routes, jsonSchemas, catalogue, permissions);
  const logic = compileEntityLogic(model, catalogue, compileExpressions(model, { clock: options.clock }));
  return Object.freeze({
    model,
    settings,
    catalogue,
    sqlSchema,
    jsonSchemas,
    routeTable,
    openapi,
    logic,
    permissions,
    modelJson: JSON.stringify(model),
    openapiJson: JSON.stringify(openapi),
  });
}
