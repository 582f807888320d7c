import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkSpec } from './check.ts';
import { entityDiagram, mermaidText, specDiagrams, stateDiagram } from './diagrams.ts';
import type { Entity, Field } from './model.ts';
import { formatPermissionMatrix, permissionMatrix, SIGNED_IN } from './permission-matrix.ts';
import { pointProgress } from './progress.ts';

const model = (name: string) =>
  checkSpec(readFileSync(new URL(`../../../examples/${name}`, import.meta.url), 'utf8')).model;

describe('specDiagrams', () => {
  it('draws an entity diagram and a state diagram per machine, every transition an arrow', () => {
    const lending = model('lending-desk.md');
    const diagrams = specDiagrams(lending);
    expect(diagrams.map((d) => d.title)).toEqual([
      'Entities and references',
      ...lending.machines.map((m) => `${m.entity} states`),
    ]);
    for (const machine of lending.machines) {
      const text = diagrams.find((d) => d.entity === machine.entity)?.mermaid ?? '';
      expect(text.startsWith('stateDiagram-v2\n')).toBe(true);
      for (const t of machine.transitions) expect(text).toContain(`: ${mermaidText(t.name)}`);
      for (const s of machine.states) expect(text).toContain(`state "${s.name}"`);
    }
    const er = diagrams[0]?.mermaid ?? '';
    expect(er).toContain('"Book" ||--o{ "Loan" : "book"');
    expect(er).toContain('"User" { }');
  });

  it('labels a transition with what it sets', () => {
    const text = specDiagrams(model('lending-desk.md')).find((d) => d.entity === 'Loan')?.mermaid ?? '';
    expect(text).toContain(
      `s0 --> s0 : ${mermaidText('renew (staff) when renewals < MAX_RENEWALS sets due = due + LOAN_PERIOD; renewals = renewals + 1')}`,
    );
  });

  it('labels a transition the system takes by itself, after a time or when a condition over time holds', () => {
    const loans = specDiagrams(model('lending-desk.md')).find((d) => d.entity === 'Loan')?.mermaid ?? '';
    expect(loans).toContain(`s0 --> s1 : ${mermaidText('mark overdue ⏱ automatic (staff) when now > due')}`);
    const tickets = model('helpdesk.md').machines.find((m) => m.entity === 'Ticket');
    if (!tickets) throw new Error('the helpdesk has a Ticket machine');
    const waiting = {
      ...tickets,
      transitions: tickets.transitions.map((t) =>
        t.automatic
          ? {
              ...t,
              guard: null,
              automatic: { kind: 'after' as const, seconds: 4 * 3600, constant: null, state: 'new' },
            }
          : t,
      ),
    };
    const drawn = stateDiagram(waiting);
    expect(drawn).toContain(mermaidText('miss service level ⏱ after 4 hours in new'));
    expect(drawn).not.toContain('⏱ automatic');
  });

  it('writes guards with Mermaid entity codes, so comparisons draw as written', () => {
    expect(mermaidText('amount <= LIMIT; "x"')).toBe('amount #60;= LIMIT#59; #34;x#34;');
  });

  it('quotes entity names, so one named like a Mermaid word (Class, End, One) still draws', () => {
    const field = (name: string, type: Field['type']): Field =>
      ({ name, type, required: true, unique: false }) as Field;
    const er = entityDiagram([
      { name: 'Class', fields: [field('title', { kind: 'text' })] } as Entity,
      { name: 'End', fields: [field('class', { kind: 'reference', entity: 'Class' })] } as Entity,
    ]);
    expect(er).toContain('\n  "Class" {\n    text title "required"\n  }');
    expect(er).toContain('\n  "End" {\n    Class class FK "required"\n  }');
    expect(er).toContain('\n  "Class" ||--o{ "End" : "class"');
    expect(er).not.toMatch(/^ {2}(Class|End) /m);
  });

  it('quotes a field or type named like a key marker (pk, FK, Uk), so it still draws', () => {
    const field = (name: string, type: Field['type']): Field =>
      ({ name, type, required: false, unique: false }) as Field;
    const er = entityDiagram([
      { name: 'Pk', fields: [field('pk', { kind: 'text' }), field('title', { kind: 'text' })] } as Entity,
      { name: 'Part', fields: [field('FK', { kind: 'reference', entity: 'Pk' })] } as Entity,
    ]);
    expect(er).toContain('\n    text `pk`\n    text title\n');
    expect(er).toContain('\n    `Pk` `FK` FK\n');
  });

  it('draws nothing for the blank spec', () => {
    expect(specDiagrams(model('blank.md'))).toEqual([]);
  });
});

describe('permissionMatrix', () => {
  it('has a column per role and names what each may do', () => {
    const matrix = permissionMatrix(model('lending-desk.md'));
    expect(matrix.derived).toBe(false);
    expect(matrix.roles).toContain('staff');
    const table = formatPermissionMatrix(matrix);
    expect(table.split('\n')[0]).toBe(`| entity | ${matrix.roles.join(' | ')} |`);
    expect(table).toMatch(/\| Loan \|/);
  });

  it('shows the runtime default when point 6 is not shown', () => {
    const matrix = permissionMatrix({ ...model('lending-desk.md'), roles: [], permissions: [] });
    expect(matrix.roles).toEqual([SIGNED_IN]);
    expect(matrix.rows.every((r) => r.cells.every((c) => c.create && c.read === 'all'))).toBe(true);
  });
});

describe('pointProgress', () => {
  it('says what the runtime derives for a point not shown, and which can be inserted', () => {
    // The helpdesk without its notifications: point 7 not shown.
    const source = readFileSync(new URL('../../../examples/helpdesk.md', import.meta.url), 'utf8');
    const bare = source.replace(
      /## 7\. The calls it makes\n[\s\S]*?(?=\n## 8\.)/,
      '## 7. The calls it makes\n\nNot shown.\n',
    );
    const helpdesk = pointProgress(checkSpec(bare).model);
    const calls = helpdesk.find((p) => p.key === 'calls');
    expect(calls?.shown).toBe(false);
    expect(calls?.insertable).toBe('calls');
    expect(calls?.instead).toMatch(/^\d+ derived calls: /);
    expect(helpdesk.filter((p) => p.shown).every((p) => p.instead === null)).toBe(true);
  });

  it('offers nothing to insert for the blank spec, which has no entities', () => {
    expect(pointProgress(model('blank.md')).every((p) => !p.shown && p.insertable === null)).toBe(true);
  });
});
