import { checkSpec, permissionMatrix } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { peopleWords, permissionMarks } from './permission-marks.ts';

const SPEC = `# Specification: Desk

## 3. Entities and their fields

### Claim

| field  | type    | rules    |
| ------ | ------- | -------- |
| amount | decimal | required |
| notes  | text    |          |
| owner  | User    | required |

## 4. States and transitions

### Claim

| from  | to    | transition | who |
| ----- | ----- | ---------- | --- |
| (new) | draft | file       |     |
| draft | sent  | send       |     |

## 6. Roles and permissions

| role     | Claim                                                              | joins                | people         |
| -------- | ------------------------------------------------------------------ | -------------------- | -------------- |
| manager  | all                                                                | -                    | manage         |
| employee | create, read own except (notes), update own (amount) while draft   | sign up (a.example)  | invite (employee) |
| auditor  | read                                                               | -                    | -              |
`;

describe('the permission grid of the Studio', () => {
  const { model, diagnostics } = checkSpec(SPEC);
  const matrix = permissionMatrix(model);
  const cell = (role: string) => matrix.rows[0]?.cells[matrix.roles.indexOf(role)];

  it('draws every record, own records and nothing as three kinds of mark, conditions in words', () => {
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const employee = cell('employee');
    if (!employee) throw new Error('no employee column');
    expect(permissionMarks(employee)).toEqual([
      { letter: 'C', operation: 'create', level: 'all', conditions: [] },
      { letter: 'R', operation: 'read', level: 'own', conditions: ['except (notes)'] },
      { letter: 'U', operation: 'update', level: 'own', conditions: ['(amount)', 'while draft'] },
      { letter: 'D', operation: 'delete', level: 'none', conditions: [] },
    ]);
    const auditor = cell('auditor');
    if (!auditor) throw new Error('no auditor column');
    expect(permissionMarks(auditor).map((m) => m.level)).toEqual(['none', 'all', 'none', 'none']);
  });

  it('says how each role joins and what it may do with people, and nothing for roles without either', () => {
    const words = Object.fromEntries(model.roles.map((r) => [r.name, peopleWords(r)]));
    expect(words).toEqual({
      manager: { joins: 'by invitation', people: 'manage' },
      employee: { joins: 'sign up (a.example)', people: 'invite (employee)' },
      auditor: null,
    });
  });
});
