// Fixture rows shaped as the warehouse's views answer them.
import { withCumulativeNetGex } from '../../src/charts/read.js';
import type { CloseRow, ProfileData, SeriesData, TermData } from '../../src/charts/types.js';

export const LOOK = { width: 800, height: 450, theme: 'light' as const };

export function profileFixture(): ProfileData {
  return {
    exchange: 'deribit',
    symbol: 'BTC',
    expiration: 'TOTAL',
    capturedAt: '2026-03-10T23:45:00Z',
    sessionDate: '2026-03-10',
    askedAt: '2026-03-11T00:05:00Z',
    spot: 100_000,
    flip: 98_500,
    regime: 'positive',
    callWall: 105_000,
    putWall: 95_000,
    totals: { netGex: 7.5e6, callGex: 15e6, putGex: 7.5e6, callOi: 5_000, putOi: 4_000 },
    strikes: withCumulativeNetGex(
      [80_000, 95_000, 100_000, 105_000, 120_000].map((strike, i) => ({
        strike,
        callGex: (i + 1) * 1e6,
        putGex: (5 - i) * 5e5,
        netGex: (i + 1) * 1e6 - (5 - i) * 5e5,
        callOi: (i + 1) * 100,
        putOi: (5 - i) * 80,
      })),
    ),
  };
}

function close(sessionDate: string, regime: string | null, spot: number): CloseRow {
  return {
    sessionDate,
    capturedAt: `${sessionDate}T23:45:00Z`,
    type: 'close',
    spot,
    flip: spot - 500,
    regime,
    netGex: 1e6,
    callWall: spot + 1000,
    putWall: spot - 1000,
    p1Strike: spot + 1000,
    p1Gex: 4e6,
    p2Strike: spot + 2000,
    p2Gex: 2e6,
    n1Strike: spot - 1000,
    n1Gex: -3e6,
    n2Strike: spot - 2000,
    n2Gex: -1e6,
    nearestCallWall: spot + 500,
    nearestPutWall: spot - 500,
  };
}

export function seriesFixture(): SeriesData {
  return {
    exchange: 'tradfi',
    symbol: 'SPY',
    rangePct: 10,
    closes: [
      close('2026-03-02', 'positive', 500),
      close('2026-03-03', 'positive', 505),
      close('2026-03-04', 'negative', 498),
      close('2026-03-05', null, 497),
      close('2026-03-06', 'positive', 502),
    ],
  };
}

export function termFixture(): TermData {
  return {
    exchange: 'combined',
    symbol: 'BTC',
    capturedAt: '2026-03-11T14:00:00Z',
    spot: 100_000,
    rows: [
      { expiration: '13MAR26', expirationDate: '2026-03-13', daysToExpiry: 2, totalGex: 2e6, oiUsd: 5e8, callOiUsd: 3e8, putOiUsd: 2e8 },
      { expiration: '27MAR26', expirationDate: '2026-03-27', daysToExpiry: 16, totalGex: -1e6, oiUsd: 9e8, callOiUsd: 4e8, putOiUsd: 5e8 },
    ],
  };
}
