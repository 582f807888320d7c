import { describe, expect, it } from 'vitest';
import type { Constant } from './model.ts';
import { timeBound } from './time-bound.ts';

const span = { line: 1, column: 1, endLine: 1, endColumn: 1, offset: 0 };
const duration = (name: string, seconds: number): Constant => ({
  name,
  type: 'duration',
  value: seconds,
  raw: `${seconds} seconds`,
  meaning: '',
  span,
});
const CONSTANTS = [duration('SLA_URGENT', 1800), duration('SLA_RESPONSE', 14_400)];

describe('timeBound', () => {
  it('reads how long ago a field must be from now > f and now - f > D, either way round', () => {
    expect(timeBound('now > due', CONSTANTS)).toEqual({ field: 'due', seconds: 0 });
    expect(timeBound('due <= now', CONSTANTS)).toEqual({ field: 'due', seconds: 0 });
    expect(timeBound('now - created_at > SLA_RESPONSE', CONSTANTS)).toEqual({ field: 'created_at', seconds: 14_400 });
    expect(timeBound('duration("72h") < now - due', CONSTANTS)).toEqual({ field: 'due', seconds: 259_200 });
  });

  it('takes either side of &&, and the weaker of two bounds on one field for || and ?:', () => {
    expect(timeBound('"x" in tags && now - due > duration("1h")', CONSTANTS)).toEqual({ field: 'due', seconds: 3600 });
    expect(
      timeBound('priority == "urgent" ? now - created_at > SLA_URGENT : now - created_at > SLA_RESPONSE', CONSTANTS),
    ).toEqual({ field: 'created_at', seconds: 1800 });
  });

  it('gives none when a branch could hold at any time, or the time is a reference’s', () => {
    expect(timeBound('urgent || now > due', CONSTANTS)).toBeNull();
    expect(timeBound('now > book.due', CONSTANTS)).toBeNull();
    expect(timeBound('!(now < due)', CONSTANTS)).toBeNull();
    expect(timeBound('now > ', CONSTANTS)).toBeNull();
  });
});
