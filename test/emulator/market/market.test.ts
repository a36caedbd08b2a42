import { describe, expect, it } from 'vitest';
import { createMarketModel, type Capture, type LevelsFields, type MarketModel, type StrikeRow } from '../../../emulator/market/index.js';
import { smallMarket } from './helpers.js';

const CENT = 0.005; // rounding slack when comparing sums of 2-decimal values

function expectStrikeRowInvariants(rows: readonly StrikeRow[]): void {
  for (const row of rows) {
    expect(row.call_gex).toBeGreaterThanOrEqual(0);
    expect(row.put_gex).toBeGreaterThanOrEqual(0);
    expect(row.call_oi).toBeGreaterThanOrEqual(0);
    expect(row.put_oi).toBeGreaterThanOrEqual(0);
    expect(row.net_gex).toBe(Math.round((row.call_gex - row.put_gex) * 100) / 100 || 0);
  }
  const strikes = rows.map((row) => row.strike);
  expect([...strikes].sort((a, b) => a - b)).toEqual(strikes);
}

function expectLevelsInvariants(levels: LevelsFields, rows: readonly StrikeRow[]): void {
  const sum = (pick: (row: StrikeRow) => number): number => rows.reduce((total, row) => total + pick(row), 0);
  expect(levels.call_gex).toBeCloseTo(
    sum((row) => row.call_gex),
    2,
  );
  expect(levels.put_gex).toBeCloseTo(
    sum((row) => row.put_gex),
    2,
  );
  expect(levels.call_gex!).toBeGreaterThanOrEqual(0);
  expect(levels.put_gex!).toBeGreaterThanOrEqual(0);
  expect(levels.net_gex).toBe(Math.round((levels.call_gex! - levels.put_gex!) * 100) / 100 || 0);
  expect(levels.abs_gex).toBe(Math.round((levels.call_gex! + levels.put_gex!) * 100) / 100);
  expect(levels.call_oi_total).toBeCloseTo(
    sum((row) => row.call_oi),
    2,
  );
  expect(levels.put_oi_total).toBeCloseTo(
    sum((row) => row.put_oi),
    2,
  );

  const positive = rows
    .filter((row) => row.net_gex > 0)
    .map((row) => row.net_gex)
    .sort((a, b) => b - a);
  const negative = rows
    .filter((row) => row.net_gex < 0)
    .map((row) => row.net_gex)
    .sort((a, b) => a - b);
  const absolute = rows
    .filter((row) => row.net_gex !== 0)
    .map((row) => Math.abs(row.net_gex))
    .sort((a, b) => b - a);
  expect(levels.p1_gex).toBe(positive[0] ?? null);
  expect(levels.p2_gex).toBe(positive[1] ?? null);
  expect(levels.n1_gex).toBe(negative[0] ?? null);
  expect(levels.n2_gex).toBe(negative[1] ?? null);
  expect(levels.a1_gex === null ? null : Math.abs(levels.a1_gex)).toBe(absolute[0] ?? null);
  expect(levels.a2_gex === null ? null : Math.abs(levels.a2_gex)).toBe(absolute[1] ?? null);
  if (levels.p2_gex !== null) expect(levels.p1_gex!).toBeGreaterThanOrEqual(levels.p2_gex);
  if (levels.n2_gex !== null) {
    expect(levels.n1_gex!).toBeLessThanOrEqual(levels.n2_gex);
    expect(levels.n2_gex).toBeLessThan(0);
  }
  // Each named strike carries its own row's net GEX.
  const netAt = new Map(rows.map((row) => [row.strike, row.net_gex]));
  for (const [strike, gex] of [
    ['p1_strike', 'p1_gex'],
    ['n1_strike', 'n1_gex'],
    ['a1_strike', 'a1_gex'],
    ['s_price', 's_gex'],
    ['v_price', 'v_gex'],
  ] as const) {
    if (levels[strike] !== null) expect(netAt.get(levels[strike]!)).toBe(levels[gex]);
  }
  expect(levels.s_price).toBe(levels.p1_strike);
  expect(levels.v_price).toBe(levels.n1_strike);

  if (levels.flip === null) expect(levels.regime).toBeNull();
  else expect(levels.regime).toBe(levels.spot! >= levels.flip ? 'positive' : 'negative');
  expect(levels.atm_iv!).toBeGreaterThan(0);
  expect(levels.atm_iv!).toBeLessThan(3);
}

