export { blankSpec } from './blank-spec.ts';
export { BUILTIN_ERRORS, errorCatalogue } from './builtin-errors.ts';
export {
  CEL_DURATION,
  CEL_TIMESTAMP,
  CEL_TYPE_PREFIX,
  CEL_USER_FIELDS,
  celConstantType,
  celFieldType,
  celSystemFields,
  celTypeName,
} from './cel-types.ts';
export { type CheckResult, checkSpec, MAX_SPEC_BYTES } from './check.ts';
export { deriveCalls, effectiveCalls, formatCallsTable } from './derive-calls.ts';
export { deriveScreens, effectiveScreens } from './derive-screens.ts';
export { DIAGNOSTIC_CODES, type DiagnosticCode } from './diagnostic-codes.ts';
export type { Diagnostic, Severity } from './diagnostics.ts';
export {
  type CelUser,
  type CompiledExpression,
  type CompiledModelExpressions,
  celRecord,
  chainsOf,
  compileExpressions,
  EntityExpressions,
  ExpressionCompileError,
  LoadPending,
  NO_USER,
  type Outcome,
  type RecordLoader,
  type RecordValue,
  type RecordValues,
} from './evaluate.ts';
export { explainModel } from './explain.ts';
export { MessageCatalogue, type MessageParams } from './message-catalogue.ts';
export * from './model.ts';
export { collectionName, transitionSlug, USER_ENTITY } from './names.ts';
export { POINT_TITLES } from './parse-sections.ts';
export { RUNTIME_CONSTANTS, type RuntimeSettings, runtimeSettings } from './runtime-constants.ts';
export { type PointSummary, summarizePoints } from './summary.ts';
export { typeWords } from './type-words.ts';
export {
  defaultValueAt,
  type ExpressionRule,
  expressionRule,
  guardRecord,
  guardRefusal,
  ruleMessageParams,
  ruleRuns,
  sharedRefusalCode,
} from './write-rules.ts';
