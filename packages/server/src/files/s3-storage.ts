import type { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { FileStorage } from './file-storage.ts';

/** How long a presigned download address works. */
export const PRESIGNED_SECONDS = 60;

/**
 * Files in an S3-compatible bucket (AWS S3, MinIO, Cloudflare R2, Backblaze B2…), for several
 * servers sharing one database: `s3://bucket/prefix`. The client's settings come from the address's
 * query (`?region=…&endpoint=…&path-style=true`) or the environment: `AWS_REGION`,
 * `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `S3_ENDPOINT` (or the SDK's `AWS_ENDPOINT_URL_S3`)
 * and `S3_FORCE_PATH_STYLE`. Uploads stream through the SDK's multipart `Upload` (5 MB parts), so
 * a file of unknown length is never held whole.
 */
export class S3Storage implements FileStorage {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;
  readonly description: string;

  constructor(client: S3Client, bucket: string, prefix: string) {
    this.#client = client;
    this.#bucket = bucket;
    this.#prefix = prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`;
    this.description = `s3://${bucket}/${this.#prefix}`;
  }

  static fromUrl(address: string, env: NodeJS.ProcessEnv): S3Storage {
    const url = new URL(address);
    if (url.protocol !== 's3:' || url.hostname === '') {
      throw new Error(`FILE_STORAGE must be a folder or s3://bucket/prefix, not ${address}.`);
    }
    const query = url.searchParams;
    const endpoint = query.get('endpoint') ?? env.S3_ENDPOINT ?? env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
    const pathStyle = (query.get('path-style') ?? env.S3_FORCE_PATH_STYLE ?? '') === 'true';
    const config: S3ClientConfig = {
      region: query.get('region') ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
      ...(endpoint ? { endpoint } : {}),
      ...(pathStyle ? { forcePathStyle: true } : {}),
      ...(env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
        ? {
            credentials: {
              accessKeyId: env.AWS_ACCESS_KEY_ID,
              secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
              ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
            },
          }
        : {}),
    };
    return new S3Storage(new S3Client(config), url.hostname, decodeURIComponent(url.pathname.replace(/^\//, '')));
  }

  #key(key: string): string {
    return `${this.#prefix}${key}`;
  }

  async write(key: string, source: Readable): Promise<void> {
    const upload = new Upload({
      client: this.#client,
      params: { Bucket: this.#bucket, Key: this.#key(key), Body: source },
      // Parts are sent one at a time: at most one 5 MB part is held per upload.
      queueSize: 1,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      await upload.abort().catch(() => {});
      throw error;
    }
  }

  async read(key: string): Promise<Readable | null> {
    try {
      const answer = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: this.#key(key) }));
      return (answer.Body as Readable | undefined) ?? null;
    } catch (error) {
      if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') return null;
      throw error;
    }
  }

  async remove(key: string): Promise<void> {
    await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: this.#key(key) }));
  }

  presign(key: string, download: { filename: string; mime: string; inline: boolean }): Promise<string> {
    const ascii = download.filename.replace(/[^\x20-\x7e]|["\\%]/g, '_');
    return getSignedUrl(
      this.#client,
      new GetObjectCommand({
        Bucket: this.#bucket,
        Key: this.#key(key),
        ResponseContentType: download.mime,
        ResponseContentDisposition: `${download.inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(download.filename)}`,
      }),
      { expiresIn: PRESIGNED_SECONDS },
    );
  }

  async close(): Promise<void> {
    this.#client.destroy();
  }
}
