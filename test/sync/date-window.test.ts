import { describe, expect, it } from 'vitest';
import { checkDatesInCoverage } from '../../src/sync/date-window.js';
import { usageMessage } from '../helpers/errors.js';

const row = (exchange: string, symbol: string, first: string | null, last: string | null) => ({
  exchange,
  symbol,
  first_ts: null,
  last_ts: null,
  sessions: null,
  files_first_date: first,
  files_last_date: last,
});
const coverage = [row('combined', 'BTC', '2026-01-01', '2026-03-10'), row('tradfi', 'SPY', '2025-06-02', '2026-03-09'), row('okx', 'ETH', null, null)];
const btc = [{ exchange: 'combined', symbol: 'BTC' }];
const both = [...btc, { exchange: 'tradfi', symbol: 'SPY' }];

describe('checkDatesInCoverage', () => {
  it('accepts a window that meets any selected pair, touching its ends included', () => {
    expect(() => checkDatesInCoverage({ since: '2026-03-10' }, btc, coverage)).not.toThrow();
    expect(() => checkDatesInCoverage({ until: '2026-01-01' }, btc, coverage)).not.toThrow();
    expect(() => checkDatesInCoverage({ since: '2025-07-01', until: '2025-08-01' }, both, coverage)).not.toThrow();
    expect(() => checkDatesInCoverage({}, btc, coverage)).not.toThrow();
    // Nothing dated to compare with: the plan speaks for itself.
    expect(() => checkDatesInCoverage({ since: '2030-01-01' }, [{ exchange: 'okx', symbol: 'ETH' }], coverage)).not.toThrow();
  });

  it('refuses a window outside every selected pair, naming the first and last session of the selection', () => {
    expect(usageMessage(() => checkDatesInCoverage({ since: '2027-01-15' }, both, coverage))).toBe(
      '--since 2027-01-15: outside the coverage of the selection (first session 2025-06-02, last session 2026-03-10); nothing would be synced',
    );
    expect(usageMessage(() => checkDatesInCoverage({ since: '2025-07-01', until: '2025-08-01' }, btc, coverage, { since: '"since" in config file /x' }))).toBe(
      '"since" in config file /x 2025-07-01 to --until 2025-08-01: outside the coverage of the selection (first session 2026-01-01, last session 2026-03-10); nothing would be synced',
    );
  });
});
