// Rounding and CSV number text. Every number the market publishes is rounded once, where it is
// computed, so JSON and CSV carry the same value and sums can be checked exactly.

/** Rounds to `decimals` places, half away from zero; never returns -0. */
export function roundTo(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  const rounded = (Math.sign(value) * Math.round(Math.abs(value) * factor)) / factor;
  return rounded === 0 ? 0 : rounded;
}

/** USD amounts and GEX: cents. */
export const roundUsd = (value: number): number => roundTo(value, 2);
/** Open interest in contracts: two decimals (crypto trades fractional contracts). */
export const roundOi = (value: number): number => roundTo(value, 2);
/** Implied volatility as a fraction. */
export const roundIv = (value: number): number => roundTo(value, 4);
/** Spot, flip and strike prices. */
export const roundPrice = (value: number): number => roundTo(value, 2);

/**
 * A number as CSV text: plain decimal, never exponent form (String() switches to exponent form
 * below 1e-6 and from 1e21); null is the empty field.
 */
export function formatCsvNumber(value: number | null): string {
  if (value === null) return '';
  // Most published numbers have at most two decimals (USD cents, contracts, prices): their text
  // from integers is what String() gives (a decimal of at most 15 significant digits is the shortest
  // text of its double) at a fraction of the cost of the shortest-digits search.
  const cents = exactCents(value);
  if (!Number.isNaN(cents)) return centsText(cents);
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  if (value === 0) return '0';
  const abs = Math.abs(value);
  if (abs >= 1e-6 && abs < 1e21) return String(value);
  if (abs >= 1e21) return BigInt(Math.round(value)).toString();
  return value.toFixed(20).replace(/0+$/, '').replace(/\.$/, '');
}

/** |value| below this has at most 15 significant digits in cents. */
const CENTS_FAST_LIMIT = 1e13;

/** The value in whole cents when it has at most two decimals and is below CENTS_FAST_LIMIT, else NaN. */
export function exactCents(value: number): number {
  if (value > -CENTS_FAST_LIMIT && value < CENTS_FAST_LIMIT) {
    const cents = Math.round(value * 100);
    if (cents / 100 === value) return cents;
  }
  return Number.NaN;
}

function centsText(cents: number): string {
  if (cents === 0) return '0';
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / 100);
  const fraction = abs - whole * 100;
  if (fraction === 0) return `${sign}${whole}`;
  if (fraction % 10 === 0) return `${sign}${whole}.${fraction / 10}`;
  return `${sign}${whole}.${fraction < 10 ? '0' : ''}${fraction}`;
}

const ZERO = 48;
const MINUS = 45;
const DOT = 46;

/** The decimal digits of a non-negative integer, as ASCII at `at`; returns the end offset. */
function writeDigits(bytes: Uint8Array, at: number, integer: number): number {
  let end = at + 1;
  for (let power = 10; power <= integer; power *= 10) end++;
  let rest = integer;
  let i = end - 1;
  // Small integers in int32 arithmetic (the usual case), larger ones in doubles.
  for (; rest > INT32_MAX; i--) {
    const quotient = Math.floor(rest / 10);
    bytes[i] = ZERO + rest - quotient * 10;
    rest = quotient;
  }
  for (let small = rest | 0; i >= at; i--) {
    const quotient = (small / 10) | 0;
    bytes[i] = ZERO + small - quotient * 10;
    small = quotient;
  }
  return end;
}

const INT32_MAX = 2 ** 31 - 1;

/** centsText(cents) written as ASCII into `bytes` at `at`; returns the end offset. */
function writeCentsText(bytes: Uint8Array, at: number, cents: number): number {
  let end = at;
  if (cents < 0) bytes[end++] = MINUS;
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / 100);
  const fraction = abs - whole * 100;
  end = writeDigits(bytes, end, whole);
  if (fraction === 0) return end;
  bytes[end++] = DOT;
  const tens = Math.floor(fraction / 10);
  bytes[end++] = ZERO + tens;
  if (fraction !== tens * 10) bytes[end++] = ZERO + fraction - tens * 10;
  return end;
}

/** Most bytes writeCsvNumber writes: a sign and the 309 digits of the largest double, with room. */
export const MAX_CSV_NUMBER_BYTES = 320;

/**
 * formatCsvNumber(value) written as ASCII into `bytes` at `at` (room for MAX_CSV_NUMBER_BYTES
 * needed); returns the end offset. The daily files write ~400k numbers per crypto session: the
 * common ones (at most two decimals) as digits, without a string each.
 */
export function writeCsvNumber(bytes: Buffer, at: number, value: number): number {
  const cents = exactCents(value);
  if (!Number.isNaN(cents)) return writeCentsText(bytes, at, cents);
  return at + bytes.write(formatCsvNumber(value), at, 'latin1');
}
