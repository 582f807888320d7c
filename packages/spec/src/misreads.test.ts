import { describe, expect, it } from 'vitest';
import { checkSpec } from './check.ts';

/** Specs as a new user writes them from the docs, and the diagnostic each misread must give (issue 28, items 6–8). */

const CLINIC = (
  appointmentCell: string,
  fields = '| doctor    | Doctor   | required |\n| patient   | Patient  | required |',
) => `# Specification: Clinic

## 1. What the product does and for whom

Patients ask for appointments; doctors keep notes.

## 2. Screens and routes

| route            | screen | shows                                 | who    |
| ---------------- | ------ | ------------------------------------- | ------ |
| /appointments    | list   | Appointment                           | admin  |
| /my/appointments | list   | Appointment where doctor.account = me | doctor |

## 3. Entities and their fields

### Doctor

| field   | type | rules            |
| ------- | ---- | ---------------- |
| name    | text | required         |
| account | User | required, unique |

### Patient

| field   | type | rules            |
| ------- | ---- | ---------------- |
| name    | text | required         |
| account | User | required, unique |

### Appointment

| field     | type     | rules    |
| --------- | -------- | -------- |
${fields}
| starts_at | datetime | required |
| notes     | text     |          |

## 4. States and transitions

Not shown.

## 5. Validation rules

Not shown.

## 6. Roles and permissions

| role    | Doctor | Patient | Appointment |
| ------- | ------ | ------- | ----------- |
| admin   | all    | all     | all         |
| doctor  | read   | read    | ${appointmentCell} |

## 7. The calls it makes

Not shown.

## 8. The error catalogue

Not shown.

## 9. Business constants and limits

Not shown.
`;

const found = (source: string) => checkSpec(source).diagnostics;

describe('own records that are nobody’s (item 6)', () => {
  it('warns when a role may read and update its own records of an entity that names no user, hinting own via its screen’s chain', () => {
    const [own, ...others] = found(CLINIC('read own, update own'));
    expect(others).toEqual([]);
    expect(own).toMatchObject({ code: 'own-without-owner', severity: 'warning' });
    expect(own?.message).toContain('doctor may read own, update own Appointment');
    expect(own?.hint).toContain('read own via doctor.account, update own via doctor.account');
  });

  it('is quiet once the chain is given, and for a role that creates the records (they are its own by created_by)', () => {
    expect(found(CLINIC('read own via doctor.account, update own via doctor.account'))).toEqual([]);
    expect(found(CLINIC('create, read own, update own'))).toEqual([]);
  });

  it('whose hint works: the spec with it applied checks clean', () => {
    const hint = found(CLINIC('read own, update own'))[0]?.hint ?? '';
    const fixed = /: (.*)\.$/.exec(hint)?.[1] ?? '';
    expect(found(CLINIC(fixed))).toEqual([]);
  });
});

describe('create own (item 7)', () => {
  const withUser = '| doctor    | Doctor   | required |\n| patient   | User     | required |';
  it('hints default me on the User field and a create list without it', () => {
    const [own] = found(CLINIC('create own, read', withUser));
    expect(own?.code).toBe('invalid-permission');
    expect(own?.hint).toBe(
      'Give patient "default me" in point 3 and write "create (doctor, starts_at, notes)": a new Appointment then names its creator, who cannot set patient to someone else.',
    );
    // Followed, it checks clean.
    const defaulted = withUser.replace(
      '| patient   | User     | required |',
      '| patient   | User     | required, default me |',
    );
    expect(found(CLINIC('create (doctor, starts_at, notes), read', defaulted))).toEqual([]);
  });

  it('still says "Write create" when the entity has no User field', () => {
    expect(found(CLINIC('create own, read'))[0]?.hint).toBe('Write "create".');
  });
});

describe('type errors and reserved names (item 8)', () => {
  const rules = (condition: string, field = '| lender    | User     | required |') =>
    CLINIC('read', `| doctor    | Doctor   | required |\n${field}`)
      .replace(
        '## 5. Validation rules\n\nNot shown.',
        `## 5. Validation rules\n\n| rule | applies to  | condition | error |\n| ---- | ----------- | --------- | ----- |\n| r    | Appointment | ${condition} | BAD   |`,
      )
      .replace(
        '## 8. The error catalogue\n\nNot shown.',
        '## 8. The error catalogue\n\n| code | status | message |\n| ---- | ------ | ------- |\n| BAD  | 422    | No.     |',
      );

  it('hints at a date constant or timestamp(…) for a date compared with text', () => {
    const [error] = found(rules('starts_at > "2026-01-01"'));
    expect(error?.code).toBe('expression-type');
    expect(error?.hint).toContain('timestamp("2026-01-01T00:00:00Z")');
    expect(error?.hint).toContain('date constant');
    expect(found(rules('starts_at > timestamp("2026-01-01T00:00:00Z")'))).toEqual([]);
  });

  it('hints at comparing ids for User != User', () => {
    const [error] = found(rules('lender != user'));
    expect(error?.message).toContain('User != User');
    expect(error?.hint).toContain('compare ids');
    expect(found(rules('lender.id != user.id'))).toEqual([]);
  });

  it('reports a field named user once, not again at each use', () => {
    const source = rules('has(user)', '| user      | User     | required |')
      .replace(
        '| /appointments    | list   | Appointment                           | admin  |',
        '| /appointments    | list   | Appointment where user = me           | admin  |',
      )
      .replace(
        '| admin   | all    | all     | all         |',
        '| admin   | all    | all     | create, read, update own (user) |',
      );
    expect(found(source).map((d) => d.code)).toEqual(['reserved-name']);
  });
});
