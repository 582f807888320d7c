import { createServer } from 'node:http';
import type { StudioStatus } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { SpecEvents } from './spec-events.ts';

const STATUS: StudioStatus = {
  version: 1,
  outcome: 'applied',
  at: '2025-01-01T00:00:00.000Z',
  message: 'Serving "Test".',
  diagnostics: [],
  plan: null,
};

describe('SpecEvents', () => {
  it('answers a stream opened after it closed with 204, so the server can still close', async () => {
    const events = new SpecEvents(STATUS);
    const http = createServer((request, response) => events.attach(request, response));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const address = http.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    events.close();
    const response = await fetch(`http://127.0.0.1:${port}/api/dev/events`);
    expect(response.status).toBe(204);
    expect(events.size).toBe(0);
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });
});
