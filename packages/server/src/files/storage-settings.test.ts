import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileStorageFrom } from './storage-settings.ts';

describe('where uploaded files are kept', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ninepoint-storage-settings-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps them in files/ beside the SQLite file when nothing says otherwise', async () => {
    const storage = await fileStorageFrom({ dbPath: join(dir, 'data', 'app.db') });
    expect(storage.description).toBe(`the folder ${join(dir, 'data', 'files')}`);
    await storage.close?.();
  });

  it('keeps them in data/files under the working folder on PostgreSQL when nothing says otherwise', async () => {
    const storage = await fileStorageFrom({ databaseUrl: 'postgres://127.0.0.1/none', dbPath: join(dir, 'x.db') });
    expect(storage.description).toBe(`the folder ${resolve('data', 'files')}`);
    await storage.close?.();
  });

  it('keeps them in the folder FILE_STORAGE or --file-storage names, whatever the database', async () => {
    const storage = await fileStorageFrom({ fileStorage: join(dir, 'uploads'), dbPath: join(dir, 'app.db') });
    expect(storage.description).toBe(`the folder ${join(dir, 'uploads')}`);
    await storage.close?.();
  });

  it('keeps them in an S3 bucket for an s3:// address, and refuses an address without a bucket', async () => {
    const storage = await fileStorageFrom({
      fileStorage: 's3://desk-files/uploads?region=eu-central-1&endpoint=http://127.0.0.1:9&path-style=true',
      env: {},
    });
    expect(storage.description).toBe('s3://desk-files/uploads/');
    await storage.close?.();
    await expect(fileStorageFrom({ fileStorage: 's3://', env: {} })).rejects.toThrow(/s3:\/\/bucket\/prefix/);
  });
});
