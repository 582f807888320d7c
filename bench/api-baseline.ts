// The API benchmark's baseline: the Order calls of `api-bench.spec.md` written by hand, the way a
// careful developer would with Fastify and better-sqlite3 (prepared statements, a hand-written
// JSON Schema for the create body, one transaction per create). It opens a database laid out by
// the generated server and does the same work: the caller's API token looked up (its SHA-256) on
// every call and counted against a per-minute limit, the same answers (every field, an ETag on
// get, a cursor on list), the record and its history row written together.
import { createHash, randomFillSync } from 'node:crypto';
import type { ErrorObject } from 'ajv';
import Database from 'better-sqlite3';
import Fastify, { type FastifyInstance } from 'fastify';

export const PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const PROBLEM = 'application/problem+json; charset=utf-8';
export const RATE_LIMIT_PER_MINUTE = 1_000_000;
export const SYSTEM_FIELDS = ['id', 'created_at', 'updated_at', 'created_by'];
export const TOKEN = /^Bearer\s+(npt_[A-Za-z0-9_-]{43})\s*$/i;

declare module 'fastify' {
  interface FastifyRequest {
    /** The user whose token the call carries. */
    user: { id: string; roles: string[] } | null;
  }
}

export const COLUMNS = [
  'id',
  'created_at',
  'updated_at',
  'created_by',
  '_version',
  'customer',
  'number',
  'item',
  'quantity',
  'unit_price',
  'ordered_on',
  'ship_by',
  'express',
  'note',
] as const;
export const SELECT = `SELECT ${COLUMNS.map((c) => `"${c}"`).join(', ')} FROM "orders"`;

interface OrderRow {
  id: string;
  created_at: string;
  updated_at: string;
  created_by: string | null;
  _version: number;
  customer: string;
  number: string;
  item: string;
  quantity: number;
  unit_price: number;
  ordered_on: string;
  ship_by: string;
  express: number | null;
  note: string | null;
}

export interface OrderBody {
  customer: string;
  number: string;
  item: string;
  quantity?: number;
  unit_price: number;
  ordered_on?: string;
  ship_by: string;
  express?: boolean | null;
  note?: string | null;
}

/** The create body, written by hand: the same constraints as the spec's Order. */
export const CREATE_ORDER_SCHEMA = {
  type: 'object',
  properties: {
    customer: { type: 'string', format: 'uuid' },
    number: { type: 'string', pattern: '^ORD-[0-9]{6,10}$' },
    item: { type: 'string', minLength: 1, maxLength: 200 },
    quantity: { type: 'integer', minimum: 1, maximum: 1000 },
    unit_price: { type: 'number', minimum: 0.01, maximum: 10000, multipleOf: 0.01 },
    ordered_on: { type: 'string', format: 'date' },
    ship_by: { type: 'string', format: 'date' },
    express: { type: ['boolean', 'null'] },
    note: { type: ['string', 'null'], maxLength: 500 },
  },
  required: ['customer', 'number', 'item', 'unit_price', 'ship_by'],
  additionalProperties: false,
} as const;

function toApi(row: OrderRow) {
  return {
    id: row.id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    created_by: row.created_by,
    customer: row.customer,
    number: row.number,
    item: row.item,
    quantity: row.quantity,
    unit_price: row.unit_price,
    ordered_on: row.ordered_on,
    ship_by: row.ship_by,
    express: row.express === null ? null : row.express !== 0,
    note: row.note,
  };
}

export function problem(status: number, code: string, detail: string, errors?: unknown[]) {
  return JSON.stringify({ type: `/problems/${code.toLowerCase()}`, title: code, status, code, detail, errors });
}

/**
 * The hand-written server on an existing database (its tables made by the generated server).
 * `auth: false` makes it the floor (issue 31): no token, no rate limit, the same reads and writes,
 * what a visitor's or a session's call costs at the least.
 */
