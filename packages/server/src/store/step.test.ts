import { describe, expect, it } from 'vitest';
import { type MaybePromise, run, runAsync, runSync, type Step, wait, YieldedInSyncError } from './step.ts';

/** Two reads and their sum, the way the records core writes a sequence. */
function* sum(read: (name: string) => MaybePromise<number>): Step<number> {
  const a = yield* wait(read('a'));
  const b = yield* wait(read('b'));
  return a + b;
}

const values: Record<string, number> = { a: 1, b: 2 };

describe('a sequence of database calls', () => {
  it('runs to the end at once when every call answers at once', () => {
    expect(runSync(sum((name) => values[name] ?? 0))).toBe(3);
    expect(
      run(
        sum((name) => values[name] ?? 0),
        true,
      ),
    ).toBe(3);
  });

  it('refuses to run synchronously when a call answers a Promise, and ends the sequence', () => {
    let ended = false;
    function* waits(): Step<number> {
      try {
        return yield* wait(Promise.reject(new Error('not heard')));
      } finally {
        ended = true;
      }
    }
    expect(() => runSync(waits())).toThrow(YieldedInSyncError);
    expect(ended).toBe(true);
    expect(() => runSync(sum((name) => Promise.resolve(values[name] ?? 0)))).toThrow(YieldedInSyncError);
  });

  it('awaits each Promise and resumes with its value', async () => {
    const read = (name: string) => (name === 'a' ? Promise.resolve(values.a ?? 0) : (values.b ?? 0));
    expect(await runAsync(sum(read))).toBe(3);
    expect(await run(sum(read), false)).toBe(3);
  });

  it('throws a rejected call into the sequence, where its own try/catch sees it', async () => {
    function* recovers(): Step<string> {
      try {
        yield* wait(Promise.reject(new Error('unique violation')));
        return 'written';
      } catch (error) {
        return `refused: ${(error as Error).message}`;
      }
    }
    expect(await runAsync(recovers())).toBe('refused: unique violation');
  });

  it('rejects with what the sequence throws when it does not catch', async () => {
    await expect(runAsync(sum((name) => Promise.reject(new Error(`no ${name}`))))).rejects.toThrow('no a');
  });
});
