import { describe, expect, it } from 'vitest';
import { letOthersIn } from './let-others-in.ts';

describe('letOthersIn', () => {
  it('lets work waiting for the event loop run before the next call', async () => {
    // Each "call" leaves work for the event loop, as an injected call does, and then awaits only
    // settled promises, as a module's calls on SQLite do: without a turn of the loop between
    // calls, none of that work would run before the loop of calls ends.
    let ran = 0;
    for (let call = 0; call < 50; call++) {
      await letOthersIn();
      expect(ran).toBe(call);
      setImmediate(() => ran++);
      await Promise.resolve();
    }
  });
});
