// The sync against names it did not expect: a mistyped --symbol or --exchange stops before anything
// is spent; odd coverage rows and a pair whose manifest is refused are skipped with a warning while
// every other pair completes; a long but valid symbol syncs like any other.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { UsageError } from '../../src/core/errors.js';
import { startBench, type Bench } from '../helpers/sync.js';

let bench: Bench | undefined;
afterEach(async () => {
  await bench?.close();
  bench = undefined;
});

const LONG = 'BTC-USD-PERPETUAL-2026Q4X'; // 25 characters

describe('names checked before anything is spent', () => {
  it('an unknown symbol is a UsageError naming it and the known ones; nothing spent, no warehouse', async () => {
    bench = await startBench();
    const error = await bench.sync({ symbol: 'nope' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe('NOPE: no history in the coverage; known symbols: BTC, SPY');
    expect(bench.emulator.counters.credits(bench.emulator.keys.pro)).toBe(0);
    expect(bench.emulator.counters.requests(bench.emulator.keys.pro)).toBe(0);
    expect(existsSync(bench.dbPath)).toBe(false);
  });

  it('a near miss suggests the symbol; a pair with no history names the venues that hold it', async () => {
    bench = await startBench();
    await expect(bench.sync({ symbol: 'BTX' })).rejects.toThrow('BTX: no history in the coverage; did you mean BTC?');
    await expect(bench.sync({ symbol: 'spy', exchange: 'deribit' })).rejects.toThrow('SPY on deribit: no history; SPY has history on tradfi');
    expect(bench.emulator.counters.credits(bench.emulator.keys.pro)).toBe(0);
  });

  it('symbols match case-insensitively', async () => {
    bench = await startBench();
    const summary = await bench.sync({ symbol: 'spy', exchange: 'tradfi', maxCredits: 1 });
    expect(summary.plan.pairs.map((p) => `${p.exchange}/${p.symbol}`)).toEqual(['tradfi/SPY']);
    expect(summary.creditsSpent).toBe(1);
  });

  it('plan names every venue a symbol would cost credits on', async () => {
    bench = await startBench();
    const summary = await bench.sync({ symbol: 'btc' }, { dryRun: true, command: 'plan' });
    expect(summary.venueSpread).toEqual([
      { symbol: 'BTC', venues: ['bybit', 'combined', 'deribit', 'derive', 'okx'].map((exchange) => ({ exchange, credits: 9 })) },
    ]);
    const scoped = await bench.sync({ symbol: 'btc', exchange: 'deribit' }, { dryRun: true, command: 'plan' });
    expect(scoped.venueSpread).toEqual([]);
  });
});

describe('one odd coverage row never sinks the night', () => {
  it('an unknown venue, a symbol over 32 characters and a row with no file dates are skipped with one warning each; the rest syncs', async () => {
    bench = await startBench();
    const real = (await bench.client().get('/history/coverage')).body as { data: Record<string, unknown>[]; meta: unknown };
    const btc = real.data.find((row) => row.exchange === 'deribit' && row.symbol === 'BTC')!;
    const odd = [
      { ...btc, exchange: 'kraken' },
      { ...btc, symbol: 'X'.repeat(33) },
      { ...btc, symbol: 'ETH', files_first_date: null, files_last_date: null },
    ];
    const body = JSON.stringify({ ...real, data: [...odd, ...real.data] });
    bench.emulator.faults.add({ match: /\/history\/coverage/, times: Infinity, action: { kind: 'body', status: 200, body } });
    const summary = await bench.sync({ exchange: 'deribit,tradfi' });
    expect(summary.outcome).toBe('ok');
    expect(summary.filesLoaded).toBe(15); // deribit/BTC 3 sessions + tradfi/SPY 2 sessions, 3 files each
    expect(summary.skippedPairs).toEqual([
      { exchange: 'deribit', symbol: 'X'.repeat(33), reason: expect.stringMatching(/^symbol: expected a symbol of 1 to 32 characters/) },
      { exchange: 'kraken', symbol: 'BTC', reason: expect.stringMatching(/^unknown venue "kraken"/) },
      { exchange: 'deribit', symbol: 'ETH', reason: expect.stringMatching(/^no file dates/) },
    ]);
    expect(summary.warnings.filter((w) => w.startsWith('coverage row '))).toHaveLength(3);
    const stored = await bench.query<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM sync.coverage WHERE exchange = 'kraken' OR symbol = 'ETH'`);
    expect(stored[0]!.n).toBe(0);
  });

  it('a pair whose manifest is refused is skipped with a warning; the other pairs load', async () => {
    bench = await startBench();
    bench.emulator.faults.add({ match: /\/history\/files\/deribit\/BTC(\?|$)/, times: Infinity, action: { kind: 'status', status: 400, error: 'invalid_pair' } });
    const summary = await bench.sync({ exchange: 'deribit,tradfi' });
    expect(summary.outcome).toBe('ok');
    expect(summary.filesLoaded).toBe(6);
    expect(summary.skippedPairs).toEqual([{ exchange: 'deribit', symbol: 'BTC', reason: expect.stringMatching(/^its manifest could not be listed: HTTP 400 invalid_pair/) }]);
    expect(summary.warnings).toContainEqual(expect.stringMatching(/^coverage row deribit\/BTC skipped: its manifest could not be listed/));
  });

  it('a 25-character symbol syncs like any other', async () => {
    bench = await startBench({ symbolAliases: { [LONG]: 'BTC' } });
    const summary = await bench.sync({ symbol: LONG.toLowerCase(), exchange: 'deribit' });
    expect(summary.outcome).toBe('ok');
    expect(summary.filesLoaded).toBe(9);
    const rows = await bench.query<{ symbol: string; n: number }>(`SELECT symbol, count(*)::INTEGER AS n FROM levels GROUP BY symbol`);
    expect(rows).toEqual([{ symbol: LONG, n: expect.any(Number) }]);
    expect(rows[0]!.n).toBeGreaterThan(0);
    expect(existsSync(`${bench.archive}/deribit/${LONG}`)).toBe(true);
  });
});
