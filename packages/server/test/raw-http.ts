import { connect } from 'node:net';

/** Writes `request` on a new connection and reads until the server closes it (or 10 s pass). */
export function rawExchange(
  port: number,
  request: string,
): Promise<{ text: string; ms: number; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let closedByServer = true;
    const timer = setTimeout(() => {
      closedByServer = false;
      socket.destroy();
    }, 10_000);
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, ms: Date.now() - started, closedByServer });
    });
    socket.write(request);
  });
}

/** The JSON body of a raw HTTP answer. */
export const problemOf = (text: string) =>
  JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
