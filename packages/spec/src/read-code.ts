import type { CodeRef, Hook, OutgoingEvent, Schedule } from './model.ts';
import type { Section } from './parse-sections.ts';
import { type Cell, cellPart, type TableRow } from './parse-tables.ts';
import { requiredCell, rowsOf } from './read-helpers.ts';
import { CODE, readEvent } from './read-outgoing.ts';
import type { Scope } from './scope.ts';
import { suggest } from './suggest.ts';

const CODE_COLUMNS = [
  { key: 'on', names: ['on', 'when', 'event'], required: true },
  { key: 'code', names: ['code', 'runs', 'module'], required: true },
];

/** `pricing.ts` or `price from pricing.ts`: a module beside the spec and one of its exports. */
const REF = /^(?:([A-Za-z_$][A-Za-z0-9_$]*)\s+from\s+)?(\S+)$/;
const MOMENT = /^(before|after)\s+(.+)$/i;
const SCHEDULE = /^schedule\s+(.+)$/i;

export const CODE_HINT =
  'Write a TypeScript file beside the spec (pricing.ts, code/pricing.ts) for its default export, or "price from pricing.ts" for a named one.';

/**
 * A module reference as written in a cell, checked without the file system (the spec package
 * stays pure: `ninepoint check` looks for the file and its export, `checkModules`): a `.ts`
 * file named relative to the spec's folder and inside it. Reports `invalid-module` and answers
 * null otherwise.
 */
export function readCodeRef(cell: Cell, scope: Scope, what: string): CodeRef | null {
  const m = REF.exec(cell.text);
  if (!m) {
    scope.bag.report('invalid-module', cell.span, `${what} names "${cell.text}", which is not a module.`, {
      hint: CODE_HINT,
    });
    return null;
  }
  const written = m[2] as string;
  const fileCell = cellPart(cell, cell.text.length - written.length, written.length);
  if (!/\.(ts|mts)$/.test(written)) {
    scope.bag.report('invalid-module', fileCell.span, `${what} names "${written}", which is not a TypeScript file.`, {
      hint: 'Modules are .ts files: Node runs them directly (type stripping), with no build step.',
    });
    return null;
  }
  const file = insideFolder(written);
  if (file === null) {
    scope.bag.report(
      'invalid-module',
      fileCell.span,
      `${what} names "${written}", which is outside the spec's folder.`,
      {
        hint: "A module lives beside the spec or in a folder under it (pricing.ts, code/pricing.ts): the spec and its code move together, and a spec cannot reach into the rest of the server's disk.",
      },
    );
    return null;
  }
  return { file, export: m[1] ?? 'default', span: cell.span };
}

/** The path normalised, or null when it leaves the folder (absolute, `..` above it, a drive or a backslash). */
function insideFolder(path: string): string | null {
  if (path.startsWith('/') || path.includes('\\') || /^[A-Za-z]:/.test(path) || path.includes('//')) return null;
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '.' || part === '') continue;
    if (part === '..') {
      if (parts.pop() === undefined) return null;
    } else parts.push(part);
  }
  return parts.length === 0 ? null : parts.join('/');
}

/**
 * Point 7's `### Code` sub-section (also `### Hooks`): one row a module run on an event,
 * `before create Quote`, `after Quote: accept` or `schedule nightly tidy`.
 */
export function readHooks(section: Section, scope: Scope, schedules: readonly Schedule[]): Hook[] {
  const hooks: Hook[] = [];
  for (const sub of section.subsections) {
    if (!CODE.test(sub.name.trim())) continue;
    for (const row of rowsOf(sub.tables, CODE_COLUMNS, scope.bag, 'code')) {
      const hook = readHook(row, scope, schedules);
      if (hook) hooks.push(hook);
    }
  }
  return hooks;
}

function readHook(row: TableRow, scope: Scope, schedules: readonly Schedule[]): Hook | null {
  const on = requiredCell(row, 'on', scope.bag, 'A hook');
  const codeCell = requiredCell(row, 'code', scope.bag, 'A hook');
  if (!on || !codeCell) return null;
  const what = `The hook on "${on.text}"`;
  const scheduled = SCHEDULE.exec(on.text);
  let moment: Hook['moment'];
  let event: OutgoingEvent;
  if (scheduled) {
    const job = (scheduled[1] as string).trim();
    const found = schedules.find((s) => s.name.toLowerCase() === job.toLowerCase());
    if (!found) {
      scope.bag.report(
        'invalid-schedule',
        on.span,
        `${what} names job "${job}", which point 7's Schedules do not declare.`,
        {
          expected: suggest(
            job,
            schedules.map((s) => s.name),
          ),
          hint: 'Declare it under ### Schedules: | job | every | with a row such as | nightly tidy | every day at 02:00 |.',
        },
      );
      return null;
    }
    moment = 'schedule';
    event = { kind: 'schedule', job: found.name };
  } else {
    const timed = MOMENT.exec(on.text);
    if (!timed) {
      scope.bag.report('invalid-event', on.span, `${what} does not say when it runs.`, {
        expected: [`before ${on.text}`, `after ${on.text}`],
        hint: 'A hook runs "before" a write (it may refuse it), "after" it has committed, or on "schedule <job>".',
      });
      return null;
    }
    const eventText = timed[2] as string;
    const read = readEvent(cellPart(on, on.text.length - eventText.length, eventText.length), scope, 'A hook');
    if (!read) return null;
    moment = (timed[1] as string).toLowerCase() as 'before' | 'after';
    event = read.event;
  }
  const code = readCodeRef(codeCell, scope, what);
  if (!code) return null;
  return { moment, event, code, span: row.span };
}