/** The flip is a sign change of the model's profile, the nearest to spot; flip_count counts them. */
function expectFlipFromProfile(model: MarketModel, capture: Capture, levels: LevelsFields, expiration: string): void {
  const profile = model.profile(capture.symbol, capture.venues, capture.timestampUtc, expiration);
  const nonZero = profile.netGex.map((value, i) => ({ value, price: profile.prices[i]! })).filter((point) => point.value !== 0);
  let changes = 0;
  const brackets: [number, number][] = [];
  for (let i = 1; i < nonZero.length; i++) {
    if (Math.sign(nonZero[i - 1]!.value) !== Math.sign(nonZero[i]!.value)) {
      changes++;
      brackets.push([nonZero[i - 1]!.price, nonZero[i]!.price]);
    }
  }
  expect(levels.flip_count).toBe(changes);
  expect(profile.crossings).toHaveLength(changes);
  if (levels.flip === null) {
    expect(changes).toBe(0);
    return;
  }
  expect(brackets.some(([low, high]) => levels.flip! >= low - 0.01 && levels.flip! <= high + 0.01)).toBe(true);
  for (const crossing of profile.crossings) {
    expect(Math.abs(levels.flip - capture.spot)).toBeLessThanOrEqual(Math.abs(crossing - capture.spot) + 0.01);
  }
}

function checkCapture(model: MarketModel, capture: Capture): void {
  expect(capture.expirations.length).toBeGreaterThan(0);
  expect(capture.total.levels.spot).toBe(capture.spot);
  expect(capture.total.levels.max_pain).toBeNull();
  expectStrikeRowInvariants(capture.total.strikes);
  expectLevelsInvariants(capture.total.levels, capture.total.strikes);
  expectFlipFromProfile(model, capture, capture.total.levels, 'TOTAL');

  // TOTAL rows are the per-strike sums over expirations.
  const sums = new Map<number, { call: number; put: number; callOi: number; putOi: number }>();
  for (const chain of capture.expirations) {
    expect(chain.cutoffUtc.getTime()).toBeGreaterThan(capture.timestampUtc.getTime());
    expect(chain.dte).toBeCloseTo((chain.cutoffUtc.getTime() - capture.timestampUtc.getTime()) / 86_400_000, 2);
    expectStrikeRowInvariants(chain.strikes);
    expectLevelsInvariants(chain.levels, chain.strikes);
    expectFlipFromProfile(model, capture, chain.levels, chain.iso);
    expect(chain.strikes.map((row) => row.strike)).toContain(chain.levels.max_pain);
    expect(Object.keys(chain.byVenue)).toEqual([...capture.venues]);
    for (const row of chain.strikes) {
      const acc = sums.get(row.strike) ?? { call: 0, put: 0, callOi: 0, putOi: 0 };
      acc.call += row.call_gex;
      acc.put += row.put_gex;
      acc.callOi += row.call_oi;
      acc.putOi += row.put_oi;
      sums.set(row.strike, acc);
    }
  }
  expect(capture.total.strikes.map((row) => row.strike)).toEqual([...sums.keys()].sort((a, b) => a - b));
  for (const row of capture.total.strikes) {
    const acc = sums.get(row.strike)!;
    expect(Math.abs(row.call_gex - acc.call)).toBeLessThan(CENT);
    expect(Math.abs(row.put_gex - acc.put)).toBeLessThan(CENT);
    expect(Math.abs(row.call_oi - acc.callOi)).toBeLessThan(CENT);
    expect(Math.abs(row.put_oi - acc.putOi)).toBeLessThan(CENT);
  }
}

