import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CompiledApp } from '../compile/compiled-app.ts';
import { ProblemError } from '../compile/problems.ts';
import type { AuthStore } from '../people/index.ts';
import { type Committed, recordCreators } from '../records/index.ts';
import type { Store } from '../store/store.ts';
import {
  DRY_RUN_PARAMETER,
  IMPORT_MAX_BYTES,
  importPath,
  importPreviewPath,
  importRoutes,
  PREVIEW_ROWS,
} from './import-api.ts';
import { CSV_TYPE, TableError, type TableKind, tableRows, XLSX_TYPE } from './read-table.ts';
import { ReferenceResolver } from './references.ts';
import { type ImportReport, previewTable, runImport } from './run-import.ts';

export interface ImportOptions {
  compiled: CompiledApp;
  store: Store;
  /** The users, for `User` fields given by email. */
  auth?: AuthStore;
  /** Told of committed writes (live updates). */
  committed?: Committed;
  now?: () => number;
}

const ACCEPTED = `CSV (${CSV_TYPE}) or XLSX (${XLSX_TYPE}), or a multipart form whose part named file holds one`;

/**
 * `POST /api/<collection>/import` beside each create call: the file as the body (CSV or XLSX) or
 * as the multipart part `file`; `?dryRun=true` only reports. The calls live in a scope of their
 * own, so that the body parsers they need (any media type as a stream, multipart) apply to them only.
 */
export function registerImports(app: FastifyInstance, options: ImportOptions): void {
  const { compiled, store } = options;
  const now = options.now ?? Date.now;
  const creators = recordCreators(compiled, store, options.committed, now);
  const users = options.auth?.users;
  const userByEmail = users ? async (email: string) => (await users.byEmail(email))?.id : undefined;
  void app.register(async (scope) => {
    await scope.register(multipart, {
      limits: { fileSize: IMPORT_MAX_BYTES, files: 1, parts: 20, fieldSize: 1024 },
      throwFileSizeLimit: true,
    });
    // Anything else arrives as a stream; the handler decides (415 for what is not a table).
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    for (const route of importRoutes(compiled.routeTable.routes)) {
      const creator = creators.get(route.action.entity);
      if (!creator) continue;
      scope.post(importPath(route.path), async (request, reply) => {
        const { actor } = request;
        creator.authorize(actor);
        const dryRun = dryRunOf(request);
        const { stream, declared, mapping } = await upload(request);
        let report: ImportReport;
        try {
          report = await runImport({
            creator,
            catalogue: compiled.catalogue,
            resolver: new ReferenceResolver(compiled, store, actor, userByEmail),
            actor,
            rows: tableRows(limited(stream), declared),
            dryRun,
            now,
            ...(mapping ? { mapping } : {}),
          });
        } catch (error) {
          throw asProblem(error);
        }
        if (report.refused > 0 && !dryRun) {
          const rows = `${report.refused} of ${report.rows} row${report.rows === 1 ? '' : 's'}`;
          throw new ProblemError(
            'IMPORT_REFUSED',
            {},
            {
              detail: `${rows} cannot be imported, so nothing was imported${report.more > 0 ? ` (the first ${report.errors.length} refusals are listed)` : ''}.`,
              errors: report.errors,
            },
          );
        }
        return reply.code(dryRun ? 200 : 201).send(report);
      });
      scope.post(importPreviewPath(route.path), async (request, reply) => {
        creator.authorize(request.actor);
        if (Object.keys(request.query as object).length > 0) throw invalid('the preview takes no parameters');
        const { stream, declared } = await upload(request);
        try {
          const preview = await previewTable(creator.entity, tableRows(limited(stream), declared), PREVIEW_ROWS);
          return reply.send(preview);
        } catch (error) {
          throw asProblem(error);
        }
      });
    }
  });
}

function dryRunOf(request: FastifyRequest): boolean {
  const query = request.query as Record<string, unknown>;
  const unknown = Object.keys(query).find((k) => k !== DRY_RUN_PARAMETER);
  if (unknown !== undefined) throw invalid(`the only parameter is ${DRY_RUN_PARAMETER}, not ${unknown}`);
  const value = query[DRY_RUN_PARAMETER];
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw invalid(`${DRY_RUN_PARAMETER} is true or false`);
}

/**
 * The file of the request and its declared kind (null: decided by its first bytes); from a form,
 * also its `mapping` field (JSON: column header → field name, or '' to leave the column out),
 * which must come before the file.
 */
async function upload(request: FastifyRequest): Promise<{
  stream: AsyncIterable<Uint8Array>;
  declared: TableKind | null;
  mapping?: Record<string, string>;
}> {
  if (request.isMultipart()) {
    let part: Awaited<ReturnType<FastifyRequest['file']>>;
    try {
      part = await request.file();
    } catch (error) {
      throw asProblem(error);
    }
    if (part?.fieldname !== 'file') throw invalid('the form needs the file in a part named file');
    const name = part.filename.toLowerCase();
    const declared: TableKind | null =
      part.mimetype === XLSX_TYPE || name.endsWith('.xlsx')
        ? 'xlsx'
        : part.mimetype === CSV_TYPE || name.endsWith('.csv')
          ? 'csv'
          : null;
    const field = part.fields.mapping;
    const text = field && !Array.isArray(field) && field.type === 'field' ? String(field.value) : undefined;
    return { stream: part.file, declared, ...(text !== undefined ? { mapping: mappingOf(text) } : {}) };
  }
  const type = (request.headers['content-type'] ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
  const declared: TableKind | null | undefined =
    type === CSV_TYPE || type === 'application/csv'
      ? 'csv'
      : type === XLSX_TYPE
        ? 'xlsx'
        : type === 'application/octet-stream'
          ? null
          : undefined;
  const body = request.body as unknown;
  if (declared === undefined || !isStream(body)) {
    throw new ProblemError('UNSUPPORTED_MEDIA_TYPE', { type: ACCEPTED });
  }
  return { stream: body, declared };
}

/** The form's `mapping` field: a JSON object of strings. */
function mappingOf(text: string): Record<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid('mapping must be a JSON object of column headers to field names');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalid('mapping must be a JSON object of column headers to field names');
  }
  const entries = Object.entries(parsed as Record<string, unknown>);
  if (entries.some(([, v]) => typeof v !== 'string')) throw invalid('each field name of mapping is a string');
  return Object.fromEntries(entries) as Record<string, string>;
}

function isStream(body: unknown): body is AsyncIterable<Uint8Array> {
  return typeof body === 'object' && body !== null && Symbol.asyncIterator in body;
}

/** The body, refused past `IMPORT_MAX_BYTES` as it arrives. */
async function* limited(stream: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  let bytes = 0;
  for await (const chunk of stream) {
    bytes += chunk.length;
    if (bytes > IMPORT_MAX_BYTES) throw new ProblemError('PAYLOAD_TOO_LARGE', { limit: IMPORT_MAX_BYTES });
    yield chunk;
  }
}

/** What reading the upload threw, as a problem: the file's own faults, the form's, the size. */
function asProblem(error: unknown): unknown {
  if (error instanceof TableError) return new ProblemError('IMPORT_UNREADABLE', { detail: error.message });
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  if (code === 'FST_REQ_FILE_TOO_LARGE') return new ProblemError('PAYLOAD_TOO_LARGE', { limit: IMPORT_MAX_BYTES });
  if (code.startsWith('FST_')) return invalid('the multipart form could not be read');
  return error;
}

function invalid(detail: string): ProblemError {
  return new ProblemError('INVALID_PAYLOAD', { detail });
}
