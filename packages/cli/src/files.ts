import { readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { UsageError } from './usage-error.ts';

/** Reads a spec, turning file-system failures into one plain sentence naming the file. */
export async function readSpec(cwd: string, file: string): Promise<string> {
  try {
    return await readFile(resolve(cwd, file), 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${reason(error, file)}`);
  }
}

/** Writes a new file; with `overwrite` false an existing file is left untouched (checked atomically). */
export async function writeNewFile(cwd: string, file: string, text: string, overwrite: boolean): Promise<void> {
  try {
    await writeFile(resolve(cwd, file), text, { encoding: 'utf8', flag: overwrite ? 'w' : 'wx' });
  } catch (error) {
    if (code(error) === 'EEXIST') {
      throw new UsageError(`${file} already exists; pass --force to overwrite it, or name another file.`);
    }
    const why = code(error) === 'ENOENT' ? `the folder ${dirname(file)} does not exist` : reason(error, file);
    throw new UsageError(`cannot write ${file}: ${why}`);
  }
}

function reason(error: unknown, file: string): string {
  switch (code(error)) {
    case 'ENOENT':
      return `no such file or folder (looked in ${dirname(file) === '.' ? 'the current folder' : dirname(file)})`;
    case 'EISDIR':
      return 'it is a folder, not a file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOTDIR':
      return 'a part of the path is a file, not a folder';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}

function code(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}
