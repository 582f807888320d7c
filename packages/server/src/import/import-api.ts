import type { JsonSchema } from '../compile/json-schemas.ts';
import { API, type ApiCall, type ApiContext, type FeatureApi, ref, specLineExtension } from '../compile/openapi.ts';
import type { Route } from '../compile/route-table.ts';
import { visitorsMay } from '../records/index.ts';
import { CSV_TYPE, MAX_ROW_BYTES, XLSX_TYPE } from './read-table.ts';
import { MAX_REPORTED } from './run-import.ts';

/** The largest file an import takes: 100,000 rows of a few fields fit many times over. */
export const IMPORT_MAX_BYTES = 256 * 1024 * 1024;

/** The query parameter of a dry run: `?dryRun=true` checks every row and writes nothing. */
export const DRY_RUN_PARAMETER = 'dryRun';

export const IMPORT_REPORT = 'ninepoint.ImportReport';
export const IMPORT_ERROR = 'ninepoint.ImportError';

/** One refusal of one row. */
export const IMPORT_ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'Why one row was refused: where, and the catalogue code and message a create would answer.',
  properties: {
    row: { type: 'integer', minimum: 2, description: 'The row as a spreadsheet numbers it: the header is row 1.' },
    column: {
      type: ['string', 'null'],
      description: 'The header of the column at fault; null for the whole row (a rule, a limit, a permission).',
    },
    field: { type: ['string', 'null'] },
    code: { type: 'string' },
    message: { type: 'string' },
  },
  required: ['row', 'column', 'field', 'code', 'message'],
  additionalProperties: false,
};

export const IMPORT_REPORT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    dryRun: { type: 'boolean' },
    rows: { type: 'integer', minimum: 0, description: 'Rows read, the header left out.' },
    imported: {
      type: 'integer',
      minimum: 0,
      description: 'Records created: every row, or none (in a dry run, or when a row is refused).',
    },
    refused: { type: 'integer', minimum: 0, description: 'Rows refused.' },
    errors: { type: 'array', items: ref(IMPORT_ERROR), description: `The refusals by row, at most ${MAX_REPORTED}.` },
    more: { type: 'integer', minimum: 0, description: 'Refusals not listed in errors.' },
  },
  required: ['dryRun', 'rows', 'imported', 'refused', 'errors', 'more'],
  additionalProperties: false,
};

/** The path of an entity's import, beside its create call: `/api/books` → `/api/books/import`. */
export function importPath(createPath: string): string {
  return `${createPath}/import`;
}

/** Where the wizard sees a file before importing it: `/api/books/import/preview`. */
export function importPreviewPath(createPath: string): string {
  return `${createPath}/import/preview`;
}

/** The rows a preview shows. */
export const PREVIEW_ROWS = 10;

export const IMPORT_PREVIEW = 'ninepoint.ImportPreview';

export const IMPORT_PREVIEW_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    columns: {
      type: 'array',
      description: 'Each header cell, with the field it matches by name or label (null: none).',
      items: {
        type: 'object',
        properties: { header: { type: 'string' }, field: { type: ['string', 'null'] } },
        required: ['header', 'field'],
        additionalProperties: false,
      },
    },
    rows: {
      type: 'array',
      description: `The first ${PREVIEW_ROWS} rows, each cell as text.`,
      items: {
        type: 'object',
        properties: { row: { type: 'integer' }, cells: { type: 'array', items: { type: 'string' } } },
        required: ['row', 'cells'],
        additionalProperties: false,
      },
    },
    total: { type: 'integer', minimum: 0, description: 'Rows in all, the header left out.' },
  },
  required: ['columns', 'rows', 'total'],
  additionalProperties: false,
};

/** The file as a body of its own media type, or as a form's part `file` (after `mapping`). */
const FILE_CONTENT = {
  [CSV_TYPE]: { schema: { type: 'string', contentMediaType: CSV_TYPE } as JsonSchema },
  [XLSX_TYPE]: { schema: { type: 'string', contentMediaType: XLSX_TYPE } as JsonSchema },
  'multipart/form-data': {
    schema: {
      type: 'object',
      properties: {
        mapping: {
          type: 'string',
          description: 'JSON: column header → field name, or "" to leave the column out. Before the file.',
        },
        file: { type: 'string', contentMediaType: 'application/octet-stream' },
      },
      required: ['file'],
    } as JsonSchema,
  },
};

