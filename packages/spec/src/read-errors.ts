import type { ErrorCode } from './model.ts';
import { ERROR_CODE } from './names.ts';
import type { Section } from './parse-sections.ts';
import { allTables, NameSet, requiredCell, rowsOf, validName } from './read-helpers.ts';
import type { Scope } from './scope.ts';

const COLUMNS = [
  { key: 'code', names: ['code', 'error', 'error code'], required: true },
  { key: 'status', names: ['status', 'http status', 'http'], required: true },
  { key: 'message', names: ['message', 'text'], required: true },
];

/** Point 8: the error catalogue. Listing a built-in code overrides it. */
export function readErrors(section: Section, scope: Scope): ErrorCode[] {
  const { bag } = scope;
  const names = new NameSet(bag, 'error code');
  const errors: ErrorCode[] = [];
  for (const row of rowsOf(allTables(section), COLUMNS, bag, 'error catalogue')) {
    const code = requiredCell(row, 'code', bag, 'An error');
    const status = requiredCell(row, 'status', bag, `Error ${code?.text ?? ''}`.trim());
    const message = requiredCell(row, 'message', bag, `Error ${code?.text ?? ''}`.trim());
    if (!code || !status || !message) continue;
    if (!validName(code, ERROR_CODE, bag, 'error code', 'Error codes are UPPER_SNAKE_CASE, e.g. LOAN_LIMIT')) continue;
    if (!names.add(code)) continue;
    const number = Number(status.text);
    if (!/^\d{3}$/.test(status.text) || number < 400 || number > 599) {
      bag.report(
        'invalid-status',
        status.span,
        `Error ${code.text} has status "${status.text}", which is not an error status.`,
        {
          hint: 'Use a 4xx status for a problem with the request (422 for a broken rule, 409 for a conflict) or 5xx for a server fault.',
        },
      );
    }
    // A bad status is reported above; the code stays catalogued (as 422) so its uses and message are still checked.
    const valid = number >= 400 && number <= 599 && /^\d{3}$/.test(status.text);
    errors.push({
      code: code.text,
      status: valid ? number : 422,
      message: message.text,
      builtin: false,
      span: row.span,
    });
    scope.codes.add(code.text);
    scope.messageSpans.set(code.text, message.span);
  }
  return errors;
}
