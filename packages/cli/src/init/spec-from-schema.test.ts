import { checkSpec } from '@ninepoint/spec';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoInstant } from './copy-rows.ts';
import { checkClauses } from './read-sqlite.ts';
import type { SourceColumn, SourceTable } from './source-schema.ts';
import { choiceCheck, entityName, rangeCheck, specFromSchema } from './spec-from-schema.ts';

const column = (name: string, type: string, more: Partial<SourceColumn> = {}): SourceColumn => ({
  name,
  type,
  maxLength: null,
  scale: null,
  notNull: false,
  default: null,
  enumValues: null,
  generated: false,
  stats: null,
  ...more,
});

const table = (name: string, columns: SourceColumn[], more: Partial<SourceTable> = {}): SourceTable => ({
  name,
  columns,
  primaryKey: [],
  foreignKeys: [],
  uniques: [],
  checks: [],
  ...more,
});

describe('init --from: the spec written from tables', () => {
  it('names entities in the singular, capitalised, away from the names Ninepoint keeps', () => {
    expect(['order_items', 'people', 'Categories', 'queue', 'userSessions', '2fa_codes'].map(entityName)).toEqual([
      'OrderItem',
      'Person',
      'Category',
      'Queue',
      'UserSession',
      'T2faCode',
    ]);
    const plan = specFromSchema(
      {
        description: 'test',
        tables: [
          table('users', [column('id', 'integer', { notNull: true, generated: true }), column('email', 'text')], {
            primaryKey: ['id'],
          }),
          table(
            'posts',
            [
              column('id', 'integer', { generated: true }),
              column('user_id', 'integer', { notNull: true }),
              column('created_by', 'integer'),
              column('state', 'text'),
              column('status', 'text'),
              column('type', 'text'),
            ],
            {
              primaryKey: ['id'],
              foreignKeys: [
                { columns: ['user_id'], table: 'users', refColumns: ['id'] },
                { columns: ['created_by'], table: 'users', refColumns: ['id'] },
              ],
            },
          ),
        ],
      },
      'Blog',
    );
    expect(plan.entities.map((e) => [e.entity, e.fields.map((f) => `${f.name}: ${f.type}`)])).toEqual([
      ['UserRecord', ['source_id: integer', 'email: email']],
      [
        'Post',
        ['user_id: UserRecord', 'creator: UserRecord', 'source_state: text', 'status: text', 'source_type: text'],
      ],
    ]);
    expect(checkSpec(plan.text).ok).toBe(true);
    expect(plan.entities[1]?.fields.map((f) => f.label)).toEqual(['', '', 'State', '', 'Type']);
  });

  it('labels abbreviated columns as a person would write them', () => {
    const plan = specFromSchema(
      {
        description: 'test',
        tables: [
          table('order_lines', [
            column('order_qty', 'integer', { notNull: true }),
            column('customerDob', 'date'),
            column('unit_price', 'numeric', { scale: 2 }),
          ]),
        ],
      },
      'Shop',
    );
    expect(plan.entities[0]?.fields.map((f) => [f.name, f.label])).toEqual([
      ['order_qty', 'Order quantity'],
      ['customerDob', 'Customer date of birth'],
      ['unit_price', ''],
    ]);
    expect(plan.text).toContain('| order_qty   | integer    | required | Order quantity         |');
    expect(checkSpec(plan.text).ok).toBe(true);
  });

  it('keeps a list of values a choice cannot hold as text, and a value listed twice once', () => {
    const plan = specFromSchema(
      {
        description: 'test',
        tables: [
          table('tickets', [column('priority', 'text'), column('size', 'text'), column('kind', 'text')], {
            checks: ["priority IN ('low', 'low', 'high')", "size IN ('S', 'M ')", "kind IN ('a/b', 'c')"],
          }),
        ],
      },
      'Desk',
    );
    expect(plan.entities[0]?.fields.map((f) => f.type)).toEqual(['choice of low, high', 'text', 'text']);
    expect(plan.entities[0]?.notes).toEqual([
      '`size`: its values ("S", "M ") cannot all be choice values; kept as text.',
      '`kind`: its values ("a/b", "c") cannot all be choice values; kept as text.',
    ]);
    expect(checkSpec(plan.text).ok).toBe(true);
  });

  it('reads value lists and simple bounds from check constraints as SQLite and PostgreSQL print them', () => {
    const checks = (...sql: string[]) => sql.map((s) => ({ sql: s, used: false }));
    expect(choiceCheck('status', checks("status IN ('open', 'it''s done')"))).toEqual(['open', "it's done"]);
    expect(
      choiceCheck(
        'format',
        checks("((format)::text = ANY ((ARRAY['hardback'::character varying, 'ebook'::character varying])::text[]))"),
      ),
    ).toEqual(['hardback', 'ebook']);
    expect(choiceCheck('status', checks("status IN ('a') OR other = 1"))).toBeNull();
    expect(choiceCheck('status', checks("kind IN ('a', 'b')"))).toBeNull();
    expect(rangeCheck('pages', 'integer', checks('((pages > 0) AND (pages < 5000))'))).toBe('1..4999');
    expect(rangeCheck('price', 'decimal', checks('price >= 0'))).toBe('at least 0');
    expect(rangeCheck('n', 'integer', checks('n BETWEEN 1 AND 5'))).toBe('1..5');
    expect(rangeCheck('price', 'decimal', checks('price > 0'))).toBeNull();
    expect(checkClauses("CREATE TABLE t (a TEXT CHECK (a IN ('x)', 'y')), b INT, CHECK (b > (1)))")).toEqual([
      "a IN ('x)', 'y')",
      'b > (1)',
    ]);
  });

  it('writes moments as ISO 8601 in UTC, a time without a zone read as UTC', () => {
    expect(isoInstant('2024-04-01 09:00:00+02')).toBe('2024-04-01T07:00:00.000Z');
    expect(isoInstant('2024-04-01 09:00:00.5')).toBe('2024-04-01T09:00:00.500Z');
    expect(isoInstant('2024-04-01T09:00:00+0530')).toBe('2024-04-01T03:30:00.000Z');
    expect(isoInstant('1700000000')).toBe('2023-11-14T22:13:20.000Z');
    expect(isoInstant('yesterday')).toBe('yesterday');
  });

  it('writes a spec that checks clean whatever the tables and columns are called and hold', () => {
    const name = fc.oneof(
      fc.string({ minLength: 1, maxLength: 12 }),
      fc.constantFrom('id', 'state', 'user', 'users', 'type', 'created_at', 'health', 'in', 'User', '_version', 'a b'),
    );
    const type = fc.constantFrom(
      'integer',
      'text',
      'varchar',
      'numeric',
      'boolean',
      'date',
      'timestamp',
      'jsonb',
      'blob',
      'int[]',
      'point',
      '',
    );
    const col = fc.record({
      name,
      type,
      notNull: fc.boolean(),
      default: fc.option(fc.string({ maxLength: 8 }), { nil: null }),
    });
    const tables = fc.uniqueArray(
      fc.record({ name, columns: fc.uniqueArray(col, { minLength: 1, maxLength: 5, selector: (c) => c.name }) }),
      {
        minLength: 1,
        maxLength: 4,
        selector: (t) => t.name,
      },
    );
    fc.assert(
      fc.property(tables, fc.nat(), (drawn, seed) => {
        const schema = drawn.map((t, i) => {
          const target = drawn[(i + seed) % drawn.length];
          const first = t.columns[0]?.name ?? '';
          return table(
            t.name,
            t.columns.map((c) => column(c.name, c.type, { notNull: c.notNull, default: c.default })),
            {
              primaryKey: seed % 2 === 1 && t.columns[2] ? [first, t.columns[2].name] : [first],
              foreignKeys:
                target && target !== t && t.columns[1]
                  ? [{ columns: [t.columns[1].name], table: target.name, refColumns: [target.columns[0]?.name ?? ''] }]
                  : [],
              checks: [`${first} IN ('a', 'b')`],
            },
          );
        });
        const plan = specFromSchema({ description: 'drawn', tables: schema }, 'Drawn');
        const checked = checkSpec(plan.text);
        expect(checked.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      }),
      { numRuns: 150, seed: 29 },
    );
  });
});
