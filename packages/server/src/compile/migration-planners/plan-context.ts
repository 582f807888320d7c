import { type CompiledModelExpressions, compileExpressions, type Field, type Model } from '@ninepoint/spec';
import type { ValidateFunction } from 'ajv';
import { createAjv } from '../ajv.ts';
import { fieldSchema } from '../json-schemas.ts';
import type { MigrationProbe, PlanInput } from '../migration-contract.ts';
import type { SqlTable } from '../sql-schema.ts';

/** What every table's planning shares: the two models, the previous layout, the probe and the time. */
export class PlanContext {
  readonly model: Model;
  readonly previousModel: Model | null;
  readonly previousTables: ReadonlyMap<string, SqlTable>;
  readonly probe: MigrationProbe;
  readonly now: Date;
  #expressions: CompiledModelExpressions | undefined;
  #ajv: ReturnType<typeof createAjv> | undefined;

  constructor(input: PlanInput) {
    this.model = input.model;
    this.previousModel = input.previous?.model ?? null;
    this.previousTables = new Map((input.previous?.tables ?? []).map((t) => [t.name, t]));
    this.probe = input.probe;
    this.now = input.now ?? new Date();
  }

  /** Compiled only when a rule must be checked against rows. */
  get expressions(): CompiledModelExpressions {
    this.#expressions ??= compileExpressions(this.model);
    return this.#expressions;
  }

  /** The check the API makes of a field's value, so stored values are judged as a request's would be. */
  validator(field: Field): ValidateFunction {
    this.#ajv ??= createAjv();
    return this.#ajv.compile(fieldSchema(field, true));
  }
}
