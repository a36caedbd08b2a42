import { describe, expect, it } from 'vitest';
import { fileKey, fileVersionKey, isExchange, pairKey } from '../../src/core/pairs.js';

describe('the keys of a pair, a file and a file version', () => {
  const file = { exchange: 'deribit', symbol: 'BTC', sessionDate: '2026-03-10', file: 'levels', sha256: 'ab'.repeat(32) };

  it('build one text each, each extending the one before', () => {
    expect(pairKey(file)).toBe('deribit|BTC');
    expect(fileKey(file)).toBe('deribit|BTC|2026-03-10|levels');
    expect(fileVersionKey(file)).toBe(`deribit|BTC|2026-03-10|levels|${'ab'.repeat(32)}`);
  });

  it('tell two pairs apart that differ only in where the venue ends', () => {
    expect(pairKey({ exchange: 'okx', symbol: 'BTC' })).not.toBe(pairKey({ exchange: 'ok', symbol: 'XBTC' }));
  });

  it('knows the history venues', () => {
    expect(isExchange('tradfi')).toBe(true);
    expect(isExchange('binance')).toBe(false);
  });
});
