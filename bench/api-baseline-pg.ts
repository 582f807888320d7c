// The API benchmark's PostgreSQL baseline: the same Order calls as api-baseline.ts, written by hand
// with Fastify and node-postgres the way a careful developer would: one pool (as many connections
// as the generated server's), named prepared statements, the API token looked up with the same two
// point reads, one transaction per create (BEGIN, the customer checked, the record and its history
// row, COMMIT: the generated server's round trips). Values come back as the generated server gives
// them (integers and decimals as numbers, dates as text, times as ISO 8601), so answers compare equal.
import { createHash } from 'node:crypto';
import type { ErrorObject } from 'ajv';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import {
  COLUMNS,
  CREATE_ORDER_SCHEMA,
  decodeCursor,
  encodeCursor,
  MAX_PAGE_SIZE,
  type OrderBody,
  PAGE_SIZE,
  PROBLEM,
  problem,
  RATE_LIMIT_PER_MINUTE,
  SELECT,
  SYSTEM_FIELDS,
  TOKEN,
  UUID,
  uuidv7,
} from './api-baseline.ts';

/** The generated server's pool size (`PgStoreOptions.poolSize`'s default). */
const POOL_SIZE = 10;

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
  express: boolean | null;
  note: string | null;
}

const PARSERS = new Map<number, (text: string) => unknown>([
  [pg.types.builtins.INT8, Number],
  [pg.types.builtins.NUMERIC, Number],
  [pg.types.builtins.DATE, (text: string) => text],
  [
    pg.types.builtins.TIMESTAMPTZ,
    (text: string) => (pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ)(text) as Date).toISOString(),
  ],
]);
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    PARSERS.get(oid) ?? pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

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
    express: row.express,
    note: row.note,
  };
}

const pgCode = (error: unknown): string =>
  typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';

/** The hand-written server on an existing PostgreSQL schema (its tables made by the generated server). */
export function createPgBaseline(databaseUrl: string, { auth = true }: { auth?: boolean } = {}): FastifyInstance {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: POOL_SIZE, types });
  // An idle connection the server drops must not crash the process; the next query reconnects.
  pool.on('error', () => {});

  const byId = { name: 'bl_order', text: `${SELECT} WHERE "id" = $1` };
  const firstPage = { name: 'bl_first_page', text: `${SELECT} ORDER BY "created_at", "id" LIMIT $1` };
  const nextPage = {
    name: 'bl_next_page',
    text: `${SELECT} WHERE ("created_at", "id") > ($1, $2) ORDER BY "created_at", "id" LIMIT $3`,
  };
  const customerExists = { name: 'bl_customer', text: 'SELECT 1 FROM "customers" WHERE "id" = $1' };
  const insertOrder = {
    name: 'bl_insert',
    text: `INSERT INTO "orders" (${COLUMNS.map((c) => `"${c}"`).join(', ')}) VALUES (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`,
  };
  const insertHistory = {
    name: 'bl_history',
    text: `INSERT INTO "_ninepoint_history" ("entity", "record_id", "at", "by", "action", "transition", "from_state", "to_state", "changes", "before") VALUES ('Order', $1, $2, $3, 'create', NULL, NULL, NULL, $4, '{}')`,
  };
  const tokenRow = {
    name: 'bl_token',
    text: `SELECT "user_id" FROM "_ninepoint_tokens" WHERE "token_hash" = $1 AND "revoked_at" IS NULL`,
  };
  const userRow = { name: 'bl_user', text: `SELECT "id", "roles" FROM "_ninepoint_users" WHERE "id" = $1` };

  const tokenUser = async (hash: string): Promise<{ id: string; roles: string } | undefined> => {
    const token = (await pool.query<{ user_id: string }>({ ...tokenRow, values: [hash] })).rows[0];
    if (!token) return undefined;
    return (await pool.query<{ id: string; roles: string }>({ ...userRow, values: [token.user_id] })).rows[0];
  };

  /** Writes the order and its history row in one transaction; false when its customer does not exist. */
  const create = async (row: OrderRow, changes: string): Promise<boolean> => {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const customer = await client.query({ ...customerExists, values: [row.customer] });
      if (customer.rowCount === 0) {
        await client.query('ROLLBACK');
        return false;
      }
      await client.query({ ...insertOrder, values: COLUMNS.map((c) => row[c]) });
      await client.query({ ...insertHistory, values: [row.id, row.created_at, row.created_by, changes] });
      await client.query('COMMIT');
      return true;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: unknown) => {
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      });
      throw error;
    } finally {
      // A connection that could not roll back is closed, not given to the next request.
      client.release(broken);
    }
  };

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
    await pool.end();
  });

  // Every call needs an API token; every user may make RATE_LIMIT_PER_MINUTE calls a minute.
  let window = 0;
  const calls = new Map<string, number>();
  app.decorateRequest('user', null);
  if (auth)
    app.addHook('onRequest', async (request, reply) => {
      const secret = TOKEN.exec(request.headers.authorization ?? '')?.[1];
      const found = secret ? await tokenUser(createHash('sha256').update(secret).digest('hex')) : undefined;
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
    const row = UUID.test(id) ? (await pool.query<OrderRow>({ ...byId, values: [id] })).rows[0] : undefined;
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
      rows = (await pool.query<OrderRow>({ ...firstPage, values: [limit + 1] })).rows;
    } else {
      const after = typeof cursor === 'string' ? decodeCursor(cursor) : null;
      if (!after) return bad('cursor is not one this list gave');
      rows = (await pool.query<OrderRow>({ ...nextPage, values: [after[0], after[1], limit + 1] })).rows;
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
      express: body.express === undefined ? false : body.express,
      note: body.note ?? null,
    };
    const record = toApi(row);
    const { id: _id, created_at: _c, updated_at: _u, created_by: _b, ...changes } = record;
    const unknownCustomer = () => {
      const message = 'There is no Customer with this id.';
      return reply
        .code(422)
        .type(PROBLEM)
        .send(problem(422, 'UNKNOWN_REFERENCE', message, [{ field: 'customer', code: 'UNKNOWN_REFERENCE', message }]));
    };
    try {
      if (!(await create(row, JSON.stringify(changes)))) return unknownCustomer();
    } catch (error) {
      // The customer went away between the check and the insert: the foreign key answers.
      if (pgCode(error) === '23503') return unknownCustomer();
      if (pgCode(error) !== '23505') throw error;
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
