import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { SQLITE_ONLY } from '../../test/databases.ts';
import { filesServer, upload } from '../../test/uploads.ts';

/** A field whose rules say `keeps location`, beside one that does not. */
const SURVEY = `# Specification: Survey

## 3. Entities and their fields

### Site

| field | type  | rules                         |
| ----- | ----- | ----------------------------- |
| name  | text  | required                      |
| where | image | at most 1 MB, keeps location  |
| look  | image | at most 1 MB                  |

## 6. Roles and permissions

| role     | Site                          |
| -------- | ----------------------------- |
| surveyor | create, read, update, delete  |
`;

// The metadata is handled as the bytes arrive, before storage: nothing here depends on the database.
describe.each(SQLITE_ONLY)('a photo’s location on $name', (db) => {
  const survey = filesServer(db, SURVEY, ['surveyor']);

  it('is kept, byte for byte, only in a field whose rules say keeps location', async () => {
    const photo = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#369' } })
      .jpeg()
      .withExif({ IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '52/1 31/1 0/1' } })
      .toBuffer();
    const created = await upload(survey.server, survey.authorization, 'POST', '/api/sites', { name: 'Quarry' }, [
      { field: 'where', name: 'where.jpg', bytes: new Uint8Array(photo) },
      { field: 'look', name: 'look.jpg', bytes: new Uint8Array(photo) },
    ]);
    expect(created.status).toBe(201);
    const served = (id: unknown) =>
      survey.server.app.inject({
        method: 'GET',
        url: `/api/files/${id}`,
        headers: { authorization: survey.authorization },
      });
    const kept = await served(created.body.where);
    expect(Buffer.from(kept.rawPayload).equals(photo)).toBe(true);
    expect((await sharp(kept.rawPayload).metadata()).exif).toBeDefined();
    const stripped = await served(created.body.look);
    expect(stripped.statusCode).toBe(200);
    expect((await sharp(stripped.rawPayload).metadata()).exif).toBeUndefined();
    // Thumbnails never carry it, kept or not.
    const thumb = await survey.server.app.inject({
      method: 'GET',
      url: `/api/files/${created.body.where}/thumbnail`,
      headers: { authorization: survey.authorization },
    });
    expect(thumb.statusCode).toBe(200);
    expect((await sharp(thumb.rawPayload).metadata()).exif).toBeUndefined();
  });
});
