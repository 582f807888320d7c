import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { onInterrupt } from './cleanup.ts';

/** A Node process the bench started: its stderr's tail, and a stop that also runs on Ctrl-C. */
export interface BenchChild {
  readonly child: ChildProcess;
  /** Resolves with the exit code when the process ends. */
  readonly exited: Promise<number | null>;
  /** The last 2,000 characters it wrote to stderr (when stderr is piped). */
  stderr(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Runs `node <args>`, pinned to CPU 0 with `taskset` when `pin` is set, so that the servers
 * measured share one core and the load generator has the other.
 */
export function spawnNode(
  args: readonly string[],
  options: { pin: boolean; graceMs?: number } & Pick<SpawnOptions, 'cwd' | 'env' | 'stdio'>,
): BenchChild {
  const { pin, graceMs = 10_000, ...spawnOptions } = options;
  const child = pin
    ? spawn('taskset', ['-c', '0', process.execPath, ...args], spawnOptions)
    : spawn(process.execPath, [...args], spawnOptions);
  let tail = '';
  child.stderr?.on('data', (data: Buffer) => {
    tail = (tail + data.toString()).slice(-2000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async () => {
    forget();
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  const forget = onInterrupt(stop);
  return { child, exited, stderr: () => tail, stop };
}
