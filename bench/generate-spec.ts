/**
 * A large, valid spec for benchmarks: `entities` entities with 10 fields each, one state machine
 * per entity (4 states, 4 transitions, one guard), a rule and a limit per entity, three roles.
 */
export function generateSpec(entities: number): string {
  const names = Array.from({ length: entities }, (_, i) => `Thing${i}`);
  const out: string[] = [
    `# Specification: Generated product with ${entities} entities`,
    '',
    '## 1. What the product does and for whom',
    'A generated product used to measure the checker.',
    '',
    '## 2. Screens and routes',
    '| route | screen | shows | who |',
    '|---|---|---|---|',
    '| / | home | | |',
  ];
  for (const [i, name] of names.entries()) {
    out.push(`| /things-${i} | list | ${name} | staff, member |`, `| /things-${i}/:id | detail | ${name} | staff |`);
  }
  out.push('', '## 3. Entities and their fields');
  for (const [i, name] of names.entries()) {
    out.push(
      `### ${name}`,
      `Thing number ${i}.`,
      '| field | type | rules |',
      '|---|---|---|',
      '| title | text | required, 1..200 characters |',
      '| code | text | unique, pattern `^[A-Z]{3}-[0-9]+$` |',
      '| amount | decimal(2) | 0..MAX_AMOUNT |',
      '| count | integer | required, 0..100, default 1 |',
      '| active | boolean | default true |',
      '| due | date | |',
      '| contact | email | |',
      '| level | choice of low, normal, high | default normal |',
      `| owner | User | required, default me |`,
      `| parent | ${names[Math.max(0, i - 1)]} | |`,
      '',
    );
  }
  out.push('## 4. States and transitions');
  for (const name of names) {
    out.push(
      `### ${name}`,
      '| transition | from | to | who | when |',
      '|---|---|---|---|---|',
      '| open | (new) | draft | staff, member | |',
      '| submit | draft | submitted | member | count > 0 && size(title) > 2 |',
      '| approve | submitted | approved | staff | amount <= MAX_AMOUNT |',
      '| archive | approved, submitted | archived | staff | |',
      '',
    );
  }
  out.push('## 5. Validation rules', '| rule | applies to | condition | error |', '|---|---|---|---|');
  for (const [i, name] of names.entries()) {
    out.push(`| due later ${i} | ${name}.due | value > created_at | DUE_TOO_EARLY |`);
    out.push(
      `| open limit ${i} | ${name} | at most MAX_OPEN ${name} in state draft, submitted per owner | TOO_MANY_OPEN |`,
    );
  }
  out.push(
    '',
    '## 6. Roles and permissions',
    `| role | ${names.join(' | ')} |`,
    `|---|${names.map(() => '---').join('|')}|`,
    `| staff | ${names.map(() => 'all').join(' | ')} |`,
    `| member | ${names.map(() => 'create, read own, update own').join(' | ')} |`,
    `| auditor | ${names.map(() => 'read').join(' | ')} |`,
    '',
    '## 7. The calls it makes',
    'Not shown.',
    '',
    '## 8. The error catalogue',
    '| code | status | message |',
    '|---|---|---|',
    '| DUE_TOO_EARLY | 422 | The due date must be after the record was made. |',
    '| TOO_MANY_OPEN | 409 | At most {MAX_OPEN} open records per owner. |',
    '',
    '## 9. Business constants and limits',
    '| name | value | meaning |',
    '|---|---|---|',
    '| MAX_AMOUNT | 10000 | largest amount |',
    '| MAX_OPEN | 5 | open records per owner |',
    '',
  );
  return out.join('\n');
}
