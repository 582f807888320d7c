/**
 * The colours a spec may declare for a choice's values (`choice of low (grey), high (red)`): a
 * fixed palette, so every colour reads on the app's light and dark backgrounds (the web app draws
 * each as a tinted badge whose text is darkened to AA contrast, and as a chart's bar).
 */
export const CHOICE_COLOURS = [
  'grey',
  'blue',
  'indigo',
  'violet',
  'grape',
  'pink',
  'red',
  'orange',
  'yellow',
  'lime',
  'green',
  'teal',
  'cyan',
] as const;

export type ChoiceColour = (typeof CHOICE_COLOURS)[number];

/** Spellings a reader may write for a palette colour. */
const ALIASES: Readonly<Record<string, ChoiceColour>> = { gray: 'grey', purple: 'violet' };

/** The palette colour a word names (`Red`, `gray`), or null. */
export function choiceColour(word: string): ChoiceColour | null {
  const lower = word.trim().toLowerCase();
  if ((CHOICE_COLOURS as readonly string[]).includes(lower)) return lower as ChoiceColour;
  return ALIASES[lower] ?? null;
}
