// The emulator's market moves like a market: the flip at each session's close moves by about a day's
// price move from one session to the next (positioning drifts; it is not drawn afresh every session),
// the regime comes in runs of sessions, and all of it is the same for the same seed.
import { describe, expect, it } from 'vitest';
import { createMarketModel } from '../../../emulator/market/index.js';

const SESSIONS = 30;

function closes(seed: number, symbol: string, venue: string): { flip: number | null; regime: string | null }[] {
  const model = createMarketModel({ seed, expirations: 6, strikes: 40, historyStart: '2026-01-01', symbols: [symbol] });
  const market = model.symbolInfo(symbol)!.market;
  const out: { flip: number | null; regime: string | null }[] = [];
  for (let d = 0; out.length < SESSIONS; d++) {
    const date = new Date(Date.parse('2026-02-01T00:00:00Z') + d * 86_400_000).toISOString().slice(0, 10);
    const captures = model.sessionCaptures(market, date);
    if (captures.length === 0) continue;
    const levels = model.totalLevels(symbol, [venue], captures[captures.length - 1]!);
    out.push({ flip: levels.flip, regime: levels.regime });
  }
  return out;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

describe('the synthetic market from session to session', () => {
  it.each([
    [11, 'BTC', 'deribit', 3, 10],
    [42, 'BTC', 'deribit', 3, 10],
    [11, 'SPY', 'tradfi', 2, 13],
  ] as const)(
    'seed %i %s: the flip moves a little a session (median), the regime changes in runs',
    (seed, symbol, venue, limitPct, maxChanges) => {
      const series = closes(seed, symbol, venue);
      const moves: number[] = [];
      for (let i = 1; i < series.length; i++) {
        const [a, b] = [series[i - 1]!.flip, series[i]!.flip];
        if (a !== null && b !== null) moves.push(Math.abs(b / a - 1) * 100);
      }
      expect(moves.length).toBeGreaterThan(SESSIONS / 2);
      expect(median(moves)).toBeLessThan(limitPct);
      // Fresh draws every session changed the regime about every other session; drifting positioning far less often.
      const changes = series.slice(1).filter((s, i) => s.regime !== series[i]!.regime).length;
      expect(changes).toBeLessThan(maxChanges);
    },
    120_000,
  );

  it('the same seed gives the same closes; another seed other ones', () => {
    const a = closes(7, 'BTC', 'deribit').slice(0, 8);
    expect(closes(7, 'BTC', 'deribit').slice(0, 8)).toEqual(a);
    expect(closes(8, 'BTC', 'deribit').slice(0, 8)).not.toEqual(a);
  }, 120_000);
});
