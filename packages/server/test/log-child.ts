// A process that logs as `ninepoint serve` does and then ends, for logging.test.ts:
// `node log-child.ts serve <db file> <requests>` serves the blank spec with serve's default logger
// (JSON to stdout through pino's asynchronous destination), answers that many requests, then
// sends itself SIGTERM; `node log-child.ts burst <lines>` logs that many records in one go and
// calls process.exit at once. Either way its stdout must hold every line.
import { blankSpec } from '@ninepoint/spec';
import { serve } from '../src/app/serve.ts';
import { createLogger } from '../src/http/logging.ts';

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'burst') {
  const logger = createLogger({ format: 'json' });
  const lines = Number(rest[0]);
  for (let n = 1; n <= lines; n++) logger.info({ n, padding: 'x'.repeat(200) }, 'burst');
  process.exit(0);
} else if (mode === 'serve') {
  const [dbPath, requests] = rest;
  const result = await serve({ specPath: 'blank.md', source: blankSpec(), port: 0, dbPath, logFormat: 'json' });
  if (!result.ok) process.exit(result.exitCode);
  for (let n = 0; n < Number(requests); n++) {
    const response = await fetch(`${result.url}/api/health`);
    await response.text();
  }
  process.kill(process.pid, 'SIGTERM');
} else {
  console.error('usage: node log-child.ts serve <db file> <requests> | burst <lines>');
  process.exit(2);
}
