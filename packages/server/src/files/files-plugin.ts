import multipart from '@fastify/multipart';
import fastifyPlugin from 'fastify-plugin';
import { type RecordReader, registerFileRoutes } from './file-routes.ts';
import { type RecordFiles, SWEEP_INTERVAL_MS } from './record-files.ts';

export interface FilesOptions {
  files: RecordFiles;
  /** The records feature's read of a record as an actor may see it. */
  readRecord: RecordReader;
  /** Whether to sweep pending files at start and every `SWEEP_INTERVAL_MS` (tests call `sweep` themselves). */
  sweep?: boolean;
}

/**
 * Files, as a Fastify plugin: multipart/form-data bodies for the records' writes (@fastify/multipart,
 * read as a stream by `receive-upload.ts`, never buffered), the files' calls, and the sweep of
 * uploads that never finished.
 */
export const files = fastifyPlugin<FilesOptions>(
  async (app, options) => {
    // Each field's own size limit is counted by `receive-upload.ts`, which answers FILE_TOO_LARGE.
    await app.register(multipart, { throwFileSizeLimit: false });
    registerFileRoutes(app, options.files, options.readRecord);
    if (options.sweep === false) return;
    const sweep = () =>
      options.files.sweep().then(
        ({ attached, removed }) => {
          if (attached + removed > 0) app.log.info({ attached, removed }, 'files: swept pending uploads');
        },
        (error: unknown) => app.log.error({ err: error }, 'files: the sweep of pending uploads failed'),
      );
    let timer: NodeJS.Timeout | null = null;
    app.addHook('onReady', async () => {
      void sweep();
      timer = setInterval(() => void sweep(), SWEEP_INTERVAL_MS);
      timer.unref();
    });
    app.addHook('onClose', async () => {
      if (timer) clearInterval(timer);
      await options.files.close();
    });
  },
  { name: 'ninepoint-files', fastify: '5.x', dependencies: ['ninepoint-people'] },
);
