import { ALLOW_DESTRUCTIVE_FLAG } from '../migration-contract.ts';
import { plural } from '../migration-report.ts';
import type { SqlTable } from '../sql-schema.ts';
import type { PlanContext } from './plan-context.ts';
import { makeStep } from './step-words.ts';
import { findEntity } from './table-facts.ts';
import type { PlannedTable } from './table-plan.ts';

/** A table the spec no longer has: kept with its rows, and its foreign keys dropped so it blocks no delete. */
export async function planKeptTable(context: PlanContext, previous: SqlTable): Promise<PlannedTable | null> {
  const actual = await context.probe.columns(
    previous.name,
    previous.columns.map((c) => c.name),
  );
  if (actual === null) return null;
  const wasLive = context.previousModel ? findEntity(context.previousModel, previous.entity) !== null : true;
  const dropped = previous.columns.filter((c) => c.references?.table && actual.some((a) => a.name === c.name));
  const layout: SqlTable = {
    ...previous,
    columns: previous.columns.map((c) => (c.references?.table ? { ...c, references: null } : c)),
  };
  if (!wasLive && dropped.length === 0) return { steps: [], layout };
  const rows = await context.probe.rowCount(previous.name);
  const at = { entity: previous.entity, table: previous.name };
  const flagged = wasLive && rows > 0;
  const step = makeStep(
    at,
    'keep-table',
    flagged ? 'needs-flag' : 'safe',
    rows,
    wasLive
      ? `Entity ${previous.entity} was removed; its table ${previous.name} holds ${plural(rows, 'row')}, kept and no longer served.`
      : `Kept table ${previous.name} no longer blocks deleting the records it referred to.`,
  );
  for (const column of dropped)
    step.changes.push({ kind: 'drop-reference', table: previous.name, column: column.name });
  if (flagged) {
    step.advice =
      `With ${ALLOW_DESTRUCTIVE_FLAG} the table and its rows are kept in the database (never dropped) but no longer ` +
      'served; putting the entity back in the spec serves them again.';
  }
  return { steps: [step], layout };
}
