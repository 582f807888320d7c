import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { blankSpec } from './blank-spec.ts';
import { checkSpec } from './check.ts';

const dir = new URL('../../../examples/', import.meta.url);
const examples = readdirSync(dir).filter((f) => f.endsWith('.md') && f !== 'README.md');

describe('the example specs', () => {
  it('include the blank spec and at least three realistic products', () => {
    expect(examples).toContain('blank.md');
    expect(examples.length).toBeGreaterThanOrEqual(4);
  });

  it('keep examples/blank.md identical to what `ninepoint new` writes', () => {
    expect(readFileSync(new URL('blank.md', dir), 'utf8')).toBe(blankSpec());
  });

  it.each(examples)('%s checks with no diagnostics', (file) => {
    const { diagnostics } = checkSpec(readFileSync(new URL(file, dir), 'utf8'));
    expect(diagnostics.map((d) => `${d.line}:${d.column} ${d.code} ${d.message}`)).toEqual([]);
  });

  it('use every construct of the format between them', () => {
    const models = examples
      .filter((f) => f !== 'blank.md')
      .map((f) => checkSpec(readFileSync(new URL(f, dir), 'utf8')).model);
    const fields = models.flatMap((m) => m.entities.flatMap((e) => e.fields));
    const kinds = new Set(fields.map((f) => f.type.kind));
    expect([...kinds].sort()).toEqual([
      'boolean',
      'choice',
      'date',
      'datetime',
      'decimal',
      'email',
      'integer',
      'longText',
      'reference',
      'text',
      'url',
    ]);
    expect(fields.some((f) => f.type.kind === 'reference' && f.type.entity === 'User')).toBe(true);
    expect(fields.some((f) => f.type.kind === 'decimal' && f.type.scale !== null)).toBe(true);
    expect(new Set(fields.flatMap((f) => (f.default && 'dynamic' in f.default ? [f.default.dynamic] : [])))).toEqual(
      new Set(['now', 'today', 'me']),
    );
    expect(fields.some((f) => f.unique)).toBe(true);
    expect(fields.some((f) => f.pattern)).toBe(true);
    expect(fields.some((f) => f.max?.constant)).toBe(true);
    expect(fields.some((f) => f.maxLength)).toBe(true);
    const screens = models.flatMap((m) => m.screens);
    expect(new Set(screens.map((s) => s.kind))).toEqual(
      new Set(['home', 'list', 'detail', 'form', 'board', 'dashboard']),
    );
    expect(screens.some((s) => s.filters.some((f) => 'me' in f.value))).toBe(true);
    expect(
      screens.some((s) => s.who.includes('anyone')) ||
        models.some((m) => m.permissions.some((p) => p.role === 'anyone')),
    ).toBe(true);
    const transitions = models.flatMap((m) => m.machines.flatMap((x) => x.transitions));
    expect(transitions.some((t) => t.guard)).toBe(true);
    const rules = models.flatMap((m) => m.rules);
    expect(rules.some((r) => r.condition.kind === 'limit')).toBe(true);
    expect(rules.some((r) => r.appliesTo.field)).toBe(true);
    expect(rules.some((r) => r.appliesTo.transition)).toBe(true);
    expect(rules.some((r) => !r.appliesTo.field && !r.appliesTo.transition && r.condition.kind === 'expression')).toBe(
      true,
    );
    const access = models.flatMap((m) => m.permissions.flatMap((p) => [p.read, p.update, p.delete]));
    expect(access).toContain('own');
    const calls = models.flatMap((m) => m.calls);
    expect(new Set(calls.map((c) => c.action.kind))).toEqual(
      new Set(['list', 'get', 'create', 'update', 'delete', 'history', 'transition', 'code']),
    );
    // Point 7's TypeScript: a hook before and after a write, and a scheduled module.
    expect(new Set(models.flatMap((m) => m.hooks.map((h) => h.moment)))).toEqual(
      new Set(['before', 'after', 'schedule']),
    );
    expect(models.some((m) => m.schedules.length > 0)).toBe(true);
    expect(calls.some((c) => c.payload?.fields)).toBe(true);
    // Some example lists no API call, so its API is derived.
    expect(models.some((m) => m.calls.length === 0)).toBe(true);
    const recipients = models.flatMap((m) => m.notifications.flatMap((n) => n.to));
    expect(recipients.some((r) => r.kind === 'field')).toBe(true);
    expect(models.some((m) => m.webhooks.some((w) => w.url.kind === 'env' && w.fields !== null))).toBe(true);
    const errors = models.flatMap((m) => m.errors);
    expect(errors.some((e) => /\{[A-Z_]+\}/.test(e.message))).toBe(true);
    expect(errors.some((e) => /\{[a-z_]+\}/.test(e.message))).toBe(true);
    expect(
      errors.some((e) =>
        ['NOT_FOUND', 'CONFLICT', 'FORBIDDEN', 'TRANSITION_NOT_ALLOWED', 'RATE_LIMITED'].includes(e.code),
      ),
    ).toBe(true);
    const constantTypes = new Set(models.flatMap((m) => m.constants.map((c) => c.type)));
    expect(constantTypes).toEqual(new Set(['integer', 'decimal', 'boolean', 'text', 'duration']));
  });
});
