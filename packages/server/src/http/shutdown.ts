import type { Logger } from 'pino';

export interface ShutdownOptions {
  signals?: readonly NodeJS.Signals[];
  logger?: Logger;
  /** Ends the process; tests pass their own. */
  exit?: (code: number) => void;
}

/**
 * Closes the server on SIGTERM or SIGINT: requests under way finish, then the database closes,
 * then the process exits 0 (1 when closing failed). A second signal exits at once.
 * Returns a function that removes the handlers.
 */
export function closeOnSignals(server: { close(): Promise<void> }, options: ShutdownOptions = {}): () => void {
  const { signals = ['SIGTERM', 'SIGINT'], logger, exit = (code: number) => process.exit(code) } = options;
  let closing = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (closing) {
      logger?.warn({ signal }, 'second signal: exiting without waiting');
      exit(1);
      return;
    }
    closing = true;
    logger?.info({ signal }, 'shutting down');
    server.close().then(
      () => exit(0),
      (error: unknown) => {
        logger?.error({ err: error }, 'shutdown failed');
        exit(1);
      },
    );
  };
  for (const signal of signals) process.on(signal, onSignal);
  return () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
}
