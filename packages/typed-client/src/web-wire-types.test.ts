import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WEB_WIRE_TYPES, webWireTypes } from './web-wire-types.ts';

describe("the web app's wire types", () => {
  it('are what openapi-typescript makes of the document the server serves now (npm run wire-types)', () => {
    const committed = readFileSync(WEB_WIRE_TYPES, 'utf8');
    expect(committed === webWireTypes(), `${WEB_WIRE_TYPES} is stale: run npm run wire-types`).toBe(true);
  });
});
