// What the benchmark must undo even when it is interrupted (Ctrl-C, a SIGTERM from a CI runner):
// finally blocks do not run when a signal ends the process, and a PostgreSQL schema or a server
// process outlives it. Each resource registers its undo here and forgets it once undone. The
// signal handlers are installed only while something is pending, so that otherwise a signal does
// what it would have done (a test runner stopping its worker, say).

type Undo = () => void | Promise<void>;

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
const pending = new Set<Undo>();

/** Runs `undo` if the process is interrupted before the returned function is called. */
export function onInterrupt(undo: Undo): () => void {
  if (pending.size === 0) for (const signal of SIGNALS) process.on(signal, interrupted);
  pending.add(undo);
  return () => {
    if (pending.delete(undo) && pending.size === 0) uninstall();
  };
}

function uninstall(): void {
  for (const signal of SIGNALS) process.off(signal, interrupted);
}

function interrupted(signal: NodeJS.Signals): void {
  process.stderr.write(`\n${signal}: cleaning up ${pending.size} benchmark resource(s)…\n`);
  const undos = [...pending];
  pending.clear();
  uninstall();
  void Promise.allSettled(undos.map(async (undo) => undo())).then(() => {
    // Ends the process as the signal would have without these handlers.
    process.kill(process.pid, signal);
  });
}
