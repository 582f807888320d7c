import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileApp, openStore } from '@ninepoint/server';
import { blankSpec, checkSpec } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { runIn, SPEC_WITH_ERROR, tempDir } from '../test-support.ts';

const bookSpec = (fields: string) =>
  blankSpec('Shelf').replace(
    '## 3. Entities and their fields\nNot shown.\n',
    `## 3. Entities and their fields\n### Book\n| field | type | rules |\n|---|---|---|\n${fields}`,
  );
const WITH_NOTE = bookSpec('| title | text | required |\n| note | text | required |\n');
const WITHOUT_NOTE = bookSpec('| title | text | required |\n');

/** A folder with the spec, migrated, holding one book written straight to the store. */
async function migratedWithABook(): Promise<string> {
  const dir = tempDir({ 'spec.md': WITH_NOTE });
  expect((await runIn(dir, ['migrate', 'spec.md'])).code).toBe(0);
  const store = await openStore({ dbPath: join(dir, 'ninepoint.db') });
  try {
    const compiled = compileApp(checkSpec(WITH_NOTE).model);
    await store.applySchema(compiled.sqlSchema, compiled.model);
    const at = '2026-01-01T00:00:00.000Z';
    const record = { id: '00000000-0000-7000-8000-000000000001', created_at: at, updated_at: at, created_by: null };
    const outcome = await store.records('Book').create({ ...record, title: 'Dune', note: 'signed' }, { at, by: null });
    expect(outcome.ok).toBe(true);
  } finally {
    await store.close();
  }
  return dir;
}

describe('ninepoint migrate', () => {
  it('creates the tables of a new database, then has nothing to do', async () => {
    const dir = tempDir({ 'spec.md': WITH_NOTE });
    const first = await runIn(dir, ['migrate', 'spec.md']);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(
      `Migration of "Shelf" to SQLite: ${join(dir, 'ninepoint.db')}\n` +
        '  + Create table books for the new entity Book.\n\n' +
        'Applied 1 step in one transaction; no data was dropped.\n',
    );
    const again = await runIn(dir, ['migrate', 'spec.md']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Nothing to migrate: the database already matches the spec.');
  });

  it('prints the plan without applying it, and exits 1 when it would be refused', async () => {
    const dir = await migratedWithABook();
    writeFileSync(join(dir, 'spec.md'), WITHOUT_NOTE);
    for (let i = 0; i < 2; i++) {
      const planned = await runIn(dir, ['migrate', 'spec.md', '--plan']);
      expect(planned.code).toBe(1);
      expect(planned.stdout).toContain('(plan only)');
      expect(planned.stdout).toContain('  ! Field Book.note was removed; 1 row holds a value in books.note.');
      expect(planned.stdout).toContain('Nothing was changed (plan only); applying it would be refused.');
    }
    const allowed = await runIn(dir, ['migrate', 'spec.md', '--plan', '--allow-destructive']);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toContain('Applying it takes 1 step in one transaction');
  });

  it('refuses a migration that would hide data, then applies it with --allow-destructive', async () => {
    const dir = await migratedWithABook();
    writeFileSync(join(dir, 'spec.md'), WITHOUT_NOTE);
    const refused = await runIn(dir, ['migrate', 'spec.md']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('  ! Field Book.note was removed; 1 row holds a value in books.note.');
    expect(refused.stderr).toContain('With --allow-destructive the column and its values are kept');
    expect(refused.stderr).toContain('Refused: nothing was changed.');

    const applied = await runIn(dir, ['migrate', 'spec.md', '--allow-destructive']);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Applied 1 step in one transaction (1 allowed by --allow-destructive)');
    expect((await runIn(dir, ['migrate', 'spec.md'])).stdout).toContain('Nothing to migrate');
    // The value is still there: with the field back, nothing needs the flag and the value is served again.
    writeFileSync(join(dir, 'spec.md'), WITH_NOTE);
    const back = await runIn(dir, ['migrate', 'spec.md', '--plan']);
    expect(back.code).toBe(0);
    expect(back.stdout).toContain('Field Book.note is back: the 1 value kept in books.note');
  });

  it('plans for a database file that does not exist without creating it', async () => {
    const dir = tempDir({ 'spec.md': WITH_NOTE });
    const planned = await runIn(dir, ['migrate', 'spec.md', '--plan', '--db', 'data/app.db']);
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain('  + Create table books for the new entity Book.');
    expect(existsSync(join(dir, 'data'))).toBe(false);
  });

  it('refuses a spec with errors, exiting 1', async () => {
    const { code, stdout, stderr } = await runIn(tempDir({ 'spec.md': SPEC_WITH_ERROR }), ['migrate', 'spec.md']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('unknown-type');
  });

  it('exits 2 without a spec, or with a DATABASE_URL that is not PostgreSQL', async () => {
    expect((await runIn(tempDir(), ['migrate'])).code).toBe(2);
    const result = await runIn(tempDir({ 'spec.md': WITH_NOTE }), ['migrate', 'spec.md'], {
      env: { DATABASE_URL: 'mysql://127.0.0.1/x' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('DATABASE_URL must be a PostgreSQL URL');
  });

  it('documents the flag on serve and migrate', async () => {
    for (const command of ['serve', 'migrate']) {
      const help = await runIn(tempDir(), [command, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('--allow-destructive');
    }
  });
});
