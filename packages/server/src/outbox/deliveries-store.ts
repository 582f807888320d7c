import type { SqlRunner } from '../store/sql-runner.ts';
import { DELIVERIES_TABLE, DELIVERY_INSERT_COLUMNS, NOTIFICATIONS_TABLE, OUTBOX_DDL } from './outbox-tables.ts';

export type DeliveryStatus = 'pending' | 'delivered' | 'dead';

/** A delivery as the store holds it (the record as JSON text). */
export interface DeliveryRow {
  id: string;
  kind: 'call' | 'mail';
  /** The notification's or call's stable key (`outgoingKey`). */
  item: string;
  target: string;
  event: string;
  entity: string;
  record_id: string;
  transition: string | null;
  by: string | null;
  at: string;
  record: string;
  status: DeliveryStatus;
  attempts: number;
  next_at: number;
  claimed_until: number | null;
  last_code: number | null;
  last_error: string | null;
  last_at: number | null;
}

/** A delivery as `GET /api/deliveries` answers it: never the record's values. */
export interface Delivery {
  id: string;
  kind: 'call' | 'mail';
  target: string;
  event: string;
  entity: string;
  recordId: string;
  transition: string | null;
  /** ISO 8601: when the change was made. */
  at: string;
  status: DeliveryStatus;
  attempts: number;
  lastCode: number | null;
  lastError: string | null;
  lastAt: string | null;
  /** When it is tried next; null once delivered or dead. */
  nextAt: string | null;
}

/** One entry of a user's notification list. */
export interface InAppNotification {
  id: string;
  entity: string;
  recordId: string;
  subject: string;
  text: string;
  at: string;
  read: boolean;
}

const D = `"${DELIVERIES_TABLE}"`;
const N = `"${NOTIFICATIONS_TABLE}"`;

/** One attempt as `DeliveriesStore.settle` records it: `error` null when delivered; `next` null when dead. */
export interface SettledAttempt {
  id: string;
  at: number;
  code: number | null;
  error: string | null;
  next: number | null;
}

/** A user's notification, as a delivery adds it to their list. */
export interface NewNotification {
  id: string;
  userId: string;
  deliveryId: string;
  entity: string;
  recordId: string;
  subject: string;
  text: string;
  at: number;
}

interface QueuedNotification {
  n: NewNotification;
  resolve: (added: boolean) => void;
  reject: (error: unknown) => void;
}

/** The most notifications one statement adds. */
const NOTIFICATION_CHUNK = 32;

/** The most deliveries one settling statement marks delivered. */
const SETTLE_CHUNK = 32;
// By id alone: with `"status" = 'pending'` beside it SQLite walks the due index over every pending
// delivery, so each settling would cost as much as the whole backlog.
const SETTLE_DELIVERED = `UPDATE ${D} SET "status" = 'delivered', "claimed_until" = NULL, "last_code" = ?, "last_error" = NULL, "last_at" = ? WHERE "id" IN (${Array.from({ length: SETTLE_CHUNK }, () => '?').join(', ')})`;
const iso = (ms: number | string | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

/** A stored row with BIGINTs as numbers (PostgreSQL answers them as strings without a parser). */
function normal(row: DeliveryRow): DeliveryRow {
  const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    ...row,
    item: String(row.item),
    attempts: Number(row.attempts),
    next_at: Number(row.next_at),
    claimed_until: n(row.claimed_until),
    last_code: n(row.last_code),
    last_at: n(row.last_at),
  };
}

export function deliveryOf(row: DeliveryRow): Delivery {
  const r = normal(row);
  return {
    id: r.id,
    kind: r.kind,
    target: r.target,
    event: r.event,
    entity: r.entity,
    recordId: r.record_id,
    transition: r.transition,
    at: r.at,
    status: r.status,
    attempts: r.attempts,
    lastCode: r.last_code,
    lastError: r.last_error,
    lastAt: iso(r.last_at),
    nextAt: r.status === 'pending' ? iso(Math.max(r.next_at, r.claimed_until ?? 0)) : null,
  };
}

/**
 * The outbox's deliveries and the in-app notification lists, on either database. Rows are added
 * by the writes themselves (`outboxFollower`); this claims, settles and lists them.
 *
 * Claiming is one statement: the due rows, oldest first, get a lease (`claimed_until`) and one
 * more attempt. On PostgreSQL the rows are picked `FOR UPDATE SKIP LOCKED`, so two servers
 * claiming at once take different rows and neither waits; a server that dies holding a lease
 * leaves its rows to be claimed again once the lease is over (a documented duplicate). On SQLite
 * one server delivers, in-process, and a start frees every lease left by the last run.
 */
export class DeliveriesStore {
  readonly #sql: SqlRunner;
  /** Notifications waiting to be added together (`addNotification`). */
  #queued: QueuedNotification[] = [];

