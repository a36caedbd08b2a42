import { describe, expect, it } from 'vitest';
import { formatCsvNumber, roundTo } from '../../../src/emulator/market/numbers.js';
import { LruCache } from '../../../src/emulator/market/lru.js';

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
