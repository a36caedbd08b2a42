import { describe, expect, it } from 'vitest';
import { formatCsvNumber, MAX_CSV_NUMBER_BYTES, roundTo, writeCsvNumber } from '../../../emulator/market/numbers.js';
import { LruCache } from '../../../emulator/market/lru.js';

/** A fixed pseudo-random walk over magnitudes from 1e-4 to 1e14, rounded to 0-4 decimals, and edges. */
function sampleValues(): number[] {
  let state = 12345;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const values: number[] = [
    0,
    -0,
    0.01,
    0.1,
    0.3,
    0.05,
    1.05,
    -0.07,
    9999999999999.99,
    -9999999999999.99,
    1e13,
    1e13 + 0.5,
    0.005,
    1e-6,
    1e-7,
    2.5e21,
    2147483647,
    2147483648,
    -2147483648.01,
    21474836.47,
    21474836.48,
  ];
  for (let i = 0; i < 100_000; i++) {
    const magnitude = 10 ** (next() * 18 - 4);
    const sign = next() < 0.3 ? -1 : 1;
    values.push(roundTo(sign * magnitude * next(), Math.floor(next() * 5)));
  }
  return values;
}

describe('formatCsvNumber', () => {
  it('writes plain decimals, never exponent form', () => {
    expect(formatCsvNumber(null)).toBe('');
    expect(formatCsvNumber(0)).toBe('0');
    expect(formatCsvNumber(-0)).toBe('0');
    expect(formatCsvNumber(147.5)).toBe('147.5');
    expect(formatCsvNumber(-1957578)).toBe('-1957578');
    expect(formatCsvNumber(1e-7)).toBe('0.0000001');
    expect(formatCsvNumber(2.5e21)).toBe('2500000000000000000000');
    expect(formatCsvNumber(123456789012.34)).toBe('123456789012.34');
  });

  it('writes every value of up to two decimals exactly as String() does, and others too', () => {
    for (const value of sampleValues()) {
      const text = formatCsvNumber(value);
      const abs = Math.abs(value);
      const expected = value === 0 ? '0' : abs >= 1e-6 && abs < 1e21 ? String(value) : undefined;
      if (expected !== undefined && text !== expected) expect(`${value}: ${text}`).toBe(`${value}: ${expected}`);
      expect(Number(text)).toBe(value === 0 ? 0 : value);
    }
  });
});

describe('writeCsvNumber', () => {
  it('writes the text formatCsvNumber gives, digits straight into the bytes', () => {
    const values = sampleValues();
    const bytes = Buffer.alloc(values.length * (MAX_CSV_NUMBER_BYTES + 1));
    let at = 0;
    for (const value of values) {
      at = writeCsvNumber(bytes, at, value);
      bytes[at++] = 0x0a;
    }
    expect(bytes.toString('latin1', 0, at)).toBe(values.map((value) => `${formatCsvNumber(value)}\n`).join(''));
  });
});

describe('roundTo', () => {
  it('rounds half away from zero and never yields -0', () => {
    expect(roundTo(2.345, 1)).toBe(2.3);
    expect(roundTo(-2.25, 1)).toBe(-2.3);
    expect(Object.is(roundTo(-0.001, 2), 0)).toBe(true);
    expect(roundTo(0.1 + 0.2, 2)).toBe(0.3);
  });
});

describe('LruCache', () => {
  it('evicts the least recently used entries by weight', () => {
    const cache = new LruCache<string, string>(5, (value) => value.length);
    cache.set('a', 'xx');
    cache.set('b', 'yy');
    expect(cache.get('a')).toBe('xx'); // a is now the most recent
    cache.set('c', 'zz'); // 6 > 5: evicts b
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe('xx');
    cache.set('big', 'xxxxxxxx'); // heavier than the cache: not kept
    expect(cache.get('big')).toBeUndefined();
  });
});
