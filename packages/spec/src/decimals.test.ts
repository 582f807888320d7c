import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimalLimit, decimalMultipleTest, decimalPlaces, EXACT_DIGITS, isDecimalMultiple } from './decimals.ts';

describe('decimal places as written', () => {
  it('counts places on the shortest text of a number', () => {
    expect(decimalPlaces(0.3)).toBe(1);
    expect(decimalPlaces(0.1 + 0.2)).toBe(17);
    expect(decimalPlaces(1e-7)).toBe(7);
    expect(decimalPlaces(1200)).toBe(0);
    expect(decimalPlaces(1e21)).toBe(0);
    expect(decimalPlaces(-2.5)).toBe(1);
    expect(decimalPlaces(1.5e-7)).toBe(8);
  });

  it('decides multiples in decimal, where binary division is off', () => {
    expect(isDecimalMultiple(1.1, 0.01)).toBe(true);
    expect(isDecimalMultiple(0.1 + 0.2, 0.01)).toBe(false);
    expect(isDecimalMultiple(1.5, 0.25)).toBe(true);
    expect(isDecimalMultiple(1.6, 0.25)).toBe(false);
    expect(isDecimalMultiple(12345678901.23, 0.01)).toBe(true);
    expect(isDecimalMultiple(5, 0)).toBe(false);
  });

  it('tests multiples of a power of ten by places, and of any other divisor in decimal', () => {
    const cents = decimalMultipleTest(0.01);
    expect([0.3, 1.1, 12345678901.23, 5].map(cents)).toEqual([true, true, true, true]);
    expect([0.1 + 0.2, 1.005, 1.5e-7].map(cents)).toEqual([false, false, false]);
    expect([1.5, 1.6].map(decimalMultipleTest(0.25))).toEqual([true, false]);
    expect([10, 12].map(decimalMultipleTest(5))).toEqual([true, false]);
  });

  it('bounds a scale where a double stops holding every decimal', () => {
    expect(decimalLimit(2)).toBe(9999999999999.99);
    expect(decimalLimit(0)).toBe(999_999_999_999_999);
    expect(decimalLimit(4)).toBe(99999999999.9999);
  });

  it('takes every decimal within the bound as having its own places, and no more', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 6 }),
        fc.bigInt({ min: -(10n ** BigInt(EXACT_DIGITS)) + 1n, max: 10n ** BigInt(EXACT_DIGITS) - 1n }),
        (scale, units) => {
          const text = `${units < 0n ? '-' : ''}${(units < 0n ? -units : units).toString().padStart(scale + 1, '0')}`;
          const written = scale === 0 ? text : `${text.slice(0, -scale)}.${text.slice(-scale)}`;
          const value = Number(written);
          expect(decimalPlaces(value)).toBeLessThanOrEqual(scale);
          expect(isDecimalMultiple(value, 10 ** -scale)).toBe(true);
          expect(Math.abs(value)).toBeLessThanOrEqual(decimalLimit(scale));
        },
      ),
    );
  });
});
