import { compileExpressions, effectiveCalls, type Model, runtimeSettings } from '@ninepoint/spec';
import type { CompiledApp } from '../compile/compiled-app.ts';
import { compileEntityLogic } from '../compile/entity-logic.ts';
import { compileJsonSchemas, type EntitySchemas } from '../compile/json-schemas.ts';
import { assembleOpenApi, type OpenApiDocument } from '../compile/openapi.ts';
import { compilePermissions, type EntityPermissions } from '../compile/permissions.ts';
import { ProblemCatalogue } from '../compile/problems.ts';
import { compileRouteTable, type Route } from '../compile/route-table.ts';
import { compileSqlSchema } from '../compile/sql-schema.ts';
import { FEATURE_APIS, SYSTEM_ROUTES } from './features.ts';

export type { CompiledApp };

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
  const routeTable = compileRouteTable(model, effectiveCalls(model), jsonSchemas, SYSTEM_ROUTES);
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

/**
 * The OpenAPI document of an app, built from the same route table and schemas the server uses,
 * so it cannot describe a call or a payload differently from how it is served: what each feature
 * declares (`FEATURE_APIS`), assembled. `permissions` (point 6, compiled) says which calls
 * signed-out visitors may make.
 */
export function compileOpenApi(
  model: Parameters<typeof assembleOpenApi>[0],
  routes: readonly Route[],
  schemas: ReadonlyMap<string, EntitySchemas>,
  catalogue: ProblemCatalogue,
  permissions?: ReadonlyMap<string, EntityPermissions>,
): OpenApiDocument {
  return assembleOpenApi(model, FEATURE_APIS, { routes, schemas, catalogue, ...(permissions ? { permissions } : {}) });
}