describe('captures', () => {
  const model = smallMarket();

  it('hold every invariant on many captures of every symbol', () => {
    const regimes = new Set<string | null>();
    const flipCounts = new Set<number>();
    for (const info of model.symbols) {
      for (const day of ['2026-01-13', '2026-03-09', '2026-07-01']) {
        const slots = model.sessionCaptures(info.market, day);
        for (const slot of slots.filter((_, i) => i % 6 === 0 || i === slots.length - 1)) {
          for (const venues of [info.historyVenues, [info.venues[0]!]]) {
            const capture = model.capture(info.symbol, venues, slot);
            checkCapture(model, capture);
            regimes.add(capture.total.levels.regime);
            flipCounts.add(capture.total.levels.flip_count);
          }
        }
      }
    }
    // The synthetic market is not degenerate: both regimes and several flip counts occur.
    expect(regimes.has('positive')).toBe(true);
    expect(regimes.has('negative')).toBe(true);
    expect(flipCounts.size).toBeGreaterThan(1);
  });

  it('sums single venues into the combined chain', () => {
    const slot = new Date('2026-03-09T12:00:00Z');
    const venues = model.symbolInfo('ETH')!.historyVenues;
    const combined = model.capture('ETH', venues, slot);
    const singles = venues.map((venue) => model.capture('ETH', [venue], slot));
    combined.expirations.forEach((chain, e) => {
      chain.strikes.forEach((row, s) => {
        const callOi = singles.reduce((sum, single) => sum + single.expirations[e]!.strikes[s]!.call_oi, 0);
        expect(Math.abs(row.call_oi - callOi)).toBeLessThan(CENT);
        const venueMetrics = chain.byVenue[venues[0]!]!;
        expect(venueMetrics).toEqual(singles[0]!.expirations[e]!.byVenue[venues[0]!]);
      });
    });
  });

  it('gives term metrics consistent with the chain', () => {
    const capture = model.capture('SPY', ['tradfi'], new Date('2026-03-09T15:00:00Z'));
    for (const chain of capture.expirations) {
      const metrics = chain.byVenue.tradfi!;
      const contracts = chain.strikes.reduce((sum, row) => sum + row.call_oi + row.put_oi, 0);
      expect(metrics.contracts).toBeCloseTo(contracts, 2);
      expect(metrics.oi_usd).toBeCloseTo(contracts * capture.spot * 100, 0);
      expect(Math.abs(metrics.total_gex - chain.levels.net_gex!)).toBeLessThan(0.01 * chain.strikes.length);
      expect(Math.abs(metrics.upside_gex + metrics.downside_gex - metrics.total_gex)).toBeLessThan(0.02);
    }
  });

  it('keeps open interest fixed within a session and strikes on the symbol grid', () => {
    const first = model.capture('SOL', ['bybit'], new Date('2026-03-09T01:00:00Z'));
    const later = model.capture('SOL', ['bybit'], new Date('2026-03-09T07:00:00Z'));
    expect(later.expirations[0]!.strikes.map((row) => row.call_oi)).toEqual(first.expirations[0]!.strikes.map((row) => row.call_oi));
    expect(first.oiDate).toBe('2026-03-08');
    // SOL short-dated strikes step by 2.5: half values occur, so loaders cannot assume integers.
    expect(first.expirations[0]!.strikes.some((row) => !Number.isInteger(row.strike))).toBe(true);
  });

  it('serves cached TOTAL levels equal to the capture’s', () => {
    const slot = new Date('2026-03-09T10:45:00Z');
    const venues = model.symbolInfo('BTC')!.historyVenues;
    expect(model.totalLevels('BTC', venues, slot)).toEqual(model.capture('BTC', venues, slot).total.levels);
  });

  it('rejects slots, venues and symbols that do not exist', () => {
    expect(() => model.capture('BTC', ['deribit'], new Date('2026-03-09T10:05:00Z'))).toThrow(RangeError);
    expect(() => model.capture('SPY', ['tradfi'], new Date('2026-03-14T15:00:00Z'))).toThrow(RangeError); // Saturday
    expect(() => model.capture('SOL', ['deribit'], new Date('2026-03-09T10:00:00Z'))).toThrow(RangeError);
    expect(() => model.capture('DOGE', ['bybit'], new Date('2026-03-09T10:00:00Z'))).toThrow(RangeError);
  });

  it('lists expirations with the grace hour and the configured cap', () => {
    expect(model.expirationsAt('BTC', new Date('2026-03-09T08:30:00Z'))[0]!.code).toBe('09MAR26');
    expect(model.capture('BTC', ['okx'], new Date('2026-03-09T08:30:00Z')).expirations[0]!.code).toBe('10MAR26');
    expect(model.expirationsAt('QQQ', new Date('2026-03-09T15:00:00Z'))).toHaveLength(3);
  });
});

describe('symbols and spot', () => {
  it('restricts the symbol set and knows each market and venue', () => {
    const model = createMarketModel({ seed: 1, expirations: 3, strikes: 15, historyStart: '2026-01-01', symbols: ['sol', 'QQQ'] });
    expect(model.symbols.map((info) => info.symbol)).toEqual(['SOL', 'QQQ']);
    expect(model.symbolInfo('sol')).toMatchObject({
      market: 'crypto',
      venues: ['bybit', 'okx', 'binance', 'derive'],
      historyVenues: ['bybit', 'okx', 'derive'],
    });
    expect(model.symbolInfo('QQQ')).toMatchObject({ market: 'tradfi', venues: ['tradfi'], historyVenues: ['tradfi'] });
    expect(model.symbolInfo('BTC')).toBeUndefined();
  });

  it('walks spot within a plausible range over a year', () => {
    const model = smallMarket();
    const ranges: Record<string, [number, number]> = { BTC: [45_000, 130_000], ETH: [1_500, 5_500], SOL: [60, 330], SPY: [450, 660], QQQ: [380, 600] };
    for (const info of model.symbols) {
      for (let day = 0; day < 365; day += 7) {
        const date = new Date(Date.UTC(2026, 0, 5 + day)).toISOString().slice(0, 10);
        const slot = model.sessionCaptures(info.market, date)[0];
        if (slot === undefined) continue;
        const spot = model.capture(info.symbol, [info.venues[0]!], slot).spot;
        const [low, high] = ranges[info.symbol]!;
        expect(spot).toBeGreaterThan(low);
        expect(spot).toBeLessThan(high);
      }
    }
  });
});

describe('determinism', () => {
  it('gives the same numbers for the same seed and different ones for another seed', () => {
    const slot = new Date('2026-02-10T09:15:00Z');
    const a = smallMarket(5).capture('BTC', ['deribit'], slot);
    const b = smallMarket(5).capture('BTC', ['deribit'], slot);
    const c = smallMarket(6).capture('BTC', ['deribit'], slot);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(c.spot).not.toBe(a.spot);
  });
});
