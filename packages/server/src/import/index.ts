// The import feature's public face: what the app, the CLI (through the package) and tests may use.
export { DRY_RUN_PARAMETER, IMPORT_API, IMPORT_MAX_BYTES, importPath } from './import-api.ts';
export { imports } from './import-plugin.ts';
export type { ImportOptions } from './import-routes.ts';
export { type ImportTableOptions, importTable } from './import-table.ts';
export { CSV_TYPE, TableError, type TableKind, tableRows, XLSX_TYPE } from './read-table.ts';
export { ReferenceResolver } from './references.ts';
export { type ImportError, type ImportProgress, type ImportReport, runImport } from './run-import.ts';
