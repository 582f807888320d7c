import { readSecretFrom } from './terminal-input.ts';

/** Where a command writes; a process stream, or a string buffer in tests. */
export interface Output {
  write(text: string): void;
  /** Colours are used only on a terminal. */
  isTTY?: boolean;
}

/** Where a command reads what is piped in or typed; a process's stdin, or a script of answers in tests. */
export interface Input {
  /** True on a terminal, where a password is asked for without echo. */
  isTTY?: boolean;
  /** Everything until the end of input (a pipe or a file). */
  readAll(): Promise<string>;
  /**
   * On a terminal: shows the prompt and reads one line without echoing it. Null when the person
   * cancels (Ctrl-C, or Ctrl-D on an empty line).
   */
  readSecret(prompt: string): Promise<string | null>;
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
  /** Absent: nothing to read, and no terminal to ask on. */
  stdin?: Input;
}

/** The real process's streams, folder and environment. */
export function processIo(): Io {
  return {
    stdout: { write: (text) => void process.stdout.write(text), isTTY: process.stdout.isTTY === true },
    stderr: { write: (text) => void process.stderr.write(text), isTTY: process.stderr.isTTY === true },
    cwd: process.cwd(),
    env: process.env,
    stdin: processStdin(),
  };
}

/** Colour only for people: on a terminal, unless NO_COLOR asks otherwise (https://no-color.org). */
export function wantsColor(output: Output, env: Io['env']): boolean {
  return output.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}

/** The process's stdin as an `Input`; `process.stdin` is touched only when a command reads it. */
export function processStdin(): Input {
  return {
    get isTTY() {
      return process.stdin.isTTY === true;
    },
    async readAll() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      return Buffer.concat(chunks).toString('utf8');
    },
    readSecret(prompt) {
      return readSecretFrom(process.stdin, { write: (text) => void process.stderr.write(text) }, prompt);
    },
  };
}