/** The imports in the OpenAPI document: two calls per entity the spec's calls create. */
export const IMPORT_API: FeatureApi = {
  schemas: () => ({
    [IMPORT_REPORT]: IMPORT_REPORT_SCHEMA,
    [IMPORT_ERROR]: IMPORT_ERROR_SCHEMA,
    [IMPORT_PREVIEW]: IMPORT_PREVIEW_SCHEMA,
  }),
  calls: (context: ApiContext) =>
    importRoutes(context.routes).flatMap((route) => [importCall(route, context), previewCall(route, context)]),
};

/** Whoever may make the create call may import: the same permission decides both. */
function securityOf(route: Route, { model, permissions }: ApiContext) {
  const machine = model.machines.find((m) => m.entity === route.action.entity);
  return visitorsMay(route.action, permissions.get(route.action.entity), machine) ? API.anybody : API.signedIn;
}

function importCall(route: Route, context: ApiContext): ApiCall {
  const entity = route.action.entity;
  return {
    path: importPath(route.openapiPath),
    method: 'POST',
    operation: {
      operationId: `import${entity}`,
      summary: `Imports ${entity} records from a CSV or XLSX file, all or nothing`,
      description:
        'The file is the body (`text/csv` or XLSX), or the part named `file` of a multipart form. ' +
        "Its header row names the fields (by name or label), or a form's `mapping` does. Every row is " +
        'checked as a create of the same caller is (JSON Schema, the fields they may set, rules, the ' +
        'creating transition’s guard, limits, references, which may name a record by id, a unique ' +
        'field or its title), and all rows are created in one transaction, or none: IMPORT_REFUSED ' +
        `lists every refusal by row and column. With \`${DRY_RUN_PARAMETER}=true\` nothing is written ` +
        `and the report says what the import would do. A row may hold at most ${MAX_ROW_BYTES / (1024 * 1024)} MiB; ` +
        'formulas are refused, never evaluated. History records each created record with `how: import`.',
      tags: [entity],
      security: securityOf(route, context),
      ...specLineExtension(route.spec),
      parameters: [
        {
          name: DRY_RUN_PARAMETER,
          in: 'query',
          required: false,
          description: 'true: check every row and report, writing nothing.',
          schema: { type: 'string', enum: ['true', 'false'] },
        },
      ],
      requestBody: { required: true, content: FILE_CONTENT },
      responses: {
        '200': { description: 'A dry run’s report.', content: { [API.json]: { schema: ref(IMPORT_REPORT) } } },
        '201': { description: 'Every row was imported.', content: { [API.json]: { schema: ref(IMPORT_REPORT) } } },
        ...context.responses.for([
          'IMPORT_REFUSED',
          'IMPORT_UNREADABLE',
          'UNSUPPORTED_MEDIA_TYPE',
          ...API.posted,
          ...API.anyCall,
        ]),
      },
    },
  };
}

function previewCall(route: Route, context: ApiContext): ApiCall {
  const entity = route.action.entity;
  return {
    path: importPreviewPath(route.openapiPath),
    method: 'POST',
    operation: {
      operationId: `preview${entity}Import`,
      summary: `Reads a CSV or XLSX file for an import of ${entity} records, writing nothing`,
      description:
        'What each header cell matches by name or label, and the first rows as text, for choosing the ' +
        'columns before an import (the web app’s wizard). No row is checked: a dry run of the import does that.',
      tags: [entity],
      security: securityOf(route, context),
      ...specLineExtension(route.spec),
      requestBody: { required: true, content: FILE_CONTENT },
      responses: {
        '200': {
          description: 'The header and the first rows.',
          content: { [API.json]: { schema: ref(IMPORT_PREVIEW) } },
        },
        ...context.responses.for(['IMPORT_UNREADABLE', 'UNSUPPORTED_MEDIA_TYPE', ...API.posted, ...API.anyCall]),
      },
    },
  };
}

/** The create calls an import sits beside: one per entity. */
export function importRoutes(routes: readonly Route[]): Route[] {
  const seen = new Set<string>();
  return routes.filter((r) => {
    if (r.action.kind !== 'create' || seen.has(r.action.entity)) return false;
    seen.add(r.action.entity);
    return true;
  });
}
