import { type Readable, Transform } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Every chunk an upload reads from its socket (and a download from its file) is a new buffer that dies at once; V8 collects such
 * memory only when 64 MB more of it is held than at its last collection (its external memory soft
 * limit), so a large upload would raise the process's memory by about that much in garbage. A
 * young-generation collection every `EVERY_BYTES` streamed keeps the garbage under it: a few
 * milliseconds per 16 MB. The collector is taken from a fresh context with `--expose-gc` set,
 * so the app's own global `gc` stays undefined.
 */
const EVERY_BYTES = 16 * 1024 * 1024;

let collect: ((options: { type: 'minor'; execution: 'sync' }) => void) | null | undefined;
let streamed = 0;

function collector(): typeof collect {
  if (collect === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as typeof collect;
    } catch {
      collect = null;
    }
  }
  return collect;
}

/** Counts bytes an upload or a download streamed; collects the young generation's garbage every 16 MB. */
export function streamedBytes(bytes: number): void {
  streamed += bytes;
  if (streamed < EVERY_BYTES) return;
  streamed = 0;
  collector()?.({ type: 'minor', execution: 'sync' });
}

/** A stream's bytes as they are, counted by `streamedBytes` on the way. */
export function counted(source: Readable): Readable {
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      streamedBytes(chunk.length);
      done(null, chunk);
    },
  });
  // `pipe` does not pass errors on: a file that fails half way ends the answer, not hangs it.
  source.once('error', (error) => counter.destroy(error));
  return source.pipe(counter);
}
