import { describe, expect, it, vi } from 'vitest';

// The module keeps the last millisecond it used (ids only grow within a process), and the server
// project runs file after file in one process: a fresh copy starts from none, as a server does.
vi.resetModules();
const { UUID, uuidv7 } = await import('./uuidv7.ts');

describe('uuidv7', () => {
  it('makes version 7 ids carrying the time, each larger than the last', () => {
    const ms = Date.UTC(2025, 0, 31, 9, 30);
    const ids = Array.from({ length: 5000 }, () => uuidv7(ms));
    for (const id of ids) {
      expect(id).toMatch(UUID);
      expect(id.charAt(14)).toBe('7');
      expect('89ab').toContain(id.charAt(19));
    }
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(Number.parseInt(ids[0]?.replace('-', '').slice(0, 12) ?? '', 16)).toBe(ms);
  });

  it('never goes backwards when the clock does', () => {
    const later = uuidv7(Date.UTC(2030, 0, 1));
    expect(uuidv7(Date.UTC(2020, 0, 1)) > later).toBe(true);
  });
});
