import { connect } from 'node:net';

/**
 * HTTP/1.1 over a bare `node:net` socket, for requests `fetch` will not send: lying lengths,
 * invalid UTF-8 in the request line, oversized headers, malformed framing, clients that trickle.
 */

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawExchange {
  /** Every complete response read from the connection, in order. */
  responses: RawResponse[];
  /** Who ended the connection: the server (end or reset), or the client when `timeoutMs` passed first. */
  closedBy: 'server' | 'client';
  /** Milliseconds from connecting to the end of the connection. */
  ms: number;
  /** Bytes of the request written before the connection ended. */
  written: number;
  /** A socket error (ECONNRESET, EPIPE), if one ended the connection. */
  error: string | null;
}

export interface ExchangeOptions {
  /** Give up (and close from this side) after this long. Default 10 s. */
  timeoutMs?: number;
  /** Write the request in pieces this far apart (a slow client); default: all at once. */
  intervalMs?: number;
  /** The size of each piece when `intervalMs` is given. Default 1 byte. */
  pieceBytes?: number;
}

/**
 * Sends `request` on a new connection to 127.0.0.1:`port` and reads until the server closes the
 * connection (or `timeoutMs` passes). The request is sent whole, or a piece every `intervalMs`.
 */
export function exchange(port: number, request: string | Buffer, options: ExchangeOptions = {}): Promise<RawExchange> {
  const bytes = typeof request === 'string' ? Buffer.from(request, 'latin1') : request;
  const timeoutMs = options.timeoutMs ?? 10_000;
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let written = 0;
    let error: string | null = null;
    let closedBy: 'server' | 'client' = 'server';
    let trickle: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      closedBy = 'client';
      socket.destroy();
    }, timeoutMs);
    socket.on('data', (chunk) => received.push(chunk));
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error = e.code ?? e.message;
    });
    socket.on('close', () => {
      clearTimeout(timer);
      clearInterval(trickle);
      resolve({
        responses: parseResponses(Buffer.concat(received)),
        closedBy,
        ms: Date.now() - started,
        written,
        error,
      });
    });
    socket.on('connect', () => {
      if (options.intervalMs === undefined) {
        written = bytes.length;
        socket.write(bytes);
        return;
      }
      const piece = options.pieceBytes ?? 1;
      trickle = setInterval(() => {
        if (written >= bytes.length || socket.destroyed) return clearInterval(trickle);
        socket.write(bytes.subarray(written, written + piece));
        written = Math.min(bytes.length, written + piece);
      }, options.intervalMs);
    });
  });
}

/** Splits the bytes read from a connection into responses (Content-Length or chunked bodies). */
export function parseResponses(data: Buffer): RawResponse[] {
  const responses: RawResponse[] = [];
  let at = 0;
  while (at < data.length) {
    const headEnd = data.indexOf('\r\n\r\n', at);
    if (headEnd < 0) break;
    const [statusLine = '', ...lines] = data.subarray(at, headEnd).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    let bodyStart = headEnd + 4;
    let body: Buffer;
    if (headers['transfer-encoding']?.includes('chunked')) {
      const parts: Buffer[] = [];
      for (;;) {
        const sizeEnd = data.indexOf('\r\n', bodyStart);
        if (sizeEnd < 0) break;
        const size = Number.parseInt(data.subarray(bodyStart, sizeEnd).toString('latin1'), 16);
        bodyStart = sizeEnd + 2;
        if (!(size > 0)) {
          bodyStart += 2;
          break;
        }
        parts.push(data.subarray(bodyStart, bodyStart + size));
        bodyStart += size + 2;
      }
      body = Buffer.concat(parts);
    } else {
      const length = Number(headers['content-length'] ?? 0);
      body = data.subarray(bodyStart, bodyStart + length);
      bodyStart += length;
    }
    responses.push({ status, headers, body: body.toString('utf8') });
    at = bodyStart;
  }
  return responses;
}

/** A request's head: request line, Host, the given headers, and `Connection: close` unless given. */
export function head(requestLine: string, headers: Record<string, string | number> = {}): string {
  const lines = [requestLine, 'Host: 127.0.0.1'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (!Object.keys(headers).some((h) => h.toLowerCase() === 'connection')) lines.push('Connection: close');
  return `${lines.join('\r\n')}\r\n\r\n`;
}
