// The venues a plan's credits go to: a symbol bought on several venues is named with each venue's credits.
import { describe, expect, it } from 'vitest';
import { describeSpread, venueSpread } from '../../src/sync/venue-rule.js';

const pair = (exchange: string, symbol: string) => ({ exchange, symbol });

describe('venueSpread', () => {
  it('names symbols whose credits go to several venues, per venue', () => {
    const pairs = [
      { ...pair('deribit', 'BTC'), toDownload: 3, deferred: 1 },
      { ...pair('combined', 'BTC'), toDownload: 0, deferred: 2 },
      { ...pair('okx', 'BTC'), toDownload: 0, deferred: 0 },
      { ...pair('tradfi', 'SPY'), toDownload: 6, deferred: 0 },
    ];
    const spread = venueSpread(pairs);
    expect(spread).toEqual([
      {
        symbol: 'BTC',
        venues: [
          { exchange: 'combined', credits: 2 },
          { exchange: 'deribit', credits: 4 },
        ],
      },
    ]);
    expect(describeSpread(spread[0]!)).toBe(
      'BTC: 2 venues would each cost credits: combined 2, deribit 4; pick one with --exchange (combined is the sum of the single venues)',
    );
  });
});
