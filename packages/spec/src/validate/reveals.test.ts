import { describe, expect, it } from 'vitest';
import { checkSpec } from '../check.ts';
import { explainModel } from '../explain.ts';

/** Projects with a budget members may not read; expenses against them; positions with a salary. */
const spec = (rules: string, roles: string, extra = '') => `# Specification: Budgets

## 1. What the product does and for whom

Members book expenses against projects.

## 3. Entities and their fields

### Project

| field  | type    | rules    |
| ------ | ------- | -------- |
| name   | text    | required |
| budget | integer | required |
| owner  | User    | optional |

### Expense

| field   | type    | rules    |
| ------- | ------- | -------- |
| project | Project | required |
| amount  | integer | required |

### Position

| field  | type    | rules    |
| ------ | ------- | -------- |
| cost   | integer | required |
| salary | integer | required |
${extra}
## 5. Validation rules

${rules}

## 6. Roles and permissions

${roles}

## 8. The error catalogue

| code        | status | message                    |
| ----------- | ------ | -------------------------- |
| OVER_BUDGET | 422    | Over the project's budget. |
| TOO_CHEAP   | 422    | Too cheap.                 |
| TOO_MANY    | 409    | Too many.                  |
| NOT_YET     | 422    | Not yet.                   |
`;

const ROLES = `| role    | Project              | Expense        | Position                       |
| ------- | -------------------- | -------------- | ------------------------------ |
| admin   | all                  | all            | all                            |
| member  | read except (budget) | create, read   | read except (salary), update (cost) |`;

const reveals = (source: string) => checkSpec(source).diagnostics.filter((d) => d.code === 'reveals-hidden');

