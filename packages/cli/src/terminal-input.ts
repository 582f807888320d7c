/** What reading a secret needs of a terminal: `process.stdin`, or a stand-in in tests. */
export interface TerminalStream {
  setRawMode(raw: boolean): unknown;
  setEncoding(encoding: BufferEncoding): unknown;
  on(event: 'data', listener: (chunk: string) => void): unknown;
  off(event: 'data', listener: (chunk: string) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

/** A secret being typed: the text so far, and whether the person pressed Enter or cancelled. */
export interface Typed {
  text: string;
  done: 'enter' | 'cancel' | null;
}

const ENTER = new Set(['\r', '\n']);
const BACKSPACE = new Set(['\u007f', '\b']);
const CTRL_C = '\u0003';
const CTRL_D = '\u0004';
const CTRL_U = '\u0015';
const ESCAPE = '\u001b';

/**
 * Applies keys typed on a terminal in raw mode to a secret: Enter ends it, Backspace deletes a
 * character, Ctrl-U the whole line, Ctrl-C cancels, Ctrl-D cancels an empty line (and ends a
 * non-empty one); escape sequences (arrow keys) and other control characters are ignored.
 */
export function typeKeys(text: string, keys: string): Typed {
  const typed = [...text];
  const chars = [...keys];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] ?? '';
    if (ENTER.has(ch)) return { text: typed.join(''), done: 'enter' };
    if (ch === CTRL_C) return { text: '', done: 'cancel' };
    if (ch === CTRL_D)
      return typed.length === 0 ? { text: '', done: 'cancel' } : { text: typed.join(''), done: 'enter' };
    if (BACKSPACE.has(ch)) typed.pop();
    else if (ch === CTRL_U) typed.length = 0;
    else if (ch === ESCAPE) {
      // CSI and SS3 sequences (`ESC [ … final`, `ESC O x`) end with a byte from @ to ~; Alt+key is one more character.
      const next = chars[i + 1];
      i++;
      if (next === '[' || next === 'O') {
        while (i + 1 < chars.length && !/^[@-~]$/.test(chars[i + 1] ?? '')) i++;
        i++;
      }
    } else if (ch >= ' ') typed.push(ch);
  }
  return { text: typed.join(''), done: null };
}

/**
 * Shows the prompt and reads one line from a terminal without echoing it (raw mode, restored
 * afterwards); null when the person cancels.
 */
export function readSecretFrom(
  input: TerminalStream,
  output: { write(text: string): void },
  prompt: string,
): Promise<string | null> {
  output.write(prompt);
  input.setEncoding('utf8');
  input.setRawMode(true);
  return new Promise((resolve) => {
    let text = '';
    const onData = (chunk: string) => {
      const typed = typeKeys(text, chunk);
      text = typed.text;
      if (typed.done === null) return;
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      output.write('\n');
      resolve(typed.done === 'enter' ? text : null);
    };
    input.on('data', onData);
    input.resume();
  });
}
