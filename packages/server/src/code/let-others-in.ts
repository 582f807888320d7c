/**
 * Lets the event loop turn before a module's in-process call. On SQLite an injected call never
 * waits for I/O, so a module's loop of 20,000 gets held the loop for 2.6–3.2 s, answering no
 * other request, while each call's deferred work (its `setImmediate`s) piled up: 204 MB of heap
 * still held after a full collection. With one turn per call nothing was held and the loop took
 * 2.4 s.
 */
export function letOthersIn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
