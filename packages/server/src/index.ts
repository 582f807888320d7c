export { type CompiledApp, compileApp, compileOpenApi } from './app/compile-app.ts';
export { SYSTEM_ROUTES } from './app/features.ts';
export { type AccountsDatabase, openAccounts } from './app/open-accounts.ts';
export { formatDiagnostic, type Say, type ServeOptions, type ServeResult, serve } from './app/serve.ts';
export {
  CodeModulesError,
  createServer,
  DEFAULT_HOST,
  DEFAULT_PORT,
  type NinepointServer,
  type ServerOptions,
} from './app/server.ts';
export { SERVER_CREATED_CHANNEL, type ServerCreated } from './app/server-channel.ts';
export {
  type AnySpec,
  type CallContext,
  type Changes,
  type CodeCall,
  type CodeContext,
  type CodeHook,
  type CodeJob,
  type CodeLogger,
  CodeRefusal,
  type CodeUser,
  defineCall,
  defineHook,
  defineJob,
  type HookContext,
  type JobContext,
  type LoadedModules,
  loadModules,
  type RecordsAccess,
  type SpecTypes,
} from './code/index.ts';
export { createAjv } from './compile/ajv.ts';
export { compileJsonSchemas, type EntitySchemas, fieldSchema, type JsonSchema } from './compile/json-schemas.ts';
export {
  compileListParams,
  type FilterType,
  type ListParams,
  listQueryParameters,
  type SortKey,
} from './compile/list-params.ts';
export {
  ALLOW_DESTRUCTIVE_FLAG,
  type AppliedState,
  blockingSteps,
  changesSchema,
  type MigrationPlan,
  type MigrationProbe,
  type MigrationStep,
  type MigrationStepKind,
  type PlanInput,
  type ProbedColumn,
  type ProbedRow,
  type SchemaChange,
  type StepSafety,
} from './compile/migration-contract.ts';
export { planMigration } from './compile/migration-planner.ts';
export { type FormatOptions, formatMigrationPlan, MigrationRefusedError } from './compile/migration-report.ts';
export { type FeatureApi, OPENAPI_VERSION, type OpenApiDocument, type Operation } from './compile/openapi.ts';
export { assignableRoles } from './compile/permissions.ts';
export {
  type FieldError,
  PROBLEM_CONTENT_TYPE,
  PROBLEM_MEDIA_TYPE,
  PROBLEM_TYPE_PREFIX,
  type ProblemBody,
  ProblemCatalogue,
  ProblemError,
  type ProblemExtras,
} from './compile/problems.ts';
export type { ApiRecord, Value } from './compile/record-types.ts';
export {
  compileRouteTable,
  type Payload,
  type Route,
  type RouteTable,
  schemaComponent,
} from './compile/route-table.ts';
export {
  compileSqlSchema,
  HISTORY_TABLE,
  SCHEMA_TABLE,
  type SqlColumn,
  type SqlIndex,
  type SqlSchema,
  SqlSchemaError,
  type SqlTable,
  type SqlType,
  tableName,
  VERSION_COLUMN,
} from './compile/sql-schema.ts';
export { typedClient } from './compile/typed-client.ts';
export { type DevServeResult, type DevServer, serveDev } from './dev/dev-server.ts';
export { SPEC_EVENTS_PATH } from './dev/spec-events.ts';
export { STUDIO_ROUTES, type Studio } from './dev/studio-routes.ts';
export {
  backupFiles,
  backupFilesFolder,
  defaultFilesFolder,
  type FilesCopied,
  restoreFiles,
} from './files/index.ts';
export {
  createLogger,
  defaultLogFormat,
  formatLogLine,
  LOG_FORMATS,
  LOG_LEVELS,
  type LogFormat,
  type LoggerOptions,
  type LogLevel,
  LogLevelError,
  parseLogLevel,
} from './http/logging.ts';
export { closeOnSignals, type ShutdownOptions } from './http/shutdown.ts';
export { HEALTH_SCHEMA } from './http/system-api.ts';
export {
  CSV_TYPE,
  DRY_RUN_PARAMETER,
  type ImportError,
  type ImportProgress,
  type ImportReport,
  type ImportTableOptions,
  importTable,
  TableError,
  type TableKind,
  XLSX_TYPE,
} from './import/index.ts';
export { type MailSettings, MailSettingsError, mailSettingsFromEnv, type SmtpSettings } from './mail/mail-settings.ts';
export { type KeptMail, type Mail, type Mailer, Outbox, smtpMailer } from './mail/mailer.ts';
export { DeliveriesStore, type Delivery, type DeliveryStatus, deliveryOf } from './outbox/index.ts';
export {
  type AccountChange,
  AccountError,
  type AccountEvent,
  type AccountHistoryEntry,
  AuthStore,
  addUser,
  changeAccount,
  checkEmail,
  checkRoles,
  createApiToken,
  DEMO_EMAIL_DOMAIN,
  DEV_ROUTES,
  demoEmail,
  ensureDemoUsers,
  isDemoEmail,
  MAX_PASSWORD_LENGTH,
  type MailOptions,
  type ManagedAccount,
  MIN_PASSWORD_LENGTH,
  type OidcSettings,
  OidcSettingsError,
  oidcSettingsFromEnv,
  PASSWORD_RESET_LIMITS,
  PASSWORD_RESET_ROUTES,
  passwordProblem,
  recordAccountEvent,
  registerDevRoutes,
  type TokenInfo,
  type UserAccount,
} from './people/index.ts';
export { encodeCursor, etagOf, ifMatchVersions, parseListQuery, registerEntityRoutes } from './records/index.ts';
export { replayHistory } from './store/history.ts';
export { DEFAULT_DB_PATH, openStore, type StoreOptions } from './store/open-store.ts';
export { IDENTITY_FUNCTION } from './store/postgres/pg-identity-watch.ts';
export type { Records } from './store/records-core.ts';
export {
  BackupError,
  type BackupInspection,
  backupSqlite,
  type DatabaseSummary,
  inspectSqliteBackup,
  type Restored,
  restoreSqlite,
} from './store/sqlite/sqlite-backup.ts';
export type { SqliteRecords } from './store/sqlite/sqlite-dialect.ts';
export { SqliteStore, type SqliteStoreOptions } from './store/sqlite/sqlite-store.ts';
export type {
  AppliedSchema,
  ApplyOptions,
  ConditionalWrite,
  DeleteOutcome,
  EntityRecords,
  HistoryEntry,
  ListPage,
  ListQuery,
  Position,
  Refusal,
  Store,
  StoredRecord,
  WriteContext,
  WriteOutcome,
} from './store/store.ts';
export { SYNCHRONOUS_MODES, type Synchronous, UnsupportedDatabaseError } from './store/store.ts';
export { PAYLOADS, VALIDATORS_PATH, type ValidatorsModule, validatorsModule } from './validators/index.ts';
