import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkSpec } from './check.ts';
import { conditionWords } from './condition-words.ts';
import { findCounts } from './filled-terms.ts';

const CONFERENCE = readFileSync(new URL('../../server/test/fixtures/conference.md', import.meta.url), 'utf8');

describe('counts of related records in expressions', () => {
  it('replaces each count by an int variable of the same length, outside string literals', () => {
    const source = 'count(Review in state draft, sent where talk = this) >= 2 && title != "count(x)"';
    const { rewritten, terms, mistakes } = findCounts(source);
    expect(rewritten).toHaveLength(source.length);
    expect(rewritten).toMatch(/^_count0_+ >= 2 && title != "count\(x\)"$/);
    expect(terms).toEqual([
      expect.objectContaining({ entity: 'Review', field: 'talk', target: 'this', states: ['draft', 'sent'] }),
    ]);
    expect(mistakes).toEqual([]);
  });

  it('checks a spec whose guard and rule count, and says the count in words', () => {
    const { ok, diagnostics, model } = checkSpec(CONFERENCE);
    expect(diagnostics).toEqual([]);
    expect(ok).toBe(true);
    const talk = model.entities.find((e) => e.name === 'Talk');
    const guard = model.machines.find((m) => m.entity === 'Talk')?.transitions.find((t) => t.name === 'accept')?.guard;
    if (!talk || !guard) throw new Error('fixture changed');
    expect(conditionWords(guard, talk, model)).toBe(
      'the number of Review records whose talk is this talk is at least 2',
    );
  });

  it('reports a count it cannot read, a field that does not refer here, and an unknown state', () => {
    const codes = (condition: string) =>
      checkSpec(CONFERENCE.replace('count(Review in state draft where reviewer = user) < MAX_DRAFTS', condition))
        .diagnostics.filter((d) => d.severity === 'error')
        .map((d) => `${d.code}: ${d.message}`);
    expect(codes('count(Review) < 3')).toEqual([expect.stringMatching(/^invalid-count: .*not understood/)]);
    expect(codes('count(Review where score = this) < 3')).toEqual([
      expect.stringMatching(/^invalid-count: .*Review.score does not refer to Review/),
    ]);
    expect(codes('count(Review in state lost where reviewer = user) < 3')).toEqual([
      expect.stringMatching(/^unknown-state: .*"lost"/),
    ]);
    expect(codes('count(Reviews where reviewer = user) < 3')).toEqual([
      expect.stringMatching(/^unknown-entity: .*"Reviews"/),
    ]);
  });
});

describe('has(field) in expressions', () => {
  it('replaces has(field) by a bool variable of the same length, leaving CEL’s has(a.b) alone', () => {
    const source = 'has(receipt) || has(book.title) || amount <= 25.0';
    const { rewritten, present } = findCounts(source);
    expect(rewritten).toHaveLength(source.length);
    expect(rewritten.startsWith('_has0_______ || has(book.title)')).toBe(true);
    expect(present).toEqual([expect.objectContaining({ field: 'receipt', start: 0, length: 12 })]);
  });

  it('says has(field) in words', () => {
    const { model } = checkSpec(CONFERENCE);
    const talk = model.entities.find((e) => e.name === 'Talk');
    if (!talk) throw new Error('fixture changed');
    expect(conditionWords('has(abstract) || !has(title)', talk, model)).toBe(
      'the abstract is given or the title is empty',
    );
  });
});
