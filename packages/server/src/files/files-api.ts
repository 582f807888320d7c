import { FILE_FORMATS } from '@ninepoint/spec';
import type { JsonSchema } from '../compile/json-schemas.ts';
import { API, type ApiContext, type FeatureApi, type Operation, ref } from '../compile/openapi.ts';
import { THUMBNAIL_SIZES } from './thumbnails.ts';

/**
 * The files' calls in the OpenAPI document (`file-routes.ts` serves them), when the spec has file
 * fields. Uploads are the records' own creates and updates, sent as multipart/form-data
 * (`records/records-api.ts` describes that body).
 */
export const FILE_ABOUT = 'ninepoint.FileAbout';

export const FILE_ABOUT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string', description: 'The name it was uploaded with.' },
    size: { type: 'integer', minimum: 0, description: 'In bytes.' },
    mime: {
      type: 'string',
      description: 'The media type its bytes were recognised as; application/octet-stream when none.',
    },
    kind: { type: ['string', 'null'], description: 'The spec’s word for its kind (pdf, png…), or null.' },
    image: { type: 'boolean', description: 'A raster image: shown inline, with thumbnails.' },
    entity: { type: 'string' },
    record: { type: 'string', format: 'uuid' },
    field: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time' },
    createdBy: { type: ['string', 'null'] },
    removed: {
      type: 'boolean',
      description:
        'Replaced or removed (or its record deleted): its content is gone, what is known of it stays for history.',
    },
  },
  required: [
    'id',
    'name',
    'size',
    'mime',
    'kind',
    'image',
    'entity',
    'record',
    'field',
    'createdAt',
    'createdBy',
    'removed',
  ],
  additionalProperties: false,
};

const ID = {
  name: 'id',
  in: 'path' as const,
  required: true,
  description: 'The file’s id: the value of its file field.',
  schema: { type: 'string', format: 'uuid' } as JsonSchema,
};

/** Every media type a file may be served with. */
const MEDIA_TYPES = [...new Set([...Object.values(FILE_FORMATS).map((f) => f.mime), 'application/octet-stream'])];

const hasFiles = (context: ApiContext) =>
  context.model.entities.some((e) => e.fields.some((f) => f.type.kind === 'file'));

export const FILES_API: FeatureApi = {
  schemas: (context): Record<string, JsonSchema> => (hasFiles(context) ? { [FILE_ABOUT]: FILE_ABOUT_SCHEMA } : {}),
  calls: (context) => {
    if (!hasFiles(context)) return [];
    const { responses } = context;
    const download: Operation = {
      operationId: 'downloadFile',
      summary: 'A file’s content',
      description:
        'Served only to a caller who may read the record holding the file, in a field they may see; otherwise ' +
        'FILE_NOT_FOUND, as for a file that does not exist. Raster images are served inline, everything else as ' +
        'an attachment, with `X-Content-Type-Options: nosniff` and a sandboxing Content-Security-Policy. With ' +
        '`direct=true` and S3 storage, answers 303 to a short-lived presigned address of the same content.',
      tags: [API.systemTag],
      security: API.anybody,
      parameters: [
        ID,
        {
          name: 'direct',
          in: 'query',
          required: false,
          description: 'On S3 storage: answer 303 to a presigned address instead of the content.',
          schema: { type: 'string', enum: ['true', 'false'] },
        },
      ],
      responses: {
        '200': {
          description: 'The file’s content.',
          headers: {
            'Content-Disposition': {
              description: 'inline for raster images, attachment otherwise.',
              schema: API.string,
            },
            ETag: { description: 'The file’s id: its content never changes.', schema: API.string },
          },
          content: Object.fromEntries(MEDIA_TYPES.map((m) => [m, { schema: { type: 'string', format: 'binary' } }])),
        },
        '303': { description: 'On S3 storage with direct=true: the presigned address of the content.' },
        '304': { description: 'The content has not changed (If-None-Match).' },
        ...responses.for(['FILE_NOT_FOUND', ...API.anyCall]),
      },
    };
    const about: Operation = {
      operationId: 'aboutFile',
      summary: 'What is known of a file: its name, size, kind, who uploaded it and when; never its content',
      description:
        'For a file the record holds now or held before (history names it), to a caller who may read that record and field.',
      tags: [API.systemTag],
      security: API.anybody,
      parameters: [ID],
      responses: {
        '200': { description: 'What is known of the file.', content: { [API.json]: { schema: ref(FILE_ABOUT) } } },
        ...responses.for(['FILE_NOT_FOUND', ...API.anyCall]),
      },
    };
    const thumbnail: Operation = {
      operationId: 'fileThumbnail',
      summary: 'A raster image’s thumbnail, as WebP without metadata (no EXIF location)',
      description:
        'Made once and kept beside the image. Served to the same callers as the image itself; a file that is not a raster image has none (FILE_NOT_FOUND).',
      tags: [API.systemTag],
      security: API.anybody,
      parameters: [
        ID,
        {
          name: 'size',
          in: 'query',
          required: false,
          description: 'Pixels on the longer side (default 96).',
          schema: { type: 'string', enum: THUMBNAIL_SIZES.map(String) },
        },
      ],
      responses: {
        '200': {
          description: 'The thumbnail.',
          content: { 'image/webp': { schema: { type: 'string', format: 'binary' } } },
        },
        ...responses.for(['FILE_NOT_FOUND', 'INVALID_PAYLOAD', ...API.anyCall]),
      },
    };
    return [
      { path: '/api/files/{id}', method: 'GET', operation: download },
      { path: '/api/files/{id}/thumbnail', method: 'GET', operation: thumbnail },
      { path: '/api/files/{id}/about', method: 'GET', operation: about },
    ];
  },
};
