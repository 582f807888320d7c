import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { blankSpec } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { runIn, tempDir } from '../test-support.ts';

describe('ninepoint new', () => {
  it('writes the blank spec to spec.md by default and prints the next command', async () => {
    const dir = tempDir();
    const result = await runIn(dir, ['new']);
    expect(result.code).toBe(0);
    expect(readFileSync(join(dir, 'spec.md'), 'utf8')).toBe(blankSpec('New product'));
    expect(result.stdout).toContain('Wrote spec.md');
    expect(result.stdout).toContain('npx ninepoint check spec.md');
  });

  it('writes to the named file with the product name from --name as its title', async () => {
    const dir = tempDir();
    const result = await runIn(dir, ['new', 'desk.md', '--name', 'Lending desk']);
    expect(result.code).toBe(0);
    expect(readFileSync(join(dir, 'desk.md'), 'utf8')).toBe(blankSpec('Lending desk'));
  });

  it('refuses to overwrite an existing file, leaving it untouched, and exits 2', async () => {
    const dir = tempDir({ 'spec.md': 'my work' });
    const result = await runIn(dir, ['new']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('spec.md already exists; pass --force');
    expect(readFileSync(join(dir, 'spec.md'), 'utf8')).toBe('my work');
  });

  it('overwrites an existing file with --force', async () => {
    const dir = tempDir({ 'spec.md': 'my work' });
    expect((await runIn(dir, ['new', '--force'])).code).toBe(0);
    expect(readFileSync(join(dir, 'spec.md'), 'utf8')).toBe(blankSpec());
  });

  it('exits 2 with one plain line when the folder does not exist', async () => {
    const dir = tempDir();
    const result = await runIn(dir, ['new', 'missing/spec.md']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('error: cannot write missing/spec.md: the folder missing does not exist\n');
  });

  it('refuses an empty product name without writing anything', async () => {
    const dir = tempDir();
    const result = await runIn(dir, ['new', '--name', ' ']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--name needs a product name');
    expect(existsSync(join(dir, 'spec.md'))).toBe(false);
  });

  it('quotes a file name with spaces in the command it suggests', async () => {
    const dir = tempDir();
    const result = await runIn(dir, ['new', 'my spec.md']);
    expect(result.stdout).toContain("npx ninepoint check 'my spec.md'");
  });

  it('writes an example with --example, and the modules its point 7 names beside it, so that it checks clean', async () => {
    const dir = tempDir();
    const helpdesk = await runIn(dir, ['new', '--example', 'helpdesk', 'app.md']);
    expect(helpdesk.code).toBe(0);
    expect(readFileSync(join(dir, 'app.md'), 'utf8')).toBe(
      readFileSync(new URL('../../../../examples/helpdesk.md', import.meta.url), 'utf8'),
    );
    expect(helpdesk.stdout).toContain('Wrote app.md: the helpdesk example, "IT helpdesk".');
    expect(helpdesk.stdout).toContain('npx ninepoint users add you@example.org app.md --role requester');
    expect(helpdesk.stdout).toContain('The format is described in ');

    const quotes = await runIn(dir, ['new', '--example', 'quotes', 'shop.md']);
    expect(quotes.stdout).toContain('with quotes/ and quotes.types.ts beside it');
    expect(existsSync(join(dir, 'quotes/pricing.ts'))).toBe(true);
    const checked = await runIn(dir, ['check', 'shop.md']);
    expect(checked.stdout).toContain('0 errors, 0 warnings');
    expect(checked.code).toBe(0);
  });

  it('names the examples when --example names none of them, writing nothing', async () => {
    const dir = tempDir();
    const result = await runIn(dir, ['new', '--example', 'helpdsk', 'app.md']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'there is no example "helpdsk"; the examples are expenses, helpdesk, lending-desk, quotes.',
    );
    expect(existsSync(join(dir, 'app.md'))).toBe(false);
  });

  it("refuses an example whose modules' folder is there already, before writing anything", async () => {
    const dir = tempDir({ 'quotes.types.ts': 'mine' });
    const result = await runIn(dir, ['new', '--example', 'quotes', 'app.md']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('quotes.types.ts already exists; pass --force');
    expect(existsSync(join(dir, 'app.md'))).toBe(false);
    expect(readFileSync(join(dir, 'quotes.types.ts'), 'utf8')).toBe('mine');
  });
});
