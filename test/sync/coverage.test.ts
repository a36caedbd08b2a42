import { describe, expect, it } from 'vitest';
import { ApiError, ApiSchemaError, AuthError } from '../../src/core/errors.js';
import { describeSkipped, pairOnlyFailure, usableCoverage } from '../../src/sync/coverage.js';
import type { CoverageRow } from '../../src/core/rows.js';

const row = (overrides: Partial<CoverageRow> = {}): CoverageRow => ({
  exchange: 'deribit',
  symbol: 'BTC',
  first_ts: '2026-01-01T00:00:00Z',
  last_ts: '2026-03-11T14:00:00Z',
  sessions: 70,
  files_first_date: '2026-01-01',
  files_last_date: '2026-03-10',
  ...overrides,
});

describe('usableCoverage', () => {
  it('keeps good rows and sets aside an unknown venue and a row with no file dates, each with its reason', () => {
    const { usable, skipped } = usableCoverage(
      [row(), row({ exchange: 'kraken' }), row({ symbol: 'ETH', files_last_date: null, files_first_date: null }), row({ symbol: 'X'.repeat(25) })],
      [{ exchange: 'okx', symbol: 'Y'.repeat(33), reason: 'symbol: expected a symbol of 1 to 32 characters' }],
    );
    expect(usable.map((r) => r.symbol)).toEqual(['BTC', 'X'.repeat(25)]);
    expect(skipped).toEqual([
      { exchange: 'okx', symbol: 'Y'.repeat(33), reason: 'symbol: expected a symbol of 1 to 32 characters' },
      { exchange: 'kraken', symbol: 'BTC', reason: expect.stringMatching(/^unknown venue "kraken" \(this version knows bybit, /) },
      { exchange: 'deribit', symbol: 'ETH', reason: expect.stringMatching(/^no file dates/) },
    ]);
  });
  it('describes a skipped row in one line, server names cut short', () => {
    expect(describeSkipped({ exchange: 'okx', symbol: 'Y'.repeat(50), reason: 'r' })).toBe(
      `coverage row okx/${'Y'.repeat(40)}… skipped: r; the other pairs are synced`,
    );
    expect(describeSkipped({ exchange: null, symbol: null, reason: 'r' })).toMatch(/^coverage row \?\/\? skipped/);
  });
});

describe('pairOnlyFailure', () => {
  it('is a reason for answers about one pair, undefined for auth, quota and others', () => {
    expect(pairOnlyFailure(new ApiSchemaError('/history/files/deribit/BTC', 'data[0].sha256: bad'))).toMatch(/data\[0\]\.sha256/);
    expect(pairOnlyFailure(new ApiError(404, 'no_data', 'none', '/x'))).toBe('HTTP 404 no_data: none');
    expect(pairOnlyFailure(new ApiError(403, 'forbidden', 'no', '/x'))).toBeUndefined();
    expect(pairOnlyFailure(new ApiError(429, 'rate_limit_exceeded', 'no', '/x'))).toBeUndefined();
    expect(pairOnlyFailure(new ApiError(503, 'files_unavailable', 'later', '/x'))).toBeUndefined();
    expect(pairOnlyFailure(new AuthError('no key'))).toBeUndefined();
  });
});
