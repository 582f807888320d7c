import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// s3rver has no types of its own: what the tests use of it.
// @ts-expect-error: no declaration file
import S3rver from 's3rver';

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}

/** A real S3-compatible server on loopback (s3rver, from npm), with one bucket, and its settings for the app. */
export async function startS3(bucket = 'ninepoint-test'): Promise<{
  /** The environment the app reads S3's settings from. */
  env: NodeJS.ProcessEnv;
  endpoint: string;
  bucket: string;
  close(): Promise<void>;
}> {
  const directory = mkdtempSync(join(tmpdir(), 'ninepoint-s3-'));
  const server = new (S3rver as new (options: object) => S3rverInstance)({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    env: {
      S3_ENDPOINT: endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      AWS_REGION: 'us-east-1',
      // s3rver's own fixed credentials.
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    },
    endpoint,
    bucket,
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
