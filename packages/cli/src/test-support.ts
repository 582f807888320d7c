import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { blankSpec } from '@ninepoint/spec';
import { run } from './index.ts';
import type { Input, Io } from './io.ts';

/** What one in-process run printed and returned. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command line in `cwd` with captured output, as a user without a terminal would see it. */
export async function runIn(
  cwd: string,
  argv: string[],
  options: { tty?: boolean; env?: Io['env']; stdin?: Input } = {},
) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const io: Io = {
    stdout: { write: (text) => void stdout.push(text), isTTY: options.tty === true },
    stderr: { write: (text) => void stderr.push(text), isTTY: options.tty === true },
    cwd,
    env: options.env ?? {},
    ...(options.stdin ? { stdin: options.stdin } : {}),
  };
  const code = await run(argv, io);
  return { code, stdout: stdout.join(''), stderr: stderr.join('') } satisfies RunResult;
}

/** The blank spec with one error: field `copies` has the misspelt type `integr` (line 13, columns 12–17). */
export const SPEC_WITH_ERROR = blankSpec('Lending desk').replace(
  '## 3. Entities and their fields\nNot shown.\n',
  '## 3. Entities and their fields\n### Book\n| field | type | rules |\n|---|---|---|\n| copies | integr | required |\n',
);

/** The blank spec with one unused constant: a warning and no error. */
export const SPEC_WITH_WARNING = blankSpec('Warned').replace(
  '## 9. Business constants and limits\nNot shown.\n',
  '## 9. Business constants and limits\n| name | value | meaning |\n|---|---|---|\n| MAX_LOANS | 5 | books one member may hold |\n',
);

/** A fresh folder holding the given files. */
export function tempDir(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'ninepoint-cli-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

/** Text piped into the command (not a terminal). */
export function piped(text: string): Input {
  return {
    isTTY: false,
    readAll: async () => text,
    readSecret: async () => {
      throw new Error('readSecret called on a pipe');
    },
  };
}

/**
 * A terminal on which the person types these answers, one per prompt (null: they cancel); the
 * prompts it was asked are kept in `prompts`.
 */
export function terminal(...answers: (string | null)[]): Input & { prompts: string[] } {
  const prompts: string[] = [];
  return {
    isTTY: true,
    prompts,
    readAll: async () => {
      throw new Error('readAll called on a terminal');
    },
    readSecret: async (prompt) => {
      prompts.push(prompt);
      if (answers.length === 0) throw new Error(`no answer left for the prompt ${prompt}`);
      return answers.shift() ?? null;
    },
  };
}

/** A `ninepoint` process serving in the background, started by `startBin`. */
export interface RunningBin {
  /** The URL it serves at, from its start-up line. */
  url: string;
  /** Its stdout so far, without JSON log lines (pretty unless `--log-format` is given). */
  stdout(): string;
  /** Its whole stdout so far. */
  raw(): string;
  /** Resolves once stdout (without log lines) matches. */
  waitFor(pattern: RegExp): Promise<void>;
  /** SIGTERM, then its exit code. */
  stop(): Promise<number | null>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Runs the real bin (`serve`, `dev`) in `cwd` until it says where it serves; for commands that
 * keep running, which cannot run in-process. DATABASE_URL is unset unless `env` sets it.
 */
export async function startBin(cwd: string, args: string[], env: Record<string, string> = {}): Promise<RunningBin> {
  const bin = fileURLToPath(new URL('../bin/ninepoint.js', import.meta.url));
  const { DATABASE_URL: _unset, ...inherited } = process.env;
  // Piped stdout logs JSON by default; these tests read the lines a person would.
  const format = args.includes('--log-format') ? [] : ['--log-format', 'pretty'];
  const child = spawn(process.execPath, [bin, ...args, ...format], {
    cwd,
    env: { ...inherited, NO_COLOR: '1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  const text = () =>
    out
      .split('\n')
      .filter((line) => !line.startsWith('{'))
      .join('\n');
  const waitFor = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!pattern.test(text())) return false;
        child.stdout?.off('data', check);
        resolve();
        return true;
      };
      if (check()) return;
      child.stdout?.on('data', check);
      void exited.then((code) => reject(new Error(`ninepoint exited with ${code}:\n${out}\n${err}`)));
    });
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  // The start-up line, printed or (with --log-format json) inside a JSON record.
  const started = /serving \\?"[^"]*" at (http:\/\/[^\s"]+:\d+)/;
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (!started.test(out)) return;
      child.stdout?.off('data', check);
      resolve();
    };
    child.stdout?.on('data', check);
    void exited.then((code) => reject(new Error(`ninepoint exited with ${code}:\n${out}\n${err}`)));
  });
  const url = started.exec(out)?.[1] ?? '';
  return {
    url,
    stdout: text,
    raw: () => out,
    waitFor,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