describe('rules, guards and limits that read what the role that triggers them may not (reveals-hidden)', () => {
  it('warns of a rule reading a hidden field through a reference, naming the rule, the role and the field, with a hint', () => {
    const found = reveals(
      spec(
        `| rule           | applies to    | condition              | error       |
| -------------- | ------------- | ---------------------- | ----------- |
| within budget  | Expense.amount | value <= project.budget | OVER_BUDGET |`,
        ROLES,
      ),
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ severity: 'warning' });
    expect(found[0]?.message).toContain('Rule "within budget"');
    expect(found[0]?.message).toContain('project.budget');
    expect(found[0]?.message).toContain('member');
    expect(found[0]?.message).not.toContain('admin');
    expect(found[0]?.hint).toContain('"reveals" column');
  });

  it('warns of a rule reading a hidden field of the record itself, for the role that may update it', () => {
    const found = reveals(
      spec(
        `| rule         | applies to    | condition                 | error     |
| ------------ | ------------- | ------------------------- | --------- |
| paid enough  | Position.cost | value + 100000 >= salary  | TOO_CHEAP |`,
        ROLES,
      ),
    );
    expect(found.map((d) => d.message)).toEqual([expect.stringMatching(/reads salary, which member may not read/)]);
  });

  it('is silenced by the rule’s "reveals" column, naming the path or saying yes', () => {
    for (const cell of ['project.budget', 'yes']) {
      const source = spec(
        `| rule          | applies to    | condition               | error       | reveals |
| ------------- | ------------- | ----------------------- | ----------- | ------- |
| within budget | Expense.amount | value <= project.budget | OVER_BUDGET | ${cell} |`,
        ROLES,
      );
      expect(reveals(source), cell).toEqual([]);
      expect(checkSpec(source).model.rules[0]?.reveals).toEqual(cell === 'yes' ? 'all' : ['project.budget']);
    }
    const other = spec(
      `| rule          | applies to    | condition               | error       | reveals |
| ------------- | ------------- | ----------------------- | ----------- | ------- |
| within budget | Expense.amount | value <= project.budget | OVER_BUDGET | name    |`,
      ROLES,
    );
    expect(reveals(other)).toHaveLength(1);
  });

  it('warns of a limit counting records the role may not read, and not when it counts only the role’s own', () => {
    const limit = (per: string) =>
      spec(
        `| rule     | applies to | condition                   | error    |
| -------- | ---------- | --------------------------- | -------- |
| a few    | Project    | at most 3 Project per ${per} | TOO_MANY |`,
        `| role   | Project          | Expense | Position |
| ------ | ---------------- | ------- | -------- |
| admin  | all              | all     | all      |
| member | create, read own | -       | -        |`,
      );
    const counted = reveals(limit('name'));
    expect(counted.map((d) => d.message)).toEqual([
      expect.stringMatching(/counts Project records member may not read/),
    ]);
    expect(counted[0]?.hint).toContain('"count"');
    expect(reveals(limit('owner'))).toEqual([]);
  });

  it('warns of count(…) in a rule or guard counting records the role may not read, and not of its own or all readable', () => {
    const counting = (expense: string, reveals = '') =>
      spec(
        `| rule      | applies to | condition                               | error    | reveals    |
| --------- | ---------- | --------------------------------------- | -------- | ---------- |
| not busy  | Project    | count(Expense where project = this) < 5 | TOO_MANY | ${reveals} |
| mine few  | Project    | count(Expense where created_by = user) < 9 | TOO_MANY |          |`,
        `| role   | Project      | Expense    | Position |
| ------ | ------------ | ---------- | -------- |
| admin  | all          | all        | all      |
| member | read, update | ${expense} | -        |`,
        `
## 4. States and transitions

### Project

| transition | from  | to     | who    | when                                     | error   |
| ---------- | ----- | ------ | ------ | ---------------------------------------- | ------- |
| open       | (new) | open   |        |                                          |         |
| close      | open  | closed | member | count(Expense where project = this) == 0 | NOT_YET |
`,
      );
    const found = reveals(counting('create, read own'));
    // In the spec's order: point 4's guard, then point 5's rule.
    expect(found.map((d) => d.message)).toEqual([
      expect.stringMatching(/^The guard of "close" counts Expense records member may not read: .*\(NOT_YET\)/),
      expect.stringMatching(/^Rule "not busy" counts Expense records member may not read: .*\(TOO_MANY\)/),
    ]);
    expect(found[0]?.hint).toContain('"Project: close" with "count"');
    expect(found[1]?.hint).toMatch(/write "count" in the rule's "reveals" column/);
    // Marked as meant to tell: only the guard is left.
    expect(reveals(counting('create, read own', 'count')).map((d) => d.message)).toEqual([
      expect.stringMatching(/^The guard of "close"/),
    ]);
    // Members read every expense: a count tells them nothing they could not read.
    expect(reveals(counting('create, read'))).toEqual([]);
  });

  it('warns of count(…) by a field the role may not read on records it may read: the count tells which records point here', () => {
    const counting = (expense: string, reveals = '') =>
      spec(
        `| rule     | applies to | condition                               | error    | reveals    |
| -------- | ---------- | --------------------------------------- | -------- | ---------- |
| not busy | Project    | count(Expense where project = this) < 5 | TOO_MANY | ${reveals} |`,
        `| role   | Project      | Expense    | Position |
| ------ | ------------ | ---------- | -------- |
| admin  | all          | all        | all      |
| member | read, update | ${expense} | -        |`,
      );
    const found = reveals(counting('create, read except (project)'));
    expect(found.map((d) => d.message)).toEqual([
      expect.stringMatching(/^Rule "not busy" reads Expense\.project, which member may not read: .*\(TOO_MANY\)/),
    ]);
    expect(found[0]?.hint).toMatch(/write "Expense\.project" in the rule's "reveals" column/);
    expect(reveals(counting('create, read except (project)', 'Expense.project'))).toEqual([]);
    expect(reveals(counting('create, read except (project)', 'count'))).toEqual([]);
    expect(reveals(counting('create, read'))).toEqual([]);
  });

  it('warns of a guard a role may take reading a hidden field, and points at a marked rule instead', () => {
    const found = reveals(
      spec(
        '',
        `| role   | Project                      | Expense | Position |
| ------ | ---------------------------- | ------- | -------- |
| admin  | all                          | all     | all      |
| member | read except (budget), update | -       | -        |`,
        `
## 4. States and transitions

### Project

| transition | from  | to     | who    | when        | error   |
| ---------- | ----- | ------ | ------ | ----------- | ------- |
| open       | (new) | open   |        |             |         |
| fund       | open  | funded | member | budget > 10 | NOT_YET |
`,
      ),
    );
    expect(found.map((d) => d.message)).toEqual([
      expect.stringMatching(/^The guard of "fund" reads budget, which member may not read.*\(NOT_YET\)/),
    ]);
    expect(found[0]?.hint).toContain('"Project: fund"');
  });

  it('gives nothing when point 6 hides nothing', () => {
    const source = spec(
      `| rule          | applies to    | condition               | error       |
| ------------- | ------------- | ----------------------- | ----------- |
| within budget | Expense.amount | value <= project.budget | OVER_BUDGET |`,
      `| role   | Project | Expense      | Position |
| ------ | ------- | ------------ | -------- |
| member | read    | create, read | all      |`,
    );
    expect(reveals(source)).toEqual([]);
  });
});

describe('authors who would name a hidden User field (author-reveals-hidden-field)', () => {
  const talks = (reviewer: string) => `# Specification: Talks

## 1. What the product does and for whom

Speakers submit talks, reviewers mark them blind.

## 3. Entities and their fields

### Talk

| field   | type | rules                |
| ------- | ---- | -------------------- |
| title   | text | required             |
| speaker | User | required, default me |

## 6. Roles and permissions

| role     | Talk                   |
| -------- | ---------------------- |
| speaker  | create, read own       |
| reviewer | ${reviewer} |
`;

  it('warns when a role hides a User field but sees who created records their subjects create', () => {
    const found = checkSpec(talks('read except (speaker)')).diagnostics.filter(
      (d) => d.code === 'author-reveals-hidden-field',
    );
    expect(found).toHaveLength(1);
    expect(found[0]?.message).toContain('reviewer does not see Talk.speaker, but sees created_by');
    expect(found[0]?.hint).toContain('read except (speaker, created_by)');
  });

  it('is satisfied by "read except (speaker, created_by)", which hides authors from the role', () => {
    const checked = checkSpec(talks('read except (speaker, created_by)'));
    expect(checked.diagnostics.filter((d) => d.severity !== 'warning' || d.code !== 'missing-section')).toEqual([]);
    const reviewer = checked.model.permissions.find((p) => p.role === 'reviewer');
    expect(reviewer).toMatchObject({ hidesAuthor: true, readFields: ['title'] });
    expect(explainModel(checked.model)).toContain('reviewer may read (only title, not who made or changed them) Talk');
  });

  it('refuses created_by in the fields a role sets', () => {
    const checked = checkSpec(talks('create (title, created_by), read'));
    expect(checked.diagnostics).toContainEqual(
      expect.objectContaining({ code: 'invalid-permission', message: expect.stringContaining('created_by') }),
    );
  });
});
