// Setup file of the browser project (vitest.config.ts): the files a worker runs share one
// Chromium, so whatever context a file left open is closed at its end, and the next file starts
// with no cookies, storage or tabs of another's.
import { afterAll } from 'vitest';
import { closeOpenContexts } from './browser.ts';

afterAll(closeOpenContexts);