export function createBaseline(dbPath: string, { auth = true }: { auth?: boolean } = {}): FastifyInstance {
  const db = new Database(dbPath, { timeout: 5000 });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');

  const byId = db.prepare<[string], OrderRow>(`${SELECT} WHERE "id" = ?`);
  const firstPage = db.prepare<[number], OrderRow>(`${SELECT} ORDER BY "created_at", "id" LIMIT ?`);
  const nextPage = db.prepare<[string, string, number], OrderRow>(
    `${SELECT} WHERE ("created_at", "id") > (?, ?) ORDER BY "created_at", "id" LIMIT ?`,
  );
  const customerExists = db.prepare<[string], unknown>('SELECT 1 FROM "customers" WHERE "id" = ?');
  const insertOrder = db.prepare(
    `INSERT INTO "orders" (${COLUMNS.map((c) => `"${c}"`).join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`,
  );
  const insertHistory = db.prepare(
    `INSERT INTO "_ninepoint_history" ("entity", "record_id", "at", "by", "action", "transition", "from_state", "to_state", "changes", "before") VALUES ('Order', ?, ?, ?, 'create', NULL, NULL, NULL, ?, '{}')`,
  );
  // Two point reads (the token by its unique hash, then its user), not a join, which
  // better-sqlite3's STAT4 build would prepare again at every run (docs/benchmarks.md). The runtime
  // reads both in one statement, the user's columns as subqueries on its primary key.
  const tokenRow = db.prepare<[string], { user_id: string }>(
    `SELECT "user_id" FROM "_ninepoint_tokens" WHERE "token_hash" = ? AND "revoked_at" IS NULL`,
  );
  const userRow = db.prepare<[string], { id: string; roles: string }>(
    `SELECT "id", "roles" FROM "_ninepoint_users" WHERE "id" = ?`,
  );
  const tokenUser = {
    get(hash: string): { id: string; roles: string } | undefined {
      const token = tokenRow.get(hash);
      return token ? userRow.get(token.user_id) : undefined;
    },
  };
  const create = db.transaction((row: OrderRow, changes: string): boolean => {
    if (customerExists.get(row.customer) === undefined) return false;
    insertOrder.run(
      row.id,
      row.created_at,
      row.updated_at,
      row.created_by,
      row._version,
      row.customer,
      row.number,
      row.item,
      row.quantity,
      row.unit_price,
      row.ordered_on,
      row.ship_by,
      row.express,
      row.note,
    );
    insertHistory.run(row.id, row.created_at, row.created_by, changes);
    return true;
  });

  const app = Fastify({
    logger: false,
    ajv: {
      customOptions: {
        allErrors: true,
        coerceTypes: false,
        useDefaults: false,
        removeAdditional: false,
        multipleOfPrecision: 9,
      },
    },
  });
  app.addHook('onClose', async () => {
    db.close();
  });

  // Every call needs an API token; every user may make RATE_LIMIT_PER_MINUTE calls a minute.
  let window = 0;
  const calls = new Map<string, number>();
  app.decorateRequest('user', null);
  if (auth)
    app.addHook('onRequest', async (request, reply) => {
      const secret = TOKEN.exec(request.headers.authorization ?? '')?.[1];
      const found = secret ? tokenUser.get(createHash('sha256').update(secret).digest('hex')) : undefined;
      if (!found) {
        return reply
          .code(401)
          .type(PROBLEM)
          .send(problem(401, 'NOT_SIGNED_IN', 'Sign in, or send an API token.'));
      }
      request.user = { id: found.id, roles: JSON.parse(found.roles) as string[] };
      const minute = Math.floor(Date.now() / 60_000);
      if (minute !== window) {
        window = minute;
        calls.clear();
      }
      const made = calls.get(found.id) ?? 0;
      if (made >= RATE_LIMIT_PER_MINUTE) {
        return reply
          .code(429)
          .type(PROBLEM)
          .send(problem(429, 'RATE_LIMITED', 'Too many calls: wait a minute.'));
      }
      calls.set(found.id, made + 1);
    });

  app.get<{ Params: { id: string } }>('/api/orders/:id', async (request, reply) => {
    const id = request.params.id.toLowerCase();
    const row = UUID.test(id) ? byId.get(id) : undefined;
    if (!row)
      return reply
        .code(404)
        .type(PROBLEM)
        .send(problem(404, 'NOT_FOUND', 'That Order does not exist.'));
    return reply.header('etag', `"${row._version}"`).send(toApi(row));
  });

  app.get<{ Querystring: Record<string, string | string[] | undefined> }>('/api/orders', async (request, reply) => {
    const { limit: limitText, cursor, ...rest } = request.query;
    const bad = (detail: string) =>
      reply
        .code(400)
        .type(PROBLEM)
        .send(problem(400, 'INVALID_PAYLOAD', detail));
    if (Object.keys(rest).length > 0) return bad('unknown query parameter');
    let limit = PAGE_SIZE;
    if (limitText !== undefined) {
      if (typeof limitText !== 'string' || !/^\d{1,4}$/.test(limitText)) return bad('limit must be a whole number');
      limit = Number(limitText);
      if (limit < 1 || limit > MAX_PAGE_SIZE) return bad(`limit must be from 1 to ${MAX_PAGE_SIZE}`);
    }
    let rows: OrderRow[];
    if (cursor === undefined || cursor === '') {
      rows = firstPage.all(limit + 1);
    } else {
      const after = typeof cursor === 'string' ? decodeCursor(cursor) : null;
      if (!after) return bad('cursor is not one this list gave');
      rows = nextPage.all(after[0], after[1], limit + 1);
    }
    const more = rows.length > limit;
    if (more) rows.pop();
    const last = rows.at(-1);
    return reply.send({
      items: rows.map(toApi),
      next: more && last ? encodeCursor(last.created_at, last.id) : null,
    });
  });

  app.post<{ Body: OrderBody }>('/api/orders', { schema: { body: CREATE_ORDER_SCHEMA } }, async (request, reply) => {
    const body = request.body;
    const ms = Date.now();
    const at = new Date(ms).toISOString();
    const orderedOn = body.ordered_on ?? at.slice(0, 10);
    if (body.ship_by < orderedOn) {
      const message = `An order cannot ship before it was ordered (${orderedOn}).`;
      return reply
        .code(422)
        .type(PROBLEM)
        .send(problem(422, 'VALIDATION_FAILED', message, [{ field: 'ship_by', code: 'SHIP_BEFORE_ORDER', message }]));
    }
    const row: OrderRow = {
      id: uuidv7(ms),
      created_at: at,
      updated_at: at,
      created_by: request.user?.id ?? null,
      _version: 1,
      customer: body.customer,
      number: body.number,
      item: body.item,
      quantity: body.quantity ?? 1,
      unit_price: body.unit_price,
      ordered_on: orderedOn,
      ship_by: body.ship_by,
      express: body.express === undefined ? 0 : body.express === null ? null : body.express ? 1 : 0,
      note: body.note ?? null,
    };
    const record = toApi(row);
    const { id: _id, created_at: _c, updated_at: _u, created_by: _b, ...changes } = record;
    try {
      if (!create.immediate(row, JSON.stringify(changes))) {
        const message = 'There is no Customer with this id.';
        return reply
          .code(422)
          .type(PROBLEM)
          .send(
            problem(422, 'UNKNOWN_REFERENCE', message, [{ field: 'customer', code: 'UNKNOWN_REFERENCE', message }]),
          );
      }
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_CONSTRAINT_UNIQUE') throw error;
      const message = 'Another Order has this number.';
      return reply
        .code(409)
        .type(PROBLEM)
        .send(problem(409, 'NOT_UNIQUE', message, [{ field: 'number', code: 'NOT_UNIQUE', message }]));
    }
    return reply.code(201).header('location', `/api/orders/${row.id}`).header('etag', '"1"').send(record);
  });

  app.setErrorHandler((error: Error & { validation?: ErrorObject[]; statusCode?: number }, _request, reply) => {
    if (error.validation) {
      // A field the entity does not have is a malformed call; a system field, a value that does not fit.
      const unknown = error.validation.find(
        (e) => e.keyword === 'additionalProperties' && !SYSTEM_FIELDS.includes(String(e.params.additionalProperty)),
      );
      if (unknown)
        return reply
          .code(400)
          .type(PROBLEM)
          .send(problem(400, 'INVALID_PAYLOAD', error.message));
      return reply
        .code(422)
        .type(PROBLEM)
        .send(problem(422, 'VALIDATION_FAILED', error.message, error.validation));
    }
    const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 500;
    return reply
      .code(status)
      .type(PROBLEM)
      .send(problem(status, 'ERROR', error.message));
  });
  return app;
}

