import { PassThrough } from 'node:stream';
import type { RuntimeSettings } from '@ninepoint/spec';
import type { FastifyInstance } from 'fastify';
import type { Actor, EntityPermissions } from '../compile/permissions.ts';
import { ProblemError } from '../compile/problems.ts';
import type { ApiRecord } from '../compile/record-types.ts';
import { covers, coversEveryRecord } from '../compile/row-access.ts';
import { type AuthStore, type Credential, requestCredential, SESSIONS_TABLE, TOKENS_TABLE } from '../people/index.ts';
import { replayHistory } from '../store/history.ts';
import { type SettledReads, settle } from '../store/settle-reads.ts';
import type { IdentityChange } from '../store/sql-runner.ts';
import type { Store } from '../store/store.ts';
import type { Change, ChangeFeed } from './change-feed.ts';

/** Where a signed-in user's pages hear of changes to records they may read. */
export const LIVE_EVENTS_PATH = '/api/events';
/** A comment this often keeps proxies and idle timeouts from closing a quiet stream; sessions are checked as often. */
export const HEARTBEAT_MS = 25_000;
/**
 * How often a SQLite server looks whether another process wrote to its file (a deactivation at the
 * terminal), while a stream is open: a look is one `PRAGMA data_version` (about 7 µs), so a
 * deactivation ends streams within a fifth of a second for 0.004 % of a core.
 */
export const ELSEWHERE_MS = 200;
/** Open streams one user may have (tabs, devices); one more is refused with RATE_LIMITED. */
export const MAX_STREAMS_PER_USER = 8;
/** What a stream may hold unread before it is cut off. */
const MAX_BUFFERED_BYTES = 256 * 1024;
/** How long a browser waits before reconnecting a dropped stream (the stream's `retry:`). */
const RECONNECT_MS = 3_000;

export interface LiveOptions {
  store: Store;
  auth: AuthStore;
  feed: ChangeFeed;
  permissions: ReadonlyMap<string, EntityPermissions>;
  settings: Readonly<RuntimeSettings>;
  now?: () => number;
  /** For tests; defaults `HEARTBEAT_MS` and `MAX_STREAMS_PER_USER`. */
  heartbeatMs?: number;
  /** How often SQLite is asked whether another process wrote to it (default `ELSEWHERE_MS`). */
  elsewhereMs?: number;
  maxStreamsPerUser?: number;
}

/** A committed change as the HTTP layer knows it: with the record (after it, or before a delete). */
export interface LocalChange extends Change {
  record: ApiRecord;
  /** The transition taken, for a `transition` change (point 7's hooks on `Entity: transition`). */
  transition?: string;
  /** Who made it: a user's id, the system's, or null for a visitor (for point 7's `after` hooks). */
  by?: string | null;
}

export interface LiveEvents {
  /** Tells the streams (and the other servers) of a committed change. */
  committed(change: LocalChange): void;
  /** Tells a user's open pages, on every server, that they have a new in-app notification. */
  notified(userId: string): void;
  /** Ends every open stream; browsers reconnect (to the app that serves then). */
  endStreams(): void;
  /** Ends the streams opened with this session or token (a sign-out, people's `PeopleEvents`). */
  signedOut(credential: Credential): void;
  /** Tells every server's streams of this user that their account changed (roles, status). */
  accountChanged(userId: string): void;
}

/** One open stream: whose it is and how they proved it, so it ends with their session. */
interface Stream {
  actor: Actor;
  credential: Credential;
  out: PassThrough;
}

/**
 * Serves `GET /api/events`: a server-sent event stream for the signed-in user, on which each
 * committed create, update, transition or delete of a record they may read (after the change; for
 * a delete, before it) arrives as an event `change` with `{entity, id, kind, at}`. Whether a
 * subscriber may read the record is decided as a get decides it (point 6's grants, `own via`
 * chains), once per distinct user and roles, with the records a chain goes through read once per
 * change whatever the number of subscribers. Changes made on other servers of the same PostgreSQL
 * database arrive through the feed; their record is read once.
 *
 * Streams end when the session or token that opened them ends, when their user is deactivated
 * and when the server closes; a change of the user's roles applies from the next change on. At
 * once on every server, whoever made the change: on PostgreSQL the identity tables' trigger tells
 * every server of any write to users, sessions or tokens (bare SQL included); on SQLite the
 * server sees another process's commit within `ELSEWHERE_MS`. Otherwise (a session that merely
 * expires), at the next heartbeat. An update of fields hidden from a user (`read except (…)`) is
 * not told to them: the event would say that a field they cannot see changed.
 * Returns what the entity routes call after a write has committed, and a way to end every stream.
 */
