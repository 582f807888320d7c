import { USERS_TABLE } from '../store/users-table.ts';

/** Every notification and call a committed write set off, one row each, kept after delivery. */
export const DELIVERIES_TABLE = '_ninepoint_deliveries';
/** The in-app notification list: one row per user told. */
export const NOTIFICATIONS_TABLE = '_ninepoint_notifications';

/**
 * Like the auth tables: the same DDL on both databases (TEXT and BIGINT; times in milliseconds
 * since 1970, except `at`, the write's own ISO 8601 time). A delivery is `pending` until it is
 * `delivered`, or `dead` once its retry window is over; `claimed_until` is the lease a server holds
 * while it delivers (see `deliveries-store.ts`). `item` is the declaration's stable key
 * (`outgoingKey`), never its place in point 7.
 */
export const OUTBOX_DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS "${DELIVERIES_TABLE}" (
  "id" TEXT PRIMARY KEY,
  "kind" TEXT NOT NULL,
  "item" TEXT NOT NULL,
  "target" TEXT NOT NULL,
  "event" TEXT NOT NULL,
  "entity" TEXT NOT NULL,
  "record_id" TEXT NOT NULL,
  "transition" TEXT,
  "by" TEXT,
  "at" TEXT NOT NULL,
  "record" TEXT NOT NULL,
  "status" TEXT NOT NULL,
  "attempts" BIGINT NOT NULL,
  "next_at" BIGINT NOT NULL,
  "claimed_until" BIGINT,
  "last_code" BIGINT,
  "last_error" TEXT,
  "last_at" BIGINT
)`,
  `CREATE INDEX IF NOT EXISTS "${DELIVERIES_TABLE}_due_idx" ON "${DELIVERIES_TABLE}" ("status", "next_at")`,
  // No query reads deliveries by "at" (the list goes by id), and every write with a notification or
  // a call paid for keeping this index: dropped where an earlier version made it.
  `DROP INDEX IF EXISTS "${DELIVERIES_TABLE}_at_idx"`,
  `CREATE TABLE IF NOT EXISTS "${NOTIFICATIONS_TABLE}" (
  "id" TEXT PRIMARY KEY,
  "user_id" TEXT NOT NULL REFERENCES "${USERS_TABLE}" ("id") ON DELETE CASCADE,
  "delivery_id" TEXT NOT NULL,
  "entity" TEXT NOT NULL,
  "record_id" TEXT NOT NULL,
  "subject" TEXT NOT NULL,
  "text" TEXT NOT NULL,
  "at" BIGINT NOT NULL,
  "read_at" BIGINT,
  UNIQUE ("delivery_id", "user_id")
)`,
  `CREATE INDEX IF NOT EXISTS "${NOTIFICATIONS_TABLE}_user_idx" ON "${NOTIFICATIONS_TABLE}" ("user_id", "at")`,
];

/** The columns a write fills, in `WriteFollower` order (the rest start empty). */
export const DELIVERY_INSERT_COLUMNS = [
  'id',
  'kind',
  'item',
  'target',
  'event',
  'entity',
  'record_id',
  'transition',
  'by',
  'at',
  'record',
  'status',
  'attempts',
  'next_at',
] as const;
