import type { EventEmitter } from 'node:events';
import { writeSync } from 'node:fs';
import { hostname } from 'node:os';
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import { LogController } from 'fastify';
import { type Bindings, type ChildLoggerOptions, type Logger, pino } from 'pino';

/** pino's levels, most to least severe, and `silent` (nothing). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `pretty`: one readable line per request, for a person at a terminal; `json`: one JSON object a line, for a collector. */
export const LOG_FORMATS = ['pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** A `LOG_LEVEL` that is not one of `LOG_LEVELS`; its message says which are. */
export class LogLevelError extends Error {
  constructor(value: string) {
    super(`LOG_LEVEL must be ${LOG_LEVELS.slice(0, -1).join(', ')} or silent, not "${value}".`);
    this.name = 'LogLevelError';
  }
}

/** `LOG_LEVEL` as a level: unset or empty is `info`, any case is accepted; anything else throws `LogLevelError`. */
export function parseLogLevel(value: string | undefined): LogLevel {
  const text = value?.trim().toLowerCase() ?? '';
  if (text === '') return 'info';
  const level = LOG_LEVELS.find((l) => l === text);
  if (!level) throw new LogLevelError(value ?? '');
  return level;
}

/** Pretty on a terminal, JSON otherwise (a pipe, a file, a container's log collector). */
export function defaultLogFormat(stdout: { isTTY?: boolean } = process.stdout): LogFormat {
  return stdout.isTTY === true ? 'pretty' : 'json';
}

export interface LoggerOptions {
  level?: LogLevel;
  format?: LogFormat;
  /**
   * Where lines go. Default: stdout, through pino's asynchronous destination for JSON (written
   * without blocking requests, flushed synchronously when the process exits, so no line is lost)
   * and `process.stdout` for pretty lines, so they keep their order with what the command prints
   * there.
   */
  write?: (text: string) => void;
  /** ANSI colours in pretty lines (a terminal that wants them). Default false. */
  color?: boolean;
}

const STDOUT = 1;
const REDACT = ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'];

/**
 * A server's logger: JSON lines or pretty lines on stdout, credentials redacted should a header
 * ever be logged. Pretty lines are formatted in this process by `formatLogLine` (no worker thread,
 * unlike pino-pretty's transport).
 *
 * @example
 * const logger = createLogger({ level: parseLogLevel(process.env.LOG_LEVEL), format: defaultLogFormat() });
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  if ((options.format ?? 'json') === 'json') {
    const given = options.write;
    const destination = given
      ? { write: (line: string) => given(line) }
      : new LineBatch(bufferDestination(STDOUT), STDOUT);
    const logger = pino({ level, redact: REDACT }, destination);
    SINKS.set(logger, {
      write: (line) => void destination.write(line),
      base: `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())}`,
    });
    return logger;
  }
  const out = options.write ?? ((text: string) => void process.stdout.write(text));
  const color = options.color ?? false;
  const write = (line: string) => out(formatLogLine(line, color));
  // pid and hostname say nothing to the person watching one process.
  const logger = pino({ level, redact: REDACT, base: null }, { write });
  SINKS.set(logger, { write, base: '' });
  return logger;
}

/** What `LineBatch` needs of pino's asynchronous destination (a SonicBoom in `contentMode: 'buffer'`). */
interface AsyncDestination {
  write(bytes: Buffer): unknown;
  flush(cb?: (error?: Error) => void): void;
  flushSync(): void;
}

/**
 * pino's asynchronous destination writing buffers to `fd` (SonicBoom's `contentMode: 'buffer'`,
 * which its type declarations leave out: they declare strings only).
 */
export function bufferDestination(fd: number, options: { minLength?: number } = {}): AsyncDestination & EventEmitter {
  return pino.destination({ dest: fd, sync: false, contentMode: 'buffer', ...options } as {
    dest: number;
  }) as unknown as AsyncDestination & EventEmitter;
}

/**
 * Log lines held for up to `HOLD_MS` (or until the batch's buffer is full), then handed to pino's
 * asynchronous destination as one buffer. The destination writes whatever it holds as soon as its
 * last write is done: under load nearly every request line was a write of its own, and an
 * asynchronous write (a hand-over to libuv's thread pool and back) costs about 30 µs of CPU on a
 * 2-vCPU machine, a fifth of a get; held together, a few hundred lines share one. Each line is
 * encoded into the batch's buffer as it comes: held as strings, a batch was joined, measured
 * (`Buffer.byteLength`) and encoded again on its way out, about 2 µs a line (issue 31). Their
 * order is kept. At exit, held lines are written synchronously after what the destination holds
 * (`flushPendingLines`).
 */
export class LineBatch {
  readonly #out: AsyncDestination;
  readonly #fd: number;
  /** The batch being filled: handed over whole, so a new one is taken for the next. */
  #bytes: Buffer | null = null;
  #used = 0;
  /**
   * The next batch's size: doubled when a batch fills before `HOLD_MS` (each hand-over wakes a
   * thread of libuv's pool, and a full 64 KiB batch every few milliseconds under load cost about
   * 0.7 µs a request), halved when one holds less than a quarter of it (an idle server's).
   */
  #size = MIN_BATCH_BYTES;
  #timer: NodeJS.Timeout | null = null;
  readonly #handOver = () => {
    if (this.#used < this.#size / 4) this.#size = Math.max(this.#size / 2, MIN_BATCH_BYTES);
    this.#handOverNow();
  };

  /** `out` writes to the file descriptor `fd`. */
  constructor(out: AsyncDestination, fd: number) {
    this.#out = out;
    this.#fd = fd;
    BATCHES.add(new WeakRef(this));
    if (!exitFlushAdded) {
      exitFlushAdded = true;
      process.on('exit', flushPendingLines);
    }
  }

  write(line: string): void {
    // Three bytes of UTF-8 at most for each UTF-16 unit: room for the line whatever it holds.
    const room = line.length * 3;
    if (room > MAX_BATCH_BYTES) {
      // A line longer than any batch (a large logged object) goes alone, at its own size.
      this.#handOverNow();
      this.#out.write(Buffer.from(line));
      return;
    }
    if (this.#bytes === null || this.#bytes.length - this.#used < room) {
      // Filled before its time: the load asks for larger batches.
      if (this.#bytes !== null && this.#used >= this.#bytes.length / 2) {
        this.#size = Math.min(this.#size * 2, MAX_BATCH_BYTES);
      }
      this.#handOverNow();
      this.#bytes = Buffer.allocUnsafe(Math.max(this.#size, room));
    }
    this.#used += this.#bytes.write(line, this.#used);
    // Not unref'd: a process about to end waits for its last lines (HOLD_MS at most).
    this.#timer ??= setTimeout(this.#handOver, HOLD_MS);
  }

  /** pino's `logger.flush()`: the lines held, then the destination's own. */
  flush(cb?: (error?: Error) => void): void {
    this.#handOverNow();
    this.#out.flush(cb);
  }

  /**
   * Writes what the destination holds, then the lines held here, without waiting: there is no
   * next turn at exit. Handing them to the destination instead would start an asynchronous write
   * that the exit may cut short.
   */
  flushSync(): void {
    try {
      this.#out.flushSync();
    } finally {
      const held = this.#take();
      if (held !== null) writeSync(this.#fd, held);
    }
  }

  #handOverNow(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const held = this.#take();
    if (held !== null) this.#out.write(held);
  }

  #take(): Buffer | null {
    if (this.#bytes === null || this.#used === 0) return null;
    const held = this.#bytes.subarray(0, this.#used);
    this.#bytes = null;
    this.#used = 0;
    return held;
  }
}

/** How long a log line may wait for others to be written with. */
const HOLD_MS = 20;
/**
 * A batch's buffer, at least and at most: lines that would overflow it go with the next one. At
 * most 256 KiB: a larger write to a pipe is more often partial or refused (EAGAIN), and what
 * SonicBoom is still writing when the process exits is not flushed.
 */
const MIN_BATCH_BYTES = 16 * 1024;
const MAX_BATCH_BYTES = 256 * 1024;
const BATCHES = new Set<WeakRef<LineBatch>>();
let exitFlushAdded = false;

/** At exit: every batch's lines, written synchronously. */
function flushPendingLines(): void {
  for (const ref of BATCHES) {
    const batch = ref.deref();
    if (batch === undefined) BATCHES.delete(ref);
    else {
      try {
        batch.flushSync();
      } catch {
        // A destination not yet open or already closed has nowhere to write.
      }
    }
  }
}

/**
 * Where a logger made by `createLogger` writes its JSON lines, and the fields pino puts in each
 * (`base`, as JSON text after `time`): the request line is written there as text, without the
 * serializers, redaction and child logger pino would spend on it.
 */
interface Sink {
  write(line: string): void;
  base: string;
}
const SINKS = new WeakMap<Logger, Sink>();

/**
 * Fastify's options for request logging through `logger`: one line per request
 * (`OneLinePerRequest`), and a request's own logger (`request.log`, which carries its `reqId`) made
 * only when something logs through it, which most requests never do.
 */
export function requestLogging(logger: Logger): Pick<FastifyServerOptions, 'loggerInstance' | 'logController'> {
  return {
    loggerInstance: withLazyChildren(logger) as FastifyBaseLogger,
    logController: new OneLinePerRequest(logger),
  };
}

/**
 * `logger` whose children with bindings (a request's, `{ reqId }`) are `LazyChildLogger`s, and
 * so are theirs. Fastify makes its own logger with `child({}, …)` (made at once: empty bindings)
 * and each request's through the default child factory, which it trusts; a `childLoggerFactory`
 * of our own would have every request's logger checked method by method (about 1 µs a call).
 * Built as pino builds a child (`Object.create` of its parent), so `logger` itself is not changed.
 */
function withLazyChildren(logger: Logger): Logger {
  const pinoChild = logger.child as unknown as PinoChild;
  const lazy = Object.create(logger) as Logger;
  const child: PinoChild = function (this: Logger, bindings, options) {
    if (isEmpty(bindings)) return pinoChild.call(this, bindings, options);
    return new LazyChildLogger(this, bindings, options ?? {}, pinoChild) as unknown as Logger;
  };
  lazy.child = child as unknown as Logger['child'];
  return lazy;
}

/** pino's `child`, called on a logger of ours. */
type PinoChild = (this: Logger, bindings: Bindings, options?: ChildLoggerOptions) => Logger;

function isEmpty(bindings: Bindings): boolean {
  for (const _ in bindings) return false;
  return true;
}

/**
 * A request's logger that becomes pino's child of its parent when first used: pino builds a
 * child's bindings and methods at once, about a twentieth of a get's time when nothing logs.
 */
class LazyChildLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | null = null;
  readonly #parent: Logger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  /** pino's own `child`, called on the parent (whose `child` makes lazy ones). */
  readonly #pinoChild: PinoChild;

  constructor(parent: Logger, bindings: Bindings, options: ChildLoggerOptions, pinoChild: PinoChild) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
    this.#pinoChild = pinoChild;
  }

  get #logger(): FastifyBaseLogger {
    this.#child ??= this.#pinoChild.call(this.#parent, this.#bindings, this.#options) as FastifyBaseLogger;
    return this.#child;
  }

  get level(): string {
    return this.#child?.level ?? this.#options.level ?? this.#parent.level;
  }
  set level(level: string) {
    this.#logger.level = level;
  }
  // Methods on the prototype: a request's logger costs one small object, not a closure per level.
  fatal(...args: unknown[]): void {
    this.#log('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#log('error', args);
  }
  warn(...args: unknown[]): void {
    this.#log('warn', args);
  }
  info(...args: unknown[]): void {
    this.#log('info', args);
  }
  debug(...args: unknown[]): void {
    this.#log('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#log('trace', args);
  }
  silent(): void {}
  #log(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace', args: unknown[]): void {
    const logger = this.#logger;
    (logger[level] as (...args: unknown[]) => void).apply(logger, args);
  }
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger.child(bindings, options);
  }
}