  constructor(sql: SqlRunner) {
    this.#sql = sql;
  }

  async setUp(): Promise<void> {
    await this.#sql.exec(OUTBOX_DDL);
  }

  /** Adds deliveries outside a record's write (a scheduled job's calls), in `DELIVERY_INSERT_COLUMNS` order. */
  async add(rows: readonly (readonly unknown[])[]): Promise<void> {
    const columns = DELIVERY_INSERT_COLUMNS.map((c) => `"${c}"`).join(', ');
    const marks = DELIVERY_INSERT_COLUMNS.map(() => '?').join(', ');
    for (const row of rows) await this.#sql.run(`INSERT INTO ${D} (${columns}) VALUES (${marks})`, row);
  }

  /**
   * At a server's start on SQLite (one server per database): whatever the last run held was cut
   * off by its end, so its leases are freed. Not for tools opening the database beside a server.
   */
  async freeLeases(): Promise<void> {
    if (this.#sql.dialect === 'sqlite') {
      await this.#sql.run(
        `UPDATE ${D} SET "claimed_until" = NULL WHERE "status" = 'pending' AND "claimed_until" IS NOT NULL`,
      );
    }
  }

  /** Claims up to `limit` due deliveries until `leaseUntil`, counting an attempt on each. */
  async claim(now: number, leaseUntil: number, limit: number): Promise<DeliveryRow[]> {
    const skipLocked = this.#sql.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
    const rows = await this.#sql.all<DeliveryRow>(
      `UPDATE ${D} SET "claimed_until" = ?, "attempts" = "attempts" + 1 WHERE "id" IN (
  SELECT "id" FROM ${D} WHERE "status" = 'pending' AND "next_at" <= ? AND ("claimed_until" IS NULL OR "claimed_until" < ?)
  ORDER BY "next_at", "id" LIMIT ?${skipLocked}
) RETURNING *`,
      [leaseUntil, now, now, limit],
    );
    return rows.map(normal).sort((a, b) => a.next_at - b.next_at || a.id.localeCompare(b.id));
  }

  /**
   * Settles a batch of attempts: the delivered ones in one statement per answer code (up to
   * `SETTLE_CHUNK` at a time: on SQLite each statement is a commit of its own, so one per
   * delivery was most of a delivery's cost), each failed one on its own (`failed`).
   */
  async settle(attempts: readonly SettledAttempt[]): Promise<void> {
    const delivered = new Map<number | null, SettledAttempt[]>();
    for (const attempt of attempts) {
      if (attempt.error !== null) {
        await this.failed(attempt.id, attempt.at, attempt.code, attempt.error, attempt.next);
        continue;
      }
      const same = delivered.get(attempt.code);
      if (same) same.push(attempt);
      else delivered.set(attempt.code, [attempt]);
    }
    for (const [code, group] of delivered) {
      for (let i = 0; i < group.length; i += SETTLE_CHUNK) {
        const chunk = group.slice(i, i + SETTLE_CHUNK);
        // Always SETTLE_CHUNK ids (the last repeated): one statement text, prepared once.
        const ids = Array.from({ length: SETTLE_CHUNK }, (_, j) => (chunk[j] ?? chunk[chunk.length - 1])?.id);
        const at = Math.max(...chunk.map((a) => a.at));
        await this.#sql.run(SETTLE_DELIVERED, [code, at, ...ids]);
      }
    }
  }

  /** A failed attempt: tried again at `nextAt`, or dead when `nextAt` is null. */
  async failed(id: string, at: number, code: number | null, error: string, nextAt: number | null): Promise<void> {
    await this.#sql.run(
      `UPDATE ${D} SET "status" = ?, "claimed_until" = NULL, "next_at" = ?, "last_code" = ?, "last_error" = ?, "last_at" = ? WHERE "id" = ? AND "status" = 'pending'`,
      [nextAt === null ? 'dead' : 'pending', nextAt ?? at, code, error.slice(0, 500), at, id],
    );
  }

  /** "Retry now": a pending or dead delivery is due at once; a delivered one stays as it is. */
  async retryNow(id: string, now: number): Promise<DeliveryRow | undefined | 'delivered'> {
    const found = await this.get(id);
    if (!found) return undefined;
    if (found.status === 'delivered') return 'delivered';
    await this.#sql.run(
      `UPDATE ${D} SET "status" = 'pending', "next_at" = ?, "claimed_until" = NULL WHERE "id" = ? AND "status" <> 'delivered'`,
      [now, id],
    );
    return this.get(id);
  }

  async get(id: string): Promise<DeliveryRow | undefined> {
    const row = await this.#sql.get<DeliveryRow>(`SELECT * FROM ${D} WHERE "id" = ?`, [id]);
    return row ? normal(row) : undefined;
  }

  /** Newest first; `before` is the id of the last one of the previous page. */
  async list(options: { status: DeliveryStatus | null; limit: number; before: string | null }): Promise<DeliveryRow[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (options.status) {
      where.push('"status" = ?');
      params.push(options.status);
    }
    if (options.before) {
      where.push('"id" < ?');
      params.push(options.before);
    }
    params.push(options.limit);
    const rows = await this.#sql.all<DeliveryRow>(
      `SELECT * FROM ${D}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY "id" DESC LIMIT ?`,
      params,
    );
    return rows.map(normal);
  }

  /** Counts by status, for the screen's tabs and the CLI. */
  async counts(): Promise<Record<DeliveryStatus, number>> {
    const rows = await this.#sql.all<{ status: DeliveryStatus; n: number | string }>(
      `SELECT "status", count(*) AS "n" FROM ${D} GROUP BY "status"`,
    );
    const counts = { pending: 0, delivered: 0, dead: 0 };
    for (const row of rows) counts[row.status] = Number(row.n);
    return counts;
  }

  /**
   * Adds a user's notification once: a retried delivery does not add it twice. True when added.
   * The notifications added in one turn of the event loop (a batch's deliveries) go in together,
   * a statement for up to `NOTIFICATION_CHUNK` of them; when one such statement fails, each of its
   * notifications is tried alone, so one that cannot be added does not hold back the others.
   */
  addNotification(n: NewNotification): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#queued.push({ n, resolve, reject });
      if (this.#queued.length === 1) setImmediate(() => void this.#addQueued());
    });
  }

  async #addQueued(): Promise<void> {
    const queued = this.#queued;
    this.#queued = [];
    for (let i = 0; i < queued.length; ) {
      // Chunks of 32, 16, …, 1: a handful of statement texts, each prepared once.
      let size = NOTIFICATION_CHUNK;
      while (size > queued.length - i) size /= 2;
      const chunk = queued.slice(i, i + size);
      i += size;
      try {
        await this.#insertNotifications(chunk);
      } catch (error) {
        if (chunk.length === 1) {
          chunk[0]?.reject(error);
          continue;
        }
        for (const one of chunk) await this.#insertNotifications([one]).catch(one.reject);
      }
    }
  }

  async #insertNotifications(chunk: readonly QueuedNotification[]): Promise<void> {
    const marks = chunk.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ');
    const params = chunk.flatMap(({ n }) => [
      n.id,
      n.userId,
      n.deliveryId,
      n.entity,
      n.recordId,
      n.subject,
      n.text,
      n.at,
    ]);
    const added = await this.#sql.all<{ id: string }>(
      `INSERT INTO ${N} ("id", "user_id", "delivery_id", "entity", "record_id", "subject", "text", "at") VALUES ${marks}
ON CONFLICT ("delivery_id", "user_id") DO NOTHING RETURNING "id"`,
      params,
    );
    const ids = new Set(added.map((row) => row.id));
    for (const { n, resolve } of chunk) resolve(ids.has(n.id));
  }

  /** A user's newest notifications and how many of all theirs are unread. */
  async notifications(userId: string, limit: number): Promise<{ items: InAppNotification[]; unread: number }> {
    const rows = await this.#sql.all<{
      id: string;
      entity: string;
      record_id: string;
      subject: string;
      text: string;
      at: number | string;
      read_at: number | string | null;
    }>(
      `SELECT "id", "entity", "record_id", "subject", "text", "at", "read_at" FROM ${N} WHERE "user_id" = ? ORDER BY "at" DESC, "id" DESC LIMIT ?`,
      [userId, limit],
    );
    const unread = await this.#sql.get<{ n: number | string }>(
      `SELECT count(*) AS "n" FROM ${N} WHERE "user_id" = ? AND "read_at" IS NULL`,
      [userId],
    );
    return {
      items: rows.map((r) => ({
        id: r.id,
        entity: r.entity,
        recordId: r.record_id,
        subject: r.subject,
        text: r.text,
        at: iso(r.at) as string,
        read: r.read_at !== null,
      })),
      unread: Number(unread?.n ?? 0),
    };
  }

  /** Marks one of the user's notifications read, or all of them when `id` is null; how many changed. */
  async markRead(userId: string, id: string | null, at: number): Promise<number> {
    return id === null
      ? this.#sql.run(`UPDATE ${N} SET "read_at" = ? WHERE "user_id" = ? AND "read_at" IS NULL`, [at, userId])
      : this.#sql.run(`UPDATE ${N} SET "read_at" = ? WHERE "user_id" = ? AND "id" = ? AND "read_at" IS NULL`, [
          at,
          userId,
          id,
        ]);
  }
}
