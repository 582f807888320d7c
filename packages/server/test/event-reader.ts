/** A server-sent event stream read as it arrives, for the tests of `GET /api/events`. */
export type Body = Record<string, unknown>;

/** A server-sent event stream read as it arrives: its events, its comments, and whether it ended. */
export class EventReader {
  readonly status: number;
  readonly headers: Headers;
  readonly #reader: ReadableStreamDefaultReader<Uint8Array> | null;
  readonly #decoder = new TextDecoder();
  #buffer = '';

  constructor(response: Response) {
    this.status = response.status;
    this.headers = response.headers;
    this.#reader = response.body?.getReader() ?? null;
  }

  /** The next block (an event or a comment), or null when the stream has ended. */
  async block(): Promise<string | null> {
    for (;;) {
      const end = this.#buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        return block;
      }
      const read = await this.#reader?.read();
      if (!read || read.done) return null;
      this.#buffer += this.#decoder.decode(read.value, { stream: true });
    }
  }

  /** The data of the next `change` event, skipping comments; null when the stream ends first. */
  async change(): Promise<Body | null> {
    for (;;) {
      const block = await this.block();
      if (block === null) return null;
      const lines = block.split('\n');
      if (!lines.includes('event: change')) continue;
      const data = lines.find((l) => l.startsWith('data: '));
      return JSON.parse(data?.slice('data: '.length) ?? 'null') as Body;
    }
  }

  async cancel(): Promise<void> {
    await this.#reader?.cancel().catch(() => {});
  }
}

export async function openEvents(base: string, headers: Record<string, string>): Promise<EventReader> {
  return new EventReader(await fetch(`${base}/api/events`, { headers }));
}

/** Resolves to what came first: the next change event (null: the stream ended) or `'still open'` after `ms`. */
export async function nextOrOpen(events: EventReader, ms: number): Promise<Body | null | 'still open'> {
  let timer: NodeJS.Timeout | undefined;
  const open = new Promise<'still open'>((resolve) => {
    timer = setTimeout(() => resolve('still open'), ms);
  });
  try {
    return await Promise.race([events.change(), open]);
  } finally {
    clearTimeout(timer);
  }
}