/**
 * Fastify's request logging as one line per request, written when the answer is complete:
 * method, path, status, duration and request id (`reqId`), and the problem code of a refusal.
 * Fastify's own logs two (incoming, completed).
 */
export class OneLinePerRequest extends LogController {
  readonly #logger: Logger | null;
  readonly #sink: Sink | null;

  /** With the logger Fastify was given, a line goes straight to its destination (`createLogger`'s loggers). */
  constructor(logger?: Logger) {
    super();
    this.#logger = logger ?? null;
    this.#sink = (logger && SINKS.get(logger)) ?? null;
  }

  override incomingRequest(): void {}

  #lastTime = 0;
  #lastTimeText = '0';
  /**
   * `Date.now()` as text, made once a millisecond: an epoch in milliseconds is no small integer,
   * and writing one out costs a tenth of a microsecond; a busy server logs dozens of lines a millisecond.
   */
  #time(): string {
    const now = Date.now();
    if (now !== this.#lastTime) {
      this.#lastTime = now;
      this.#lastTimeText = String(now);
    }
    return this.#lastTimeText;
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: Parameters<LogController['requestCompleted']>[1],
    reply: Parameters<LogController['requestCompleted']>[2],
  ): void {
    const code = (request as RefusedRequest)[REFUSED_CODE];
    if (!error && this.#sink && this.#logger) {
      if (!this.#logger.isLevelEnabled('info')) return;
      // What pino would write for the record below, as one string.
      const ip = request.ip;
      this.#sink.write(
        `{"level":30,"time":${this.#time()}${this.#sink.base},"reqId":${jsonString(request.id)},` +
          `"req":{"method":${jsonString(request.method)},"url":${jsonString(redactQuerySecrets(request.url))}` +
          `${ip === undefined ? '' : `,"remoteAddress":${jsonString(ip)}`}},` +
          `"res":{"statusCode":${reply.statusCode}},"responseTime":${milliseconds(reply.elapsedTime)}` +
          `${code === undefined ? '' : `,"code":${jsonString(code)}`},"msg":"request completed"}\n`,
      );
      return;
    }
    const line = {
      // A password reset page is opened with its secret in the query: never logged.
      req: { method: request.method, url: redactQuerySecrets(request.url), remoteAddress: request.ip },
      res: reply,
      responseTime: reply.elapsedTime,
      ...(code === undefined ? {} : { code }),
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

/**
 * A duration in milliseconds as JSON text, to the microsecond (`2.1`, `0.348`, `12`): the shortest
 * text of a measured double has 16 or 17 digits, and working it out cost four times as much.
 */
export function milliseconds(ms: number): string {
  const us = Math.round(ms * 1000);
  if (!Number.isSafeInteger(us) || us < 0) return String(ms);
  const whole = Math.floor(us / 1000);
  let part = us - whole * 1000;
  if (part === 0) return String(whole);
  let width = 3;
  while (part % 10 === 0) {
    part /= 10;
    width -= 1;
  }
  const text = String(part);
  return `${whole}.${'00'.slice(0, width - text.length)}${text}`;
}

/** Printable ASCII but `"` and `\\`: the characters a JSON string holds as they are. */
const JSON_AS_IS = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * `text` as a JSON string: quoted as it is when nothing in it needs escaping (a request id, a
 * method, a path and an address nearly always), else by `JSON.stringify`.
 */
export function jsonString(text: string): string {
  return JSON_AS_IS.test(text) ? `"${text}"` : JSON.stringify(text);
}

/** `/reset-password?token=npr_…` → `/reset-password?token=***`. */
export function redactQuerySecrets(url: string): string {
  if (!url.includes('?')) return url;
  return url.replace(/([?&]token=)[^&#]*/gi, '$1***');
}

const REFUSED_CODE = Symbol('ninepoint.refusedCode');
interface RefusedRequest {
  [REFUSED_CODE]?: string;
}

/** Notes the problem code a request was refused with, for its log line. */
export function noteRefusal(request: object, code: string): void {
  (request as RefusedRequest)[REFUSED_CODE] = code;
}

const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
/** Fields every record has, or that a pretty line shows in its own place. */
const SHOWN = new Set([
  'level',
  'time',
  'pid',
  'hostname',
  'msg',
  'reqId',
  'req',
  'res',
  'responseTime',
  'err',
  'code',
]);

const paint = (on: boolean, ansi: string, text: string) => (on ? `\u001b[${ansi}m${text}\u001b[0m` : text);
// A message or value could hold terminal escapes (a URL is checked by Node's parser, a message is not).
const printable = (text: string) => text.replace(/\p{Cc}/gu, '?');

/**
 * One pino JSON line as a person reads it: `12:04:31 GET /api/books 200 3.1 ms <request id>` for
 * a request, `12:04:31 WARN message key=value` for anything else, an error's stack indented below.
 * A line that is not JSON passes through unchanged.
 */
export function formatLogLine(json: string, color = false): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const time = paint(color, '2', clock(record.time));
  const level = typeof record.level === 'number' ? record.level : 30;
  const reqId = typeof record.reqId === 'string' ? paint(color, '2', record.reqId) : '';
  const req = record.req as { method?: unknown; url?: unknown } | undefined;
  const res = record.res as { statusCode?: unknown } | undefined;
  let head: string;
  if (req && res && typeof record.responseTime === 'number') {
    const status = Number(res.statusCode);
    const statusText = paint(color, status >= 500 ? '31' : status >= 400 ? '33' : '32', String(status));
    const code = typeof record.code === 'string' ? ` ${record.code}` : '';
    head = [
      time,
      printable(`${String(req.method)} ${String(req.url)}`),
      `${statusText}${code}`,
      `${record.responseTime.toFixed(1)} ms`,
      reqId,
    ]
      .filter((part) => part !== '')
      .join(' ');
  } else {
    const name = LEVEL_NAMES[level] ?? String(level);
    const levelText = paint(color, level >= 50 ? '31' : level >= 40 ? '33' : '36', name);
    const extras = Object.entries(record)
      .filter(([key]) => !SHOWN.has(key))
      .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
    if (typeof record.code === 'string') extras.unshift(`code=${record.code}`);
    head = [time, levelText, printable([String(record.msg ?? ''), ...extras].join(' ')), reqId]
      .filter((part) => part !== '')
      .join(' ');
  }
  const err = record.err as { stack?: unknown; message?: unknown } | undefined;
  const detail = err ? String(err.stack ?? err.message ?? '') : '';
  const below = detail
    ? `\n${detail
        .split('\n')
        .map((line) => `    ${printable(line)}`)
        .join('\n')}`
    : '';
  return `${head}${below}\n`;
}

/** Local wall-clock time, `HH:MM:SS`: a terminal is read by someone in its time zone. */
function clock(time: unknown): string {
  const date = new Date(typeof time === 'number' ? time : Date.now());
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}
