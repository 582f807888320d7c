// Writes the web app's wire types (packages/web/src/api/openapi.gen.ts) from the server's OpenAPI
// document; `--check` only says whether the file is up to date (exit 1 when stale).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { WEB_WIRE_TYPES, webWireTypes } from '../packages/typed-client/src/web-wire-types.ts';

const text = webWireTypes();
const current = existsSync(WEB_WIRE_TYPES) ? readFileSync(WEB_WIRE_TYPES, 'utf8') : '';
if (process.argv.includes('--check')) {
  if (current !== text) {
    console.error(`${WEB_WIRE_TYPES} is stale: run npm run wire-types.`);
    process.exit(1);
  }
} else if (current !== text) {
  writeFileSync(WEB_WIRE_TYPES, text);
  console.log(`Wrote ${WEB_WIRE_TYPES}.`);
}
