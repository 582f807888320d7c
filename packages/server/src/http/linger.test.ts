import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LENDING_DESK, type ListeningServer, listeningServer } from '../../test/helpers.ts';
import { LINGER_MS } from './linger.ts';

const MIB = 1024 * 1024;

/**
 * Opens a connection and sends a POST whose Content-Length promises `length` bytes, and `first` of
 * them. Half-open, as an uploading browser is: the server's FIN does not stop it sending.
 */
function startUpload(port: number, length: number, first: number) {
  const socket: Socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  let text = '';
  /** When the answer's body came: read as it arrives, not when a poll of `text` next looks. */
  let answeredAt = 0;
  const events: string[] = [];
  socket.on('data', (chunk) => {
    text += chunk.toString('latin1');
    if (answeredAt === 0 && text.includes('"code"')) answeredAt = Date.now();
  });
  socket.on('error', (error: NodeJS.ErrnoException) => events.push(`error ${error.code}`));
  socket.on('end', () => events.push('end'));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.write(
    `POST /api/books HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`,
  );
  socket.write(Buffer.alloc(first, 0x20));
  const answered = async () => {
    while (!text.includes('"code"')) await new Promise((resolve) => setTimeout(resolve, 10));
    return text;
  };
  return { socket, events, closed, answered, answeredAt: () => answeredAt };
}

describe('a connection whose body was refused unread', () => {
  let served: ListeningServer;
  let port: number;

  beforeAll(async () => {
    served = await listeningServer(LENDING_DESK);
    port = served.port;
  });
  afterAll(() => served.close());

  it('goes on reading what the client still sends after the 413, so the client is not reset before it reads it', async () => {
    const upload = startUpload(port, 4 * MIB, 2 * MIB);
    expect(await upload.answered()).toMatch(/^HTTP\/1\.1 413 /);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Without lingering the server has destroyed the socket by now, and these bytes are reset.
    await new Promise<void>((resolve, reject) =>
      upload.socket.write(Buffer.alloc(2 * MIB, 0x20), (error) => (error ? reject(error) : resolve())),
    );
    upload.socket.end();
    await upload.closed;
    expect(upload.events).toEqual(['end']);
  });

  it('is closed by the server LINGER_MS after the answer when the client sends nothing more', async () => {
    const upload = startUpload(port, 4 * MIB, 2 * MIB);
    await upload.answered();
    // Taken when the answer arrived: a poll that looks late (a loaded machine's timers) would start
    // the count late, and the linger would seem short (1,497 ms seen against 2,000).
    const answeredAt = upload.answeredAt();
    const connections = () =>
      new Promise<number>((resolve, reject) =>
        served.server.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
      );
    while ((await connections()) > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(Date.now() - answeredAt).toBeGreaterThanOrEqual(LINGER_MS - 100);
    upload.socket.destroy();
  });
});
