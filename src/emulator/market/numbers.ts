// Rounding and CSV number text. Every number the market publishes is rounded once, where it is
// computed, so JSON and CSV carry the same value and sums can be checked exactly.

/** Rounds to `decimals` places, half away from zero; never returns -0. */
export function roundTo(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  const rounded = Math.sign(value) * Math.round(Math.abs(value) * factor) / factor;
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
  if (value > -CENTS_FAST_LIMIT && value < CENTS_FAST_LIMIT) {
    const cents = Math.round(value * 100);
    if (cents / 100 === value) return centsText(cents);
  }
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  if (value === 0) return '0';
  const abs = Math.abs(value);
  if (abs >= 1e-6 && abs < 1e21) return String(value);
  if (abs >= 1e21) return BigInt(Math.round(value)).toString();
  return value.toFixed(20).replace(/0+$/, '').replace(/\.$/, '');
}

/** |value| below this has at most 15 significant digits in cents. */
const CENTS_FAST_LIMIT = 1e13;

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