export function registerLiveEvents(app: FastifyInstance, options: LiveOptions): LiveEvents {
  const { store, auth, feed, permissions, settings } = options;
  const now = options.now ?? Date.now;
  const maxPerUser = options.maxStreamsPerUser ?? MAX_STREAMS_PER_USER;
  const idleMs = settings.SESSION_IDLE_MINUTES * 60_000;
  const streams = new Set<Stream>();
  let closing = false;

  /** Local changes carry their record; a remote one is read once here, for all subscribers. */
  const records = new Map<Change, ApiRecord>();
  let queue: Promise<void> = Promise.resolve();
  const unsubscribe = feed.subscribe((change) => {
    if (streams.size === 0) {
      records.delete(change);
      return;
    }
    // One change at a time: a stream hears a record's changes in the order they were made.
    queue = queue
      .then(() => dispatch(change))
      .catch((error: unknown) => app.log.error({ err: error }, 'could not send a live update'))
      .finally(() => records.delete(change));
  });

  const dispatch = async (change: Change): Promise<void> => {
    if (change.kind === 'notification') {
      const data = `event: notification\ndata: ${JSON.stringify({ at: change.at })}\n\n`;
      for (const stream of streams) if (stream.actor.userId === change.id) send(stream, data);
      return;
    }
    // In the queue, so the changes after it are sent (or not) by the user's new roles.
    if (change.kind === 'account') {
      await recheck((stream) => stream.actor.userId === change.id);
      return;
    }
    const entity = permissions.get(change.entity);
    if (!entity) return;
    let record: ApiRecord | undefined | null = records.get(change);
    const reads: SettledReads = new Map();
    const groups = new Map<string, Stream[]>();
    for (const stream of streams) {
      const key = `${stream.actor.userId}\u0000${stream.actor.roles.join('\u0000')}`;
      const group = groups.get(key);
      if (group) group.push(stream);
      else groups.set(key, [stream]);
    }
    const data = `event: change\ndata: ${JSON.stringify({
      entity: change.entity,
      id: change.id,
      kind: change.kind,
      at: change.at,
    })}\n\n`;
    // An update of fields some role does not see: those it hides them from hear nothing of it.
    const written = change.kind === 'update' && entity.listsFields ? change.fields : undefined;
    for (const group of groups.values()) {
      const actor = (group[0] as Stream).actor;
      const grants = entity.grants(actor, 'read');
      if (grants.length === 0) continue;
      if (!coversEveryRecord(grants) || written !== undefined) {
        record ??= (await readRecord(store, change)) ?? null;
        if (record === null) continue;
        const seen = record;
        if (!(await settle((load) => covers(grants, seen, actor.userId, load), store, reads))) continue;
        if (written !== undefined) {
          const hidden = await settle((load) => entity.hiddenOn(actor, seen, load), store, reads);
          if (written.every((field) => hidden.has(field))) continue;
        }
      }
      for (const stream of group) send(stream, data);
    }
  };

  // A client that stops reading would make its stream's buffer grow without end: it is cut off
  // (its browser reconnects and refetches, as after any drop).
  const send = (stream: Stream, data: string) => {
    if (stream.out.writableLength > MAX_BUFFERED_BYTES) end(stream);
    else stream.out.write(data);
  };

  const end = (stream: Stream) => {
    if (!streams.delete(stream)) return;
    stream.out.end();
  };

  // Every heartbeat: a comment on each stream, and each credential checked once, however many streams use it.
  const heartbeat = setInterval(() => {
    for (const stream of streams) send(stream, ': keep-alive\n\n');
    void recheck().catch((error: unknown) => app.log.warn({ err: error }, 'could not check live streams’ sessions'));
  }, options.heartbeatMs ?? HEARTBEAT_MS);
  heartbeat.unref();

  // Another process (`ninepoint users deactivate` at the terminal) wrote to SQLite's file: its
  // streams' users and credentials are looked at again at once, not at the next heartbeat. One
  // look at a counter of SQLite's, while any stream is open; PostgreSQL hears it through the feed.
  const elsewhere = store.changedElsewhere
    ? setInterval(() => {
        if (streams.size === 0 || !store.changedElsewhere?.()) return;
        void recheck().catch((error: unknown) =>
          app.log.warn({ err: error }, 'could not check live streams’ sessions'),
        );
      }, options.elsewhereMs ?? ELSEWHERE_MS)
    : null;
  elsewhere?.unref();

  // PostgreSQL: a write to users, sessions or tokens by any writer (this server, another, the
  // terminal, bare SQL) is heard a moment after its commit; the streams it may end or demote are
  // checked then, in the queue, so the changes sent after it go by the new roles. Notifications
  // heard while a check waits its turn join it: a burst of writes costs one look per credential.
  let waiting: ((stream: Stream) => boolean)[] | null = null;
  const MAX_PICKS = 100;
  const unwatch = store.sql.onIdentityChange?.((change) => {
    if (streams.size === 0 || closing) return;
    const which = affectedBy(change);
    if (waiting !== null) {
      // Past a hundred, one look at every stream costs less than asking each of them every pick.
      if (waiting.length < MAX_PICKS) waiting.push(which);
      else waiting.splice(0, waiting.length, () => true);
      return;
    }
    const picks = [which];
    waiting = picks;
    queue = queue
      .then(() => {
        waiting = null;
        return recheck((stream) => picks.some((pick) => pick(stream)));
      })
      .catch((error: unknown) => app.log.warn({ err: error }, 'could not check live streams’ sessions'));
  });

  /** Checks the credentials of the streams `which` picks (every one by default) and takes up their roles. */
  const recheck = async (which: (stream: Stream) => boolean = () => true) => {
    const byCredential = new Map<string, Stream[]>();
    for (const stream of streams) {
      if (!which(stream)) continue;
      const key = `${stream.credential.kind}:${stream.credential.hash}`;
      byCredential.set(key, [...(byCredential.get(key) ?? []), stream]);
    }
    for (const group of byCredential.values()) {
      const { kind, hash } = (group[0] as Stream).credential;
      const at = now();
      let user: { id: string; roles: readonly string[] } | undefined;
      if (kind === 'session') {
        const session = await auth.sessions.get(hash);
        if (session && at < session.expiresAt && at - session.lastSeenAt < idleMs) user = session.user;
      } else {
        user = (await auth.tokens.user(hash))?.user;
      }
      for (const stream of group) {
        // A role taken away applies to the next change; a user gone ends the stream.
        if (user === undefined || user.id !== stream.actor.userId) end(stream);
        else stream.actor = { userId: user.id, roles: user.roles };
      }
    }
  };

  app.get(LIVE_EVENTS_PATH, async (request, reply) => {
    const { actor } = request;
    const credential = requestCredential(request);
    if (actor.userId === null || credential === null) throw new ProblemError('NOT_SIGNED_IN');
    // A server closing sends no new stream: 204 tells a browser's EventSource not to reconnect here.
    if (closing) return reply.code(204).send();
    let open = 0;
    for (const stream of streams) if (stream.actor.userId === actor.userId) open++;
    if (open >= maxPerUser) {
      throw new ProblemError(
        'RATE_LIMITED',
        {},
        { detail: `At most ${maxPerUser} live update streams may be open per user; close a tab or two.` },
      );
    }
    const out = new PassThrough();
    const stream: Stream = { actor: { userId: actor.userId, roles: actor.roles }, credential, out };
    streams.add(stream);
    reply.raw.on('close', () => end(stream));
    // The first bytes send the headers at once; `retry` is how long a browser waits to reconnect.
    out.write(`retry: ${RECONNECT_MS}\n: connected\n\n`);
    return (
      reply
        .header('content-type', 'text/event-stream; charset=utf-8')
        .header('cache-control', 'no-cache, no-transform')
        // nginx and other proxies would otherwise hold events back in their buffers.
        .header('x-accel-buffering', 'no')
        .send(out)
    );
  });

  // Before the server stops taking requests, so that it does not wait on streams that never end.
  app.addHook('preClose', (done) => {
    closing = true;
    clearInterval(heartbeat);
    if (elsewhere) clearInterval(elsewhere);
    for (const stream of streams) end(stream);
    done();
  });
  app.addHook('onClose', async () => {
    unsubscribe();
    unwatch?.();
    await queue;
    await feed.close();
  });

  return {
    committed(change) {
      const { record, ...told } = change;
      // The feed hands this very object to the listener above, which finds the record by it.
      records.set(told, record);
      feed.publish(told);
    },
    notified(userId) {
      feed.publish({ entity: '', id: userId, kind: 'notification', at: new Date().toISOString() });
    },
    endStreams() {
      for (const stream of streams) end(stream);
    },
    // Sign-out ends the session's streams at once; sign-outs on other servers are seen at the next
    // heartbeat. A change of a user's roles or a deactivation is told to every server at once, whose
    // streams of that user then end or take up the new roles.
    signedOut(credential) {
      for (const stream of streams) if (stream.credential.hash === credential.hash) end(stream);
    },
    accountChanged(userId) {
      feed.publish({ entity: '', id: userId, kind: 'account', at: new Date(now()).toISOString() });
    },
  };
}

/**
 * The streams a write to the identity tables may end or demote: those of the users it names (all,
 * when it names none), and of a session's or token's write, only the streams opened with one.
 */
function affectedBy({ table, users }: IdentityChange): (stream: Stream) => boolean {
  const kind = table === SESSIONS_TABLE ? 'session' : table === TOKENS_TABLE ? 'token' : null;
  const named = users === undefined ? null : new Set(users);
  return (stream) =>
    (kind === null || stream.credential.kind === kind) &&
    (named === null || (stream.actor.userId !== null && named.has(stream.actor.userId)));
}

/** The record a change is about: as it is now, or as its history last held it when deleted. */
async function readRecord(store: Store, change: Change): Promise<ApiRecord | undefined> {
  const records = store.records(change.entity);
  if (change.kind !== 'delete') return (await records.get(change.id))?.record;
  const history = await records.history(change.id);
  return history.length === 0 ? undefined : replayHistory(history);
}
