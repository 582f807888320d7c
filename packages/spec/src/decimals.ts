/**
 * Decimal numbers as people write them, not as binary floating point: `0.1 + 0.2` is
 * 0.30000000000000004, which has 17 decimal places, not 1. A JSON number is read into a double;
 * the shortest text that reads back as the same double (`String(value)`) is the number the client
 * meant, so places are counted on that text. The server and the browser check `decimal(N)`
 * fields with these, so both refuse the same values.
 */

/** Significant digits a double holds exactly: every decimal of at most this many reads back as written. */
export const EXACT_DIGITS = 15;

/** A finite number's shortest decimal form as whole digits and a power of ten: 0.25 → 25 × 10^-2. */
function decimalParts(value: number): { digits: bigint; places: number } {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(value));
  if (!match) throw new Error(`${value} is not a finite number.`);
  const [, sign = '', whole = '0', fraction = '', exponent = '0'] = match;
  let digits = BigInt(`${sign}${whole}${fraction}`);
  let places = fraction.length - Number(exponent);
  if (places < 0) {
    digits *= 10n ** BigInt(-places);
    places = 0;
  }
  return { digits, places };
}

/** How many decimal places a number has as written in its shortest form: 0.3 → 1, 1e-7 → 7, 1200 → 0. */
export function decimalPlaces(value: number): number {
  if (!Number.isFinite(value)) return Number.POSITIVE_INFINITY;
  // Every request's decimals pass here: read the text rather than build big integers.
  const text = String(value);
  const e = text.indexOf('e');
  const mantissa = e === -1 ? text : text.slice(0, e);
  const dot = mantissa.indexOf('.');
  const fraction = dot === -1 ? 0 : mantissa.length - dot - 1;
  return Math.max(0, fraction - (e === -1 ? 0 : Number(text.slice(e + 1))));
}

/**
 * A test of "is a multiple of `divisor`", made once per divisor: a power of ten (0.01, a scale)
 * counts places; any other divisor is decided with `isDecimalMultiple`.
 */
export function decimalMultipleTest(divisor: number): (value: number) => boolean {
  const places = decimalPlaces(divisor);
  if (Number.isFinite(places) && divisor === Number(`1e-${places}`)) return (value) => decimalPlaces(value) <= places;
  return (value) => isDecimalMultiple(value, divisor);
}

/**
 * Whether a number is an exact multiple of a divisor, in decimal: 0.3 of 0.01 yes,
 * 0.30000000000000004 of 0.01 no, 1.5 of 0.25 yes. JSON Schema's `multipleOf` as people mean it.
 */
export function isDecimalMultiple(value: number, divisor: number): boolean {
  if (!Number.isFinite(value) || !Number.isFinite(divisor) || divisor === 0) return false;
  const a = decimalParts(value);
  const b = decimalParts(divisor);
  const places = Math.max(a.places, b.places);
  const scaled = (p: { digits: bigint; places: number }) => p.digits * 10n ** BigInt(places - p.places);
  return scaled(a) % scaled(b) === 0n;
}

/**
 * The largest magnitude a `decimal(scale)` value may have so that it is held exactly: at most
 * `EXACT_DIGITS` significant digits (9999999999999.99 for two places). Beyond it a JSON number is
 * no longer read as written (90071992547409.91 reads as 90071992547409.9).
 */
export function decimalLimit(scale: number): number {
  return Number(`${'9'.repeat(Math.max(EXACT_DIGITS - scale, 0)) || '0'}.${'9'.repeat(scale)}`.replace(/\.$/, ''));
}
