import { describe, expect, it } from 'vitest';
import { checkSpec } from '../check.ts';

/** A lending desk whose `return` guard needs a condition note; points 6 and 7 as given. */
function desk({ note = '', roles = 'Not shown.', calls = 'Not shown.' } = {}): string {
  return `# Specification: Lending desk

## 3. Entities and their fields

### Book

| field  | type    | rules    |
| ------ | ------- | -------- |
| title  | text    | required |

### Loan

| field          | type | rules    |
| -------------- | ---- | -------- |
| book           | Book | required |
| due            | date | required |
| condition_note | text | ${note} |

## 4. States and transitions

### Loan

| transition | from  | to       | when                                  |
| ---------- | ----- | -------- | ------------------------------------- |
| lend       | (new) | out      | due > today                           |
| return     | out   | returned | size(condition_note) > 3 && due > now |

## 6. Roles and permissions

${roles}

## 7. The calls it makes

${calls}
`;
}

const warnings = (source: string) =>
  checkSpec(source).diagnostics.filter((d) => d.code !== 'missing-section' && d.code !== 'unused-error-code');

const ROLES = `| role   | Book | Loan |
| ------ | ---- | ---- |
| staff  | all  | create (book, due), read, update (due) |`;

const CALLS = `| method | path | payload | does |
| ------ | ---- | ------- | ---- |
| POST   | /api/loans | Loan (book, due) | create Loan |
| PATCH  | /api/loans/:id | Loan (due) | update Loan |
| POST   | /api/loans/:id/return | | Loan: return |`;

describe('a guard that needs a field nothing sets', () => {
  it('is a warning at the guard when no role may set the field, with a hint naming what to add', () => {
    const source = desk({ roles: ROLES });
    const found = warnings(source);
    expect(found.map((d) => [d.code, d.severity, d.message])).toEqual([
      [
        'guard-field-never-set',
        'warning',
        'The guard of "return" needs Loan.condition_note, which nothing ever sets, so it can never hold.',
      ],
    ]);
    const row = source.split('\n').findIndex((l) => l.startsWith('| return')) + 1;
    expect(found[0]?.line).toBe(row);
    expect(found[0]?.column).toBe((source.split('\n')[row - 1] ?? '').indexOf('size(condition_note)') + 1);
    expect(found[0]?.hint).toBe(
      'Give condition_note a default in point 3, or let a role set it in point 6 ("create (…, condition_note)" or "update (…, condition_note)").',
    );
    expect(found[0]?.hint).toContain('update (…, condition_note)');
    expect(checkSpec(source).ok).toBe(true);
  });

  it('is a warning when point 7 declares no call that carries the field', () => {
    const found = warnings(desk({ calls: CALLS }));
    expect(found.map((d) => d.code)).toEqual(['guard-field-never-set']);
    expect(found[0]?.hint).toContain('add it to a create or update call');
    expect(found[0]?.hint).not.toContain('point 6');
  });

  it('is not reported when the field has a default, a role and a call set it, or a transition carries it', () => {
    expect(warnings(desk({ roles: ROLES, note: 'default "fine"' }))).toEqual([]);
    expect(warnings(desk({ roles: ROLES.replace('update (due)', 'update (due, condition_note)') }))).toEqual([]);
    // Every signed-in user sets every field, through the derived calls.
    expect(warnings(desk())).toEqual([]);
    expect(
      warnings(
        desk({
          calls: CALLS.replace('| | Loan: return', '| Loan (condition_note) | Loan: return'),
        }),
      ),
    ).toEqual([]);
  });

  it('is a warning when a role may set the field but no call carries it', () => {
    const roles = ROLES.replace('update (due)', 'update (due, condition_note)');
    const found = warnings(desk({ roles, calls: CALLS }));
    expect(found.map((d) => d.code)).toEqual(['guard-field-never-set']);
    expect(found[0]?.hint).not.toContain('point 6');
  });
});
