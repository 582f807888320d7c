import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { blankSpec } from '@ninepoint/spec';
import { run } from './index.ts';
import type { Io } from './io.ts';

/** What one in-process run printed and returned. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command line in `cwd` with captured output, as a user without a terminal would see it. */
export async function runIn(cwd: string, argv: string[], options: { tty?: boolean; env?: Io['env'] } = {}) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const io: Io = {
    stdout: { write: (text) => void stdout.push(text), isTTY: options.tty === true },
    stderr: { write: (text) => void stderr.push(text), isTTY: options.tty === true },
    cwd,
    env: options.env ?? {},
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
