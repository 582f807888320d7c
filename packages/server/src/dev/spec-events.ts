import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StudioStatus } from '@ninepoint/spec';

/** Where open pages learn that the spec changed: `GET` it as a server-sent event stream. */
export const SPEC_EVENTS_PATH = '/api/dev/events';

/** A comment line every so often keeps proxies and idle timeouts from closing a quiet stream. */
const KEEP_ALIVE_MS = 25_000;

/**
 * The server-sent event streams of the pages open on a dev server. Each gets the current status
 * when it connects and every status after, as an event named `spec`. The streams outlive the
 * app that answers calls, which is replaced at every re-apply.
 */
export class SpecEvents {
  readonly #clients = new Set<ServerResponse>();
  readonly #timer: NodeJS.Timeout;
  #last: StudioStatus;
  #closed = false;

  constructor(initial: StudioStatus) {
    this.#last = initial;
    this.#timer = setInterval(() => {
      for (const client of this.#clients) client.write(': keep-alive\n\n');
    }, KEEP_ALIVE_MS);
    this.#timer.unref();
  }

  /** Answers a request for the stream, and keeps it open until the page goes away. */
  attach(request: IncomingMessage, response: ServerResponse): void {
    if (this.#closed) {
      // The server is closing: a stream opened now would keep it from closing. 204 tells an
      // EventSource not to reconnect.
      response.writeHead(204).end();
      return;
    }
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      connection: 'keep-alive',
    });
    response.write(event(this.#last));
    this.#clients.add(response);
    request.on('close', () => this.#clients.delete(response));
  }

  /** Sends a status to every open page. */
  publish(status: StudioStatus): void {
    this.#last = status;
    const data = event(status);
    for (const client of this.#clients) client.write(data);
  }

  /** Ends every stream (the server is closing). */
  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    for (const client of this.#clients) client.end();
    this.#clients.clear();
  }

  /** The status last sent. */
  get status(): StudioStatus {
    return this.#last;
  }

  /** How many pages are listening. */
  get size(): number {
    return this.#clients.size;
  }
}

function event(status: StudioStatus): string {
  return `event: spec\ndata: ${JSON.stringify(status)}\n\n`;
}
