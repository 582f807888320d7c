import { readFileSync } from 'node:fs';
import { checkSpec, type Model } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import type { EntityAccess, Me } from '../api/session.ts';
import { exportFields, filterFields, listColumns, searchableFields, sortableNames } from '../list/query.ts';
import { NO_ACCESS } from './access.ts';
import { visibleModel } from './visible-model.ts';

const source = readFileSync(new URL('../../../server/test/fixtures/blind-review.md', import.meta.url), 'utf8');
const model: Model = checkSpec(source).model;
const access = (readFields: string[] | null): EntityAccess => ({
  ...NO_ACCESS,
  read: 'all',
  update: 'all',
  updateFields: ['score'],
  readFields,
});
const reviewer: Me = {
  user: null,
  access: { Talk: access(['title', 'abstract', 'score']) },
  people: null,
  signUp: [],
  singleSignOn: null,
  twoFactor: null,
};
const organiser: Me = {
  user: null,
  access: { Talk: access(null) },
  people: null,
  signUp: [],
  singleSignOn: null,
  twoFactor: null,
};

describe('the model as a user sees it', () => {
  it('has only the fields point 6 lets a reviewer read, so lists, filters, sorts and exports never name the others', () => {
    const talk = visibleModel(model, reviewer).entities.find((e) => e.name === 'Talk');
    if (!talk) throw new Error('no Talk');
    const machine = model.machines.find((m) => m.entity === 'Talk');
    const screen = { filters: [] } as unknown as Parameters<typeof listColumns>[2];
    const named = [
      ...talk.fields.map((f) => f.name),
      ...listColumns(talk, machine, screen, talk.fields[0]).map((c) => c.name),
      ...filterFields(talk, machine).map((f) => f.name),
      ...searchableFields(talk).map((f) => f.name),
      ...sortableNames(talk, machine),
      ...exportFields(talk, machine),
    ];
    expect(named).toContain('title');
    expect(named).not.toContain('speaker');
    expect(named).not.toContain('bio');
    // The whole model is left as it was: the rules' checks need it.
    expect(model.entities.find((e) => e.name === 'Talk')?.fields.map((f) => f.name)).toContain('speaker');
  });

  it('is the model itself for a user who sees everything, and the same object each time', () => {
    expect(visibleModel(model, organiser)).toBe(model);
    expect(visibleModel(model, reviewer)).toBe(visibleModel(model, reviewer));
  });
});
