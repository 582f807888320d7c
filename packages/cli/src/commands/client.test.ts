import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runIn, SPEC_WITH_ERROR, tempDir } from '../test-support.ts';

const HELPDESK = readFileSync(new URL('../../../../examples/helpdesk.md', import.meta.url), 'utf8');

describe('ninepoint client', () => {
  it('writes the typed client to --out and says what it holds', async () => {
    const dir = tempDir({ 'helpdesk.md': HELPDESK });
    const result = await runIn(dir, ['client', 'helpdesk.md', '--out', 'client.ts']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'Wrote client.ts: 3 entities, 27 calls, 49 error codes.\n' +
        "Use it with: import { createClient } from './client.ts'; const api = createClient({ baseUrl, token });\n",
    );
    const client = readFileSync(join(dir, 'client.ts'), 'utf8');
    expect(client).toMatch(/^\/\/ Written by `ninepoint client helpdesk\.md` from the spec/);
    expect(client).toContain('readonly tickets: TicketsApi;');
  });

  it('prints it without --out', async () => {
    const dir = tempDir({ 'helpdesk.md': HELPDESK });
    const result = await runIn(dir, ['client', 'helpdesk.md']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('export function createClient(options: ClientOptions): Client {');
  });

  it('writes nothing for a spec with errors, and says to check it', async () => {
    const dir = tempDir({ 'spec.md': SPEC_WITH_ERROR });
    const result = await runIn(dir, ['client', 'spec.md', '--out', 'client.ts']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('npx ninepoint check spec.md');
    expect(existsSync(join(dir, 'client.ts'))).toBe(false);
  });
});