/** `[sort, value, id]` as base64url JSON: the generated API's cursor format, so one URL pages both. */
export function encodeCursor(createdAt: string, id: string): string {
  return Buffer.from(JSON.stringify(['created_at', createdAt, id])).toString('base64url');
}

export function decodeCursor(cursor: string): [string, string] | null {
  if (cursor.length > 4096 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(decoded) || decoded.length !== 3 || decoded[0] !== 'created_at') return null;
    const [, value, id] = decoded as unknown[];
    return typeof value === 'string' && typeof id === 'string' ? [value, id] : null;
  } catch {
    return null;
  }
}

const random = new Uint8Array(10);
let lastMs = 0;
let counter = 0;

/** A time-ordered id (UUID version 7), so new rows append to the primary-key index as the generated API's do. */
export function uuidv7(now: number): string {
  randomFillSync(random);
  if (now > lastMs) {
    lastMs = now;
    counter = (random[0] as number) & 0x7ff;
  } else if (++counter > 0xfff) {
    lastMs++;
    counter = 0;
  }
  const hex = lastMs.toString(16).padStart(12, '0');
  const r = Buffer.from(random).toString('hex');
  const variant = (0x80 | ((random[2] as number) & 0x3f)).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8)}-7${counter.toString(16).padStart(3, '0')}-${variant}${r.slice(6, 8)}-${r.slice(8, 20)}`;
}
