import type { Socket } from 'node:net';

/** How long, at most, a connection whose body was refused unread goes on reading after the answer. */
export const LINGER_MS = 2000;

/**
 * Lets the client read a refusal of a body the server did not read to the end (too large, not
 * JSON, not UTF-8) before the connection closes, as nginx's "lingering close" does.
 *
 * Fastify answers such a request with `Connection: close`, and Node then destroys the socket as
 * soon as the answer is written. The client is still sending its body; the kernel answers those
 * bytes with a reset, and a reset discards whatever the client had not read yet: the answer.
 * Measured with a 4 MB Content-Length body against `ninepoint serve` in another process, one
 * client in three got a reset and no 413. So instead the socket sends its FIN and goes on reading
 * (Node's HTTP parser drops the rest of the body) until the client closes its side, or
 * `LINGER_MS` pass, or the server closes.
 */
export function lingerBeforeClose(socket: Socket): void {
  const closable = socket as Socket & { destroySoon?: () => void };
  if (typeof closable.destroySoon !== 'function') return;
  closable.destroySoon = () => {
    if (socket.destroyed) return;
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    socket.once('end', () => socket.destroy());
    socket.end();
  };
}
