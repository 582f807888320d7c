import { styleText } from 'node:util';

type Format = Parameters<typeof styleText>[0];

/** Applies a terminal style, or nothing: reporters take one of these so their layout is tested without escape codes. */
export type Paint = (format: Format, text: string) => string;

/** `color` is decided once by the caller (TTY and NO_COLOR), so styleText must not second-guess it. */
export function paint(color: boolean): Paint {
  return color ? (format, text) => styleText(format, text, { validateStream: false }) : (_format, text) => text;
}
