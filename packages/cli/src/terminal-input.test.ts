import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { readSecretFrom, type TerminalStream, typeKeys } from './terminal-input.ts';

/** A terminal in a test: records raw mode and whether it is read, and types what the test sends. */
class FakeTerminal extends EventEmitter implements TerminalStream {
  rawModes: boolean[] = [];
  reading = false;
  setRawMode(raw: boolean) {
    this.rawModes.push(raw);
  }
  setEncoding() {}
  resume() {
    this.reading = true;
  }
  pause() {
    this.reading = false;
  }
  type(keys: string) {
    this.emit('data', keys);
  }
}

describe('typeKeys', () => {
  it.each([
    ['secret\r', 'secret', 'enter'],
    ['secret\n', 'secret', 'enter'],
    ['secrx\u007fet\r', 'secret', 'enter'],
    ['wrong\u0015secret\r', 'secret', 'enter'],
    ['se\u001b[Acr\u001b[1;5Det\u001bOB\r', 'secret', 'enter'],
    ['sé€😀\r', 'sé€😀', 'enter'],
    ['ab\u007f\u007f\u007f\r', '', 'enter'],
    ['sec\u0003ret\r', '', 'cancel'],
    ['\u0004', '', 'cancel'],
    ['secret\u0004', 'secret', 'enter'],
    ['sec\tret\r', 'secret', 'enter'],
    ['secret\rmore', 'secret', 'enter'],
  ])('types %j as %j (%s)', (keys, text, done) => {
    expect(typeKeys('', keys)).toEqual({ text, done });
  });

  it('continues from what was typed before, deleting whole characters', () => {
    expect(typeKeys('se', 'cret')).toEqual({ text: 'secret', done: null });
    expect(typeKeys('a😀', '\u007f')).toEqual({ text: 'a', done: null });
  });
});

describe('readSecretFrom', () => {
  it('prompts, reads a line typed in pieces without echo, then leaves raw mode and stops reading', async () => {
    const input = new FakeTerminal();
    const written: string[] = [];
    const reading = readSecretFrom(input, { write: (text) => void written.push(text) }, 'Password: ');
    expect(input.rawModes).toEqual([true]);
    expect(input.reading).toBe(true);
    input.type('corr');
    input.type('ect horse\r');
    expect(await reading).toBe('correct horse');
    expect(input.rawModes).toEqual([true, false]);
    expect(input.reading).toBe(false);
    expect(input.listenerCount('data')).toBe(0);
    // Only the prompt and the line break: nothing typed is echoed.
    expect(written).toEqual(['Password: ', '\n']);
  });

  it('answers null when the person presses Ctrl-C', async () => {
    const input = new FakeTerminal();
    const reading = readSecretFrom(input, { write: () => {} }, 'Password: ');
    input.type('abc\u0003');
    expect(await reading).toBeNull();
    expect(input.rawModes).toEqual([true, false]);
  });
});
