import type { Model } from '@ninepoint/spec';
import { parseAppliedState, type RecordedSchema } from '../compile/applied-state.ts';
import { blockingSteps, type MigrationPlan, type MigrationProbe } from '../compile/migration-contract.ts';
import { planMigration } from '../compile/migration-planner.ts';
import { MigrationRefusedError } from '../compile/migration-report.ts';
import { SCHEMA_TABLE, type SqlSchema } from '../compile/sql-schema.ts';
import type { MaybePromise } from './step.ts';
import type { AppliedSchema, ApplyOptions } from './store.ts';

/**
 * A migration's steps as one database makes them, inside the transaction its store holds (see
 * `Store.applySchema`): SQLite's answer at once, PostgreSQL's later.
 */
export interface MigrationSteps {
  /** The newest `_ninepoint_schema` row, or null for a database without one. */
  recorded(): MaybePromise<RecordedSchema | null>;
  probe: MigrationProbe;
  /** Creates the runtime's bookkeeping tables (the schema's record, the history) when missing. */
  bookkeeping(): MaybePromise<void>;
  /** Makes the plan's changes and lays out every index of the schema. */
  apply(plan: MigrationPlan): MaybePromise<void>;
  /** Inserts a `_ninepoint_schema` row: applied_at, model_version, product, model, tables. */
  record(values: [string, number, string, string, string]): MaybePromise<void>;
}

/** The newest recorded row; placeholders are not needed, so the text is the same on every database. */
export const NEWEST_SCHEMA_SQL = `SELECT "model", "tables" FROM "${SCHEMA_TABLE}" ORDER BY "id" DESC LIMIT 1`;

/** The columns `record` fills, in its order. */
export const SCHEMA_ROW_COLUMNS = '"applied_at", "model_version", "product", "model", "tables"';

/** A `_ninepoint_schema` row (`NEWEST_SCHEMA_SQL`) as the planner reads it. */
export function recordedSchemaOf(row: { model: string; tables: string } | undefined): RecordedSchema | null {
  if (!row) return null;
  return { state: parseAppliedState(row.model, row.tables), modelJson: row.model, tablesJson: row.tables };
}

/**
 * Steps 1 to 5 of `Store.applySchema`, the same on every database: read what was applied, plan,
 * stop for a dry run or a refused plan, else change the layout and record the model when either
 * changed. The caller holds the transaction and ends it.
 */
export async function migrate(
  steps: MigrationSteps,
  schema: SqlSchema,
  model: Model,
  options: ApplyOptions & { location: string },
): Promise<AppliedSchema> {
  const allowDestructive = options.allowDestructive ?? false;
  const last = await steps.recorded();
  const plan = await planMigration({ previous: last?.state ?? null, model, schema, probe: steps.probe });
  if (options.dryRun) return { plan, applied: false, recorded: false };
  if (blockingSteps(plan, allowDestructive).length > 0) {
    throw new MigrationRefusedError(plan, { allowDestructive, location: options.location });
  }
  await steps.bookkeeping();
  await steps.apply(plan);
  const modelJson = JSON.stringify(model);
  const tablesJson = JSON.stringify(plan.tables);
  const recorded = last?.modelJson !== modelJson || last.tablesJson !== tablesJson;
  if (recorded)
    await steps.record([new Date().toISOString(), model.version, model.product.name, modelJson, tablesJson]);
  return { plan, applied: true, recorded };
}
