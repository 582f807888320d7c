import { describe, expect, it } from 'vitest';
import { actorWords } from './history-actor.ts';

describe('who made a history entry', () => {
  it('shows an automatic transition as made by the system, not by the raw actor id', () => {
    expect(actorWords('system')).toBe('The system');
  });

  it('names no one for a signed-out visitor, and leaves a user to be shown by name', () => {
    expect(actorWords(null)).toBe('A signed-out visitor');
    expect(actorWords('0190f3c4-7a2b-7c3d-8e4f-000000000001')).toBeNull();
  });

  it('says "Someone" of an entry whose author is kept from the user (read except (created_by))', () => {
    expect(actorWords(undefined)).toBe('Someone');
  });
});
