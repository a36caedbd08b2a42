// The sync against names it did not expect: a mistyped --symbol or --exchange stops before anything
// is spent; odd coverage rows and a pair whose manifest is refused are skipped with a warning while
// every other pair completes; a long but valid symbol syncs like any other.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { UsageError } from '../../src/core/errors.js';
import type { EmulatorOptions } from '../../emulator/index.js';
import { startMigratedBench } from '../helpers/migrated-bench.js';
import { startBench, type Bench } from '../helpers/sync.js';

let bench: Bench | undefined;
afterEach(async () => {
  await bench?.close();
  bench = undefined;
});

const LONG = 'BTC-USD-PERPETUAL-2026Q4X'; // 25 characters

// What these check is which pairs and files are bought, never a file's values: small chains.
const SMALL = { strikes: 4, expirations: 1 };
/** A bench whose warehouse exists already (for the cases that go on to sync). */
const syncBench = (options: EmulatorOptions = {}) => startMigratedBench({ ...SMALL, ...options });

describe('names checked before anything is spent', () => {
  it('an unknown symbol is a UsageError naming it and the known ones; nothing spent, no warehouse', async () => {
    bench = await startBench(SMALL);
    const error = await bench.sync({ symbol: 'nope' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe('NOPE: no history in the coverage; known symbols: BTC, SPY');
    expect(bench.emulator.counters.credits(bench.emulator.keys.pro)).toBe(0);
    expect(bench.emulator.counters.requests(bench.emulator.keys.pro)).toBe(0);
    expect(existsSync(bench.dbPath)).toBe(false);
  });

  it('a near miss suggests the symbol; a pair with no history names the venues that hold it', async () => {
    bench = await startBench(SMALL);
    await expect(bench.sync({ symbol: 'BTX' })).rejects.toThrow('BTX: no history in the coverage; did you mean BTC?');
    await expect(bench.sync({ symbol: 'spy', exchange: 'deribit' })).rejects.toThrow('SPY on deribit: no history; SPY has history on tradfi');
    expect(bench.emulator.counters.credits(bench.emulator.keys.pro)).toBe(0);
  });

  it('symbols match case-insensitively', async () => {
    bench = await syncBench();
    const summary = await bench.sync({ symbol: 'spy', exchange: 'tradfi', maxCredits: 1 });
    expect(summary.plan.pairs.map((p) => `${p.exchange}/${p.symbol}`)).toEqual(['tradfi/SPY']);
    expect(summary.creditsSpent).toBe(1);
  });

  it('plan names every venue a symbol would cost credits on, when every venue is asked for', async () => {
    bench = await syncBench();
    const summary = await bench.sync({ symbol: 'btc', exchange: 'all-venues' }, { dryRun: true, command: 'plan' });
    expect(summary.venueSpread).toEqual([
      { symbol: 'BTC', venues: ['bybit', 'combined', 'deribit', 'derive', 'okx'].map((exchange) => ({ exchange, credits: 9 })) },
    ]);
    const scoped = await bench.sync({ symbol: 'btc', exchange: 'deribit' }, { dryRun: true, command: 'plan' });
    expect(scoped.venueSpread).toEqual([]);
  });
});

describe('one venue per symbol unless more are named', () => {
  const pairsOf = (summary: { plan: { pairs: { exchange: string; symbol: string; toDownload: number }[] } }) =>
    summary.plan.pairs.filter((p) => p.toDownload > 0).map((p) => `${p.exchange}/${p.symbol}`);

  it('without --exchange a symbol resolves as the API resolves all: combined for a coin, tradfi for a ticker', async () => {
    bench = await syncBench();
    const summary = await bench.sync({ symbol: 'BTC,SPY', maxCredits: 12 });
    expect(pairsOf(summary)).toEqual(['combined/BTC', 'tradfi/SPY']);
    expect(summary.venueSpread).toEqual([]);
    const bought = await bench.query<{ exchange: string }>(`SELECT DISTINCT exchange FROM sync.files ORDER BY 1`);
    expect(bought.map((row) => row.exchange)).toEqual(['combined', 'tradfi']);
    // No symbol named either: every symbol, still one venue each.
    const all = await bench.sync({}, { dryRun: true, command: 'plan' });
    expect(all.plan.pairs.map((p) => `${p.exchange}/${p.symbol}`)).toEqual(['combined/BTC', 'tradfi/SPY']);
  });

  it('several venues only when named, or with all-venues; all-venues takes no other name', async () => {
    bench = await syncBench();
    const named = await bench.sync({ symbol: 'BTC', exchange: 'deribit,okx' }, { dryRun: true, command: 'plan' });
    expect(named.plan.pairs.map((p) => p.exchange)).toEqual(['deribit', 'okx']);
    const every = await bench.sync({ symbol: 'BTC', exchange: 'ALL-VENUES' }, { dryRun: true, command: 'plan' });
    expect(every.plan.pairs.map((p) => p.exchange)).toEqual(['bybit', 'combined', 'deribit', 'derive', 'okx']);
    await expect(bench.sync({ symbol: 'BTC', exchange: 'all-venues,deribit' })).rejects.toThrow(
      '--exchange: all-venues buys every venue and takes no other name',
    );
    await expect(bench.sync({ symbol: 'BTC', exchange: 'all' })).rejects.toThrow(
      /the venue the API's "all" gives: combined for a crypto coin, tradfi for a TradFi ticker; all-venues buys every venue/,
    );
  });

  it('a symbol whose default venue has no history is an error naming the venues that have it; nothing spent', async () => {
    bench = await syncBench();
    const real = (await bench.client().get('/history/coverage')).body as { data: Record<string, unknown>[]; meta: unknown };
    const body = JSON.stringify({ ...real, data: real.data.filter((row) => !(row.exchange === 'combined' && row.symbol === 'BTC')) });
    bench.emulator.faults.add({ match: /\/history\/coverage/, times: Infinity, action: { kind: 'body', status: 200, body } });
    await expect(bench.sync({ symbol: 'BTC' })).rejects.toThrow(
      'BTC: no history on combined or tradfi, the venue a symbol takes without --exchange; BTC has history on bybit, deribit, derive, okx: name one with --exchange',
    );
    expect(bench.emulator.counters.credits(bench.emulator.keys.pro)).toBe(0);
  });
});

describe('one odd coverage row never sinks the night', () => {
  it('an unknown venue, a symbol over 32 characters and a row with no file dates are skipped with one warning each; the rest syncs', async () => {
    bench = await syncBench();
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
    bench = await syncBench();
    bench.emulator.faults.add({
      match: /\/history\/files\/deribit\/BTC(\?|$)/,
      times: Infinity,
      action: { kind: 'status', status: 400, error: 'invalid_pair' },
    });
    const summary = await bench.sync({ exchange: 'deribit,tradfi' });
    expect(summary.outcome).toBe('ok');
    expect(summary.filesLoaded).toBe(6);
    expect(summary.skippedPairs).toEqual([
      { exchange: 'deribit', symbol: 'BTC', reason: expect.stringMatching(/^its manifest could not be listed: HTTP 400 invalid_pair/) },
    ]);
    expect(summary.warnings).toContainEqual(expect.stringMatching(/^coverage row deribit\/BTC skipped: its manifest could not be listed/));
  });

  it('a 25-character symbol syncs like any other', async () => {
    bench = await syncBench({ symbolAliases: { [LONG]: 'BTC' } });
    const summary = await bench.sync({ symbol: LONG.toLowerCase(), exchange: 'deribit' });
    expect(summary.outcome).toBe('ok');
    expect(summary.filesLoaded).toBe(9);
    const rows = await bench.query<{ symbol: string; n: number }>(`SELECT symbol, count(*)::INTEGER AS n FROM levels GROUP BY symbol`);
    expect(rows).toEqual([{ symbol: LONG, n: expect.any(Number) }]);
    expect(rows[0]!.n).toBeGreaterThan(0);
    expect(existsSync(`${bench.archive}/deribit/${LONG}`)).toBe(true);
  });
});
