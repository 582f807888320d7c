export { behaviourKey } from './behaviour-key.ts';
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
export { CHOICE_COLOURS, type ChoiceColour, choiceColour } from './choice-colours.ts';
export { type CodeNeed, type CodeUse, checkModules, codeNeeds, type ModuleFacts } from './code-modules.ts';
export { conditionWords } from './condition-words.ts';
export { DECIMAL_MULTIPLE_OF } from './decimal-keyword.ts';
export {
  decimalLimit,
  decimalMultipleTest,
  decimalPlaces,
  EXACT_DIGITS,
  isDecimalMultiple,
} from './decimals.ts';
export { callsDeclared, deriveCalls, effectiveCalls, formatCallsTable } from './derive-calls.ts';
export { dashboardText, deriveScreens, effectiveScreens, formatScreensTable } from './derive-screens.ts';
export { DIAGNOSTIC_CODES, type DiagnosticCode, type DiagnosticPoint } from './diagnostic-codes.ts';
export type { Diagnostic, Severity } from './diagnostics.ts';
export { entityDiagram, mermaidText, type SpecDiagram, specDiagrams, stateDiagram } from './diagrams.ts';
export {
  type CelUser,
  type CompiledEffect,
  type CompiledExpression,
  type CompiledModelExpressions,
  celRecord,
  chainsOf,
  compileExpressions,
  EntityExpressions,
  ExpressionCompileError,
  type ExpressionOptions,
  LoadPending,
  NO_USER,
  type Outcome,
  type RecordCounter,
  type RecordLoader,
  type RecordValue,
  type RecordValues,
} from './evaluate.ts';
export { explainModel } from './explain.ts';
export { explainEffects, explainOutgoing, explainSchedule } from './explain-outgoing.ts';
export {
  assertNever,
  type CelKind,
  DEFAULT_LONG_TEXT_LENGTH,
  DEFAULT_TEXT_LENGTH,
  describeType,
  explainedType,
  FIELD_KINDS,
  type FieldKindFacts,
  type FieldTypeOf,
  type FilterKind,
  familyOf,
  isGroupable,
  isMoment,
  isNumeric,
  isRangedFilter,
  isTextLike,
  kindFacts,
  type ValueFamily,
  valueWords,
} from './field-kinds.ts';
export {
  FIELD_SCHEMAS,
  FILE_IDS_PATTERN,
  fieldValueSchema,
  ID_SCHEMA,
  isBlank,
  type JsonSchema,
  type JsonType,
} from './field-schema.ts';
export {
  DEFAULT_IMAGE_KINDS,
  FILE_DEFAULT_MAX_BYTES,
  FILE_FORMATS,
  FILE_MAX_BYTES,
  type FileFormat,
  fileKind,
  kindOfDetected,
  sizeWords,
} from './file-formats.ts';
export { type CountTerm, findCounts } from './filled-terms.ts';
export { type InsertablePoint, insertDerived, isInsertable } from './insert-derived.ts';
export { limitGroupWords } from './limit-words.ts';
export { MessageCatalogue, type MessageParams } from './message-catalogue.ts';
export * from './model.ts';
export {
  collectionName,
  ENTITY_NAME,
  RESERVED_COLLECTIONS,
  RESERVED_FIELD_NAMES,
  transitionSlug,
  USER_ENTITY,
} from './names.ts';
export { POINT_TITLES } from './parse-sections.ts';
export { type FieldFault, type PayloadFaults, payloadFaults, type SchemaError } from './payload-errors.ts';
export { type PeopleAccess, peopleAccess, requiresTwoFactor, signUpRoles } from './people-access.ts';
export {
  describeCell,
  formatPermissionMatrix,
  type PermissionCell,
  type PermissionMatrix,
  permissionMatrix,
  SIGNED_IN,
} from './permission-matrix.ts';
export { type PointProgress, pointProgress } from './progress.ts';
export { offsetAt, type QuickFix, quickFixes } from './quick-fixes.ts';
export { mentionsTime, SYSTEM_ACTOR } from './read-automatic.ts';
export { isAbsoluteHttpUrl } from './read-outgoing.ts';
export { RUNTIME_CONSTANTS, type RuntimeSettings, runtimeSettings } from './runtime-constants.ts';
export { lastOccurrence, readSchedule, type ScheduleReading, scheduleWordsToCron } from './schedules.ts';
export { type SpecLine, specLine, specLinesOf } from './spec-lines.ts';
export { specTypeDeclarations, specTypes, specTypesFile, tsFieldType, tsUnion } from './spec-types.ts';
export type { StudioStatus } from './studio-status.ts';
export { type PointSummary, summarizePoints } from './summary.ts';
export { type Thread, threadOf, threadsOn, threadTextField } from './threads.ts';
export { type TimeBound, timeBound } from './time-bound.ts';
export { isTimeZone, localDay, localParts, TIME_ZONE_CONSTANT, timeZoneOf, zonedInstant } from './time-zone.ts';
export { type EffectsOutcome, storedValue, transitionEffects } from './transition-effects.ts';
export { typeWords } from './type-words.ts';
export {
  defaultValueAt,
  type ExpressionRule,
  emptyFieldsRead,
  expressionRule,
  GUARD_REFUSAL,
  guardErrorParams,
  guardRecord,
  guardRefusal,
  ruleMessageParams,
  ruleRuns,
  setFirst,
  sharedRefusalCode,
} from './write-rules.ts';
