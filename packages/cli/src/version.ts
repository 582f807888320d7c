import { readFileSync } from 'node:fs';

/** Read from package.json, so `--version` cannot drift from what npm installed. */
export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
