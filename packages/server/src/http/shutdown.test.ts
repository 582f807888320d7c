import { describe, expect, it } from 'vitest';
import { closeOnSignals } from './shutdown.ts';

describe('closeOnSignals', () => {
  it('closes the server on SIGTERM, then exits 0; a second signal exits at once', async () => {
    const events: string[] = [];
    let finishClose: () => void = () => {};
    const server = {
      close: () =>
        new Promise<void>((resolve) => {
          events.push('close');
          finishClose = resolve;
        }),
    };
    const remove = closeOnSignals(server, { exit: (code) => events.push(`exit ${code}`) });
    try {
      process.emit('SIGTERM');
      expect(events).toEqual(['close']);
      process.emit('SIGINT');
      expect(events).toEqual(['close', 'exit 1']);
      finishClose();
      await new Promise((resolve) => setImmediate(resolve));
      expect(events).toEqual(['close', 'exit 1', 'exit 0']);
    } finally {
      remove();
    }
  });

  it('exits 1 when closing fails, and removes its handlers when asked', async () => {
    const codes: number[] = [];
    const remove = closeOnSignals({ close: () => Promise.reject(new Error('stuck')) }, { exit: (c) => codes.push(c) });
    const before = process.listenerCount('SIGTERM');
    process.emit('SIGTERM');
    await new Promise((resolve) => setImmediate(resolve));
    expect(codes).toEqual([1]);
    remove();
    expect(process.listenerCount('SIGTERM')).toBe(before - 1);
  });
});
