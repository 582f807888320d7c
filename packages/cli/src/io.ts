/** Where a command writes; a process stream, or a string buffer in tests. */
export interface Output {
  write(text: string): void;
  /** Colours are used only on a terminal. */
  isTTY?: boolean;
}

/**
 * Everything a command touches outside its arguments, passed in rather than read from `process`,
 * so tests run commands in-process and see exactly what a user would see.
 */
export interface Io {
  stdout: Output;
  stderr: Output;
  /** Relative file arguments are resolved against this. */
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
}

/** The real process's streams, folder and environment. */
export function processIo(): Io {
  return {
    stdout: { write: (text) => void process.stdout.write(text), isTTY: process.stdout.isTTY === true },
    stderr: { write: (text) => void process.stderr.write(text), isTTY: process.stderr.isTTY === true },
    cwd: process.cwd(),
    env: process.env,
  };
}

/** Colour only for people: on a terminal, unless NO_COLOR asks otherwise (https://no-color.org). */
export function wantsColor(output: Output, env: Io['env']): boolean {
  return output.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}
