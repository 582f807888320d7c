import { type CheckResult, checkSpec } from '@ninepoint/spec';
import { useEffect, useState } from 'react';
import { type Located, locate } from './locate.ts';

/** The checker's answer for one text, with its diagnostics placed in that text. */
export interface Checked {
  source: string;
  result: CheckResult;
  located: Located[];
}

/** Checking again after a pause in typing: short enough to feel live, long enough to skip keystrokes. */
export const CHECK_DELAY_MS = 150;

let last: Checked | null = null;

/** Checks a text, reusing the last answer when the text is the same (a remounted page). */
export function check(source: string): Checked {
  if (last?.source === source) return last;
  const result = checkSpec(source);
  last = { source, result, located: locate(source, result.diagnostics) };
  return last;
}

/** The checker's answer for `source`, at most `CHECK_DELAY_MS` behind it. */
export function useCheck(source: string): Checked {
  const [checked, setChecked] = useState(() => check(source));
  useEffect(() => {
    if (checked.source === source) return;
    const timer = setTimeout(() => setChecked(check(source)), CHECK_DELAY_MS);
    return () => clearTimeout(timer);
  }, [source, checked.source]);
  return checked;
}
