import { readFileSync } from 'node:fs';
import { checkSpec, type Diagnostic, type StudioStatus } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import type { StudioFile } from '../api/dev.ts';
import { type Draft, EMPTY_DRAFT, fileText, isDirty, newerStatus, oneStatus, withFile } from './draft.ts';
import { countProblems, findSpecLine, locate } from './locate.ts';

const LENDING_DESK = readFileSync(new URL('../../../../examples/lending-desk.md', import.meta.url), 'utf8');

function status(version: number, at: string, outcome: StudioStatus['outcome'] = 'applied'): StudioStatus {
  return { version, outcome, at, message: `${outcome} ${version}`, diagnostics: [], plan: null };
}

function file(source: string, s = status(1, '2026-01-01T10:00:00.000Z')): StudioFile {
  return { path: '/specs/desk.md', source, status: s };
}

function diagnostic(line: number, column: number, endLine: number, endColumn: number): Diagnostic {
  return {
    code: 'unknown-entity',
    severity: 'error',
    message: 'm',
    line,
    column,
    endLine,
    endColumn,
    hint: '',
    expected: [],
    url: '',
  };
}

describe('findSpecLine', () => {
  const source = 'a\n| rule | x |\n\nb';
  it('finds the line named when it still reads the words', () => {
    expect(findSpecLine(source, 2, '| rule | x |')).toEqual({ line: 2, from: 2, to: 14 });
  });
  it('finds the words where they moved to, nearest first, else the line as it is', () => {
    expect(findSpecLine(`\n\n${source}`, 2, '| rule | x |')?.line).toBe(4);
    expect(findSpecLine(source, 4, 'gone')?.line).toBe(4);
    expect(findSpecLine(source, 9, 'gone')).toBeNull();
  });
});

describe('locate', () => {
  it('places a misspelt entity at its offsets in the text, with the quick fix that corrects it', () => {
    const source = LENDING_DESK.replace('| book           | Book      |', '| book           | Bok       |');
    const { diagnostics } = checkSpec(source);
    const [typo] = locate(source, diagnostics).filter((l) => l.diagnostic.code === 'unknown-entity');
    expect(typo && source.slice(typo.from, typo.to)).toBe('Bok');
    expect(typo?.fixes.map((f) => f.title)).toEqual(['Change "Bok" to "Book"']);
  });

  it('widens an empty span to the character under it, or the one before it at the end of a line', () => {
    const source = 'ab\ncd\n';
    const [inLine, atEnd] = locate(source, [diagnostic(1, 1, 1, 1), diagnostic(2, 3, 2, 3)]);
    expect(inLine && [inLine.from, inLine.to]).toEqual([0, 1]);
    expect(atEnd && source.slice(atEnd.from, atEnd.to)).toBe('d');
  });

  it('clamps a span past the end of the text into it', () => {
    const source = 'one line';
    const [past] = locate(source, [diagnostic(9, 1, 9, 4)]);
    expect(past && [past.from, past.to]).toEqual([7, 8]);
  });

  it('counts errors and warnings in words', () => {
    const warning = { ...diagnostic(1, 1, 1, 2), severity: 'warning' as const };
    expect(countProblems([])).toBe('No problems');
    expect(countProblems([diagnostic(1, 1, 1, 2), diagnostic(2, 1, 2, 2), warning])).toBe('2 errors, 1 warning');
  });
});

describe('the Studio draft', () => {
  const loaded = (text: string): Draft => withFile(EMPTY_DRAFT, file(text)).draft;

  it('starts from the file with \\n line ends, and saves with the file’s own', () => {
    const { draft, replace } = withFile(EMPTY_DRAFT, file('# A\r\n\r\nB\r\n'));
    expect(replace).toBe('# A\n\nB\n');
    expect(isDirty(draft)).toBe(false);
    expect(fileText(draft, '# A\nC\n')).toBe('# A\r\nC\r\n');
  });

  it('takes a file changed on disk when there are no unsaved edits', () => {
    const { draft, replace } = withFile(loaded('v1'), file('v2'));
    expect(replace).toBe('v2');
    expect(draft).toMatchObject({ disk: 'v2', text: 'v2', diskChanged: null });
  });

  it('keeps unsaved edits when the file changes on disk, and holds the file aside', () => {
    const edited = { ...loaded('v1'), text: 'v1 and my edit' };
    const { draft, replace } = withFile(edited, file('v2 from another editor'));
    expect(replace).toBeNull();
    expect(draft).toMatchObject({ text: 'v1 and my edit', disk: 'v1', diskChanged: 'v2 from another editor' });
    expect(isDirty(draft)).toBe(true);
  });

  it('counts the edits as saved when the file comes back with the editor’s text', () => {
    const edited = { ...loaded('v1'), text: 'v2' };
    const { draft, replace } = withFile(edited, file('v2'));
    expect(replace).toBeNull();
    expect(isDirty(draft)).toBe(false);
  });

  it('keeps the newest status: a higher version, or a later attempt of the same version', () => {
    const first = status(2, '2026-01-01T10:00:00.000Z');
    expect(newerStatus(first, status(1, '2026-01-01T11:00:00.000Z'))).toBe(first);
    const invalid = status(2, '2026-01-01T10:05:00.000Z', 'invalid');
    expect(newerStatus(first, invalid)).toBe(invalid);
    expect(newerStatus(null, first)).toBe(first);
  });
});

describe("the Studio's one status", () => {
  const saved = (outcome: StudioStatus['outcome']): Draft => ({
    ...EMPTY_DRAFT,
    loaded: true,
    text: 'x',
    disk: 'x',
    status: status(2, '2026-01-01T10:00:00.000Z', outcome),
  });

  it('never says Saved alone when the server did not apply the saved file', () => {
    expect(oneStatus(saved('applied')).label).toBe('Saved and applied');
    expect(oneStatus(saved('refused')).label).toBe('Saved, not applied');
    expect(oneStatus(saved('invalid')).label).toBe('Saved, not applied');
    expect(oneStatus(saved('unchanged')).label).toBe('Saved');
    expect(oneStatus({ ...saved('applied'), text: 'y' }).label).toBe('Unsaved changes');
  });
});
