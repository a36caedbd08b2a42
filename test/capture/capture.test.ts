// `gexwh capture` (issue 5): target planning (pure), then captures against the emulator.
import { existsSync, mkdtempSync, promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../src/api/index.js';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { UsageError } from '../../src/core/errors.js';
import { captureTargets, parseCaptureVenues, tradfiClearlyClosed } from '../../src/capture/capture-targets.js';
import { captureApiFrom } from '../../src/capture/api-port.js';
import { runCapture, type CaptureOptions } from '../../src/capture/capture.js';
import { openWarehouse } from '../../src/warehouse/index.js';
import { isoOfExpirationCode } from '../../src/time/expiration-code.js';

describe('capture plan (pure)', () => {
  it('parses current-data venues, subsets included, and names what is allowed', () => {
    expect(parseCaptureVenues(undefined)).toBeUndefined();
    expect(parseCaptureVenues(['Deribit,okx', 'deribit+derive', 'ALL'])).toEqual(['deribit', 'okx', 'deribit+derive', 'all']);
    expect(() => parseCaptureVenues('kraken')).toThrow(/unknown current-data venue "kraken".*binance/);
    expect(() => parseCaptureVenues('deribit+deribit')).toThrow(UsageError);
    expect(() => parseCaptureVenues('deribit+tradfi')).toThrow(UsageError);
  });

  it('defaults to all for crypto and tradfi for TradFi; --exchange applies per market', () => {
    const markets = { crypto: ['BTC', 'ETH'], tradfi: ['SPY'] };
    expect(captureTargets(['BTC', 'SPY'], undefined, markets).targets).toEqual([
      { exchange: 'all', symbol: 'BTC', market: 'crypto' },
      { exchange: 'tradfi', symbol: 'SPY', market: 'tradfi' },
    ]);
    const chosen = captureTargets(['BTC', 'SPY'], ['deribit', 'okx+bybit', 'all'], markets);
    expect(chosen.targets.map((t) => `${t.exchange}/${t.symbol}`)).toEqual(['deribit/BTC', 'okx+bybit/BTC', 'all/BTC', 'tradfi/SPY']);
    const none = captureTargets(['SPY'], ['deribit'], markets);
    expect(none.targets).toEqual([]);
    expect(none.warnings[0]).toMatch(/no tradfi venue for SPY/);
    expect(() => captureTargets(['DOGE'], undefined, markets)).toThrow(/DOGE is not listed/);
    expect(() => captureTargets(['ETC'], undefined, markets)).toThrow(
      '--symbol: ETC is not listed by the API (/coins); did you mean BTC, ETH? crypto: BTC, ETH; tradfi: SPY',
    );
  });

  it('TradFi is clearly closed on weekends and outside 09:15–16:15 New York', () => {
    expect(tradfiClearlyClosed(new Date('2026-03-11T14:07:00Z'))).toBe(false); // Wed 10:07 EDT
    expect(tradfiClearlyClosed(new Date('2026-03-11T20:05:00Z'))).toBe(false); // 16:05, the close may be pending
    expect(tradfiClearlyClosed(new Date('2026-03-11T20:15:00Z'))).toBe(true);
    expect(tradfiClearlyClosed(new Date('2026-03-11T13:10:00Z'))).toBe(true); // 09:10
    expect(tradfiClearlyClosed(new Date('2026-03-14T15:00:00Z'))).toBe(true); // Saturday
    expect(tradfiClearlyClosed(new Date('2026-01-14T14:20:00Z'))).toBe(false); // 09:20 EST
    expect(tradfiClearlyClosed(new Date('2026-11-26T15:00:00Z'))).toBe(true); // Thanksgiving 10:00
    expect(tradfiClearlyClosed(new Date('2026-11-27T18:10:00Z'))).toBe(false); // early close 13:10
    expect(tradfiClearlyClosed(new Date('2026-11-27T18:15:00Z'))).toBe(true); // 13:15
  });

  it('reads DDMMMYY expiration codes', () => {
    expect(isoOfExpirationCode('27MAR26')).toBe('2026-03-27');
    expect(isoOfExpirationCode('3APR26')).toBe('2026-04-03');
    expect(isoOfExpirationCode('31FEB26')).toBeNull();
    expect(isoOfExpirationCode('TOTAL')).toBeNull();
  });
});

/** Wednesday 2026-03-11 14:07 UTC: New York regular hours (EDT), crypto mid-session. */
const NOW = '2026-03-11T14:07:00Z';

interface Rig {
  emulator: Emulator;
  dir: string;
  dbPath: string;
  client: ApiClient;
  capture(options?: Partial<CaptureOptions>): ReturnType<typeof runCapture>;
  count(table: string): Promise<number>;
  runs(): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function startRig(now = NOW): Promise<Rig> {
  const emulator = await startEmulator({ now, days: 3, expirations: 3, strikes: 8, seed: 5, symbols: ['BTC', 'SPY'] });
  const dir = mkdtempSync(join(tmpdir(), 'gexwh-capture-'));
  const dbPath = join(dir, 'gex.duckdb');
  const client = createApiClient({ baseUrl: emulator.baseUrl, apiKey: emulator.keys.pro, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
  return {
    emulator,
    dir,
    dbPath,
    client,
    capture: (options = {}) =>
      runCapture(captureApiFrom(client), {
        dbPath,
        archiveRoot: join(dir, 'raw'),
        symbols: ['BTC', 'SPY'],
        byStrike: false,
        force: false,
        dryRun: false,
        signal: new AbortController().signal,
        ...options,
      }),
    async count(table) {
      const warehouse = await openWarehouse(dbPath);
      try {
        // table names come from the tests' own literals
        const rows = (await warehouse.connection.runAndReadAll(`SELECT count(*)::INT AS n FROM ${table}`)).getRowObjectsJS();
        return Number(rows[0]?.n);
      } finally {
        warehouse.close();
      }
    },
    async runs() {
      const warehouse = await openWarehouse(dbPath);
      try {
        const reader = await warehouse.connection.runAndReadAll(
          `SELECT command, outcome, requests_spent::INT AS requests, rows_loaded::INT AS rows, options::VARCHAR AS options,
                  finished_at IS NOT NULL AS finished, error
             FROM sync.runs ORDER BY run_id`,
        );
        return reader.getRowObjectsJS();
      } finally {
        warehouse.close();
      }
    },
    async close() {
      await client.close();
      await emulator.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/** Expected rows from the emulator's own answers, fetched with another key (not the pro counter). */
async function expectedRows(r: Rig, exchange: string, symbol: string) {
  const other = createApiClient({ baseUrl: r.emulator.baseUrl, apiKey: r.emulator.keys.admin });
  try {
    const term = await other.termOi(exchange, symbol);
    const termRows = term.data.expirations.reduce((sum, e) => sum + Object.keys(e.exchanges).length + 1, 0);
    const codes = (await other.expirations(exchange, symbol)).data.expirations;
    let strikes = 0;
    for (const code of codes) strikes += (await other.gexByStrike(exchange, symbol, code)).data.gex_data.strikes.length;
    const levels = await other.levels(exchange, symbol);
    return { termRows, strikes, codes, levels };
  } finally {
    await other.close();
  }
}

describe('gexwh capture against the emulator', () => {
  it('writes one levels row, the term structure and every expiration profile per capture; cost as planned', async () => {
    rig = await startRig();
    const { emulator } = rig;
    const btc = await expectedRows(rig, 'all', 'BTC');
    const spy = await expectedRows(rig, 'tradfi', 'SPY');
    const summary = await rig.capture({ byStrike: true });

    const planned = 2 + btc.codes.length + 2 + spy.codes.length;
    expect(summary.plannedRequests).toBe(planned);
    expect(summary.requestsSpent).toBe(planned);
    expect(emulator.counters.requests(emulator.keys.pro)).toBe(planned);
    expect(summary.targets.map((t) => [t.exchange, t.symbol, t.status, t.resolved])).toEqual([
      ['all', 'BTC', 'captured', 'combined'],
      ['tradfi', 'SPY', 'captured', 'tradfi'],
    ]);
    expect(summary.rowsInserted).toEqual({ live_levels: 2, term_structure: btc.termRows + spy.termRows, live_strikes: btc.strikes + spy.strikes });
    expect(await rig.count('term_structure')).toBe(btc.termRows + spy.termRows);

    const warehouse = await openWarehouse(rig.dbPath);
    try {
      const conn = warehouse.connection;
      const [row] = (
        await conn.runAndReadAll(
          `SELECT exchange, symbol, session_date::VARCHAR AS d, strftime(as_of, '%Y-%m-%dT%H:%M:%SZ') AS as_of, spot, flip, p1_strike,
                market_open, is_live, data_source, oi_as_of::VARCHAR AS oi
           FROM live_levels WHERE symbol = 'BTC'`,
        )
      ).getRowObjectsJS();
      const meta = btc.levels.meta;
      expect(row).toEqual({
        exchange: 'combined',
        symbol: 'BTC',
        d: '2026-03-11',
        as_of: meta.as_of.replace(/\.\d+Z$/, 'Z'),
        spot: btc.levels.data.spot,
        flip: btc.levels.data.flip,
        p1_strike: btc.levels.data.p1_strike,
        market_open: true,
        is_live: meta.is_live,
        data_source: meta.data_source,
        oi: meta.oi_as_of,
      });
      // Every term row has its TOTAL, and the TOTAL sums the venues.
      const totals = (
        await conn.runAndReadAll(
          `SELECT expiration, expiration_date::VARCHAR AS iso,
                any_value(oi_usd) FILTER (WHERE venue = 'TOTAL') AS total, sum(oi_usd) FILTER (WHERE venue <> 'TOTAL') AS venues
           FROM term_structure WHERE symbol = 'BTC' GROUP BY ALL`,
        )
      ).getRowObjectsJS();
      expect(totals.length).toBe(btc.codes.length);
      for (const t of totals) {
        expect(t.iso).not.toBeNull();
        expect(Number(t.total)).toBeCloseTo(Number(t.venues), 2);
      }
      const strikeCodes = (await conn.runAndReadAll(`SELECT DISTINCT expiration FROM live_strikes WHERE symbol = 'SPY' ORDER BY 1`)).getRowObjectsJS();
      expect(strikeCodes.map((r) => r.expiration).sort()).toEqual([...spy.codes].sort());
    } finally {
      warehouse.close();
    }
  });

  it('a second capture in the same 15-minute slot spends nothing and says so; --force buys it again; the next slot captures', async () => {
    rig = await startRig();
    const { emulator } = rig;
    const first = await rig.capture({ byStrike: true });
    const spent = emulator.counters.requests(emulator.keys.pro);
    expect(spent).toBe(first.requestsSpent);
    const again = await rig.capture({ byStrike: true });
    expect(again.requestsSpent).toBe(0);
    expect(emulator.counters.requests(emulator.keys.pro)).toBe(spent);
    expect(again.targets.map((t) => [t.symbol, t.status, t.requests, t.plannedRequests])).toEqual([
      ['BTC', 'skipped', 0, 0],
      ['SPY', 'skipped', 0, 0],
    ]);
    expect(again.targets[0]!.reason).toBe(
      'the 15-minute slot from 2026-03-11 14:00:00Z is already captured (as_of 2026-03-11 14:00:00Z): 0 requests; --force captures again',
    );
    expect(await rig.count('live_levels')).toBe(2);

    // --force pays for the same as_of, which adds no rows.
    const forced = await rig.capture({ byStrike: true, force: true });
    expect(forced.requestsSpent).toBe(first.requestsSpent);
    expect(forced.rowsInserted).toEqual({ live_levels: 0, term_structure: 0, live_strikes: 0 });

    rig.emulator.clock.advance(15 * 60_000);
    const next = await rig.capture({ byStrike: true });
    expect(next.rowsInserted.live_levels).toBe(2);
    expect(await rig.count('live_levels')).toBe(4);
    expect(await rig.count('term_structure')).toBe(first.rowsInserted.term_structure + next.rowsInserted.term_structure);
  });

  it('a slot still waiting in the live journal (the warehouse was held) is not bought again either', async () => {
    rig = await startRig();
    const { emulator } = rig;
    // As a capture beside a process holding the warehouse leaves it: the snapshot journaled, not loaded.
    await rig.capture({ symbols: ['BTC'] });
    const live = join(rig.dir, 'raw', '_live');
    await fs.rm(join(live, 'pending'), { recursive: true, force: true });
    await fs.rename(join(live, 'loaded'), join(live, 'pending'));
    await fs.rm(rig.dbPath, { force: true });
    const spent = emulator.counters.requests(emulator.keys.pro);
    const again = await rig.capture({ symbols: ['BTC'], dryRun: true });
    expect(again.targets[0]).toMatchObject({ status: 'skipped', plannedRequests: 0 });
    expect(existsSync(rig.dbPath)).toBe(false);
    expect(emulator.counters.requests(emulator.keys.pro)).toBe(spent);
  });

  it('closed TradFi is skipped for free at night and on weekends, unless --force', async () => {
    rig = await startRig('2026-03-14T15:00:00Z'); // Saturday
    const { emulator } = rig;
    const summary = await rig.capture();
    expect(summary.targets.find((t) => t.symbol === 'SPY')).toMatchObject({ status: 'skipped', requests: 0, plannedRequests: 0 });
    expect(summary.targets.find((t) => t.symbol === 'BTC')).toMatchObject({ status: 'captured', requests: 2 });
    expect(emulator.counters.requests(emulator.keys.pro)).toBe(2);
    expect(emulator.counters.hits(/\/(levels|gex)\/[^/]+\/SPY/)).toBe(0);

    const forced = await rig.capture({ symbols: ['SPY'], force: true });
    expect(forced.targets[0]).toMatchObject({ status: 'captured', requests: 2, marketOpen: false });
    expect(forced.rowsInserted.term_structure).toBeGreaterThan(0);
  });

  it('just after the close: the closing snapshot is taken once, later runs in its slot spend nothing', async () => {
    rig = await startRig('2026-03-11T20:05:00Z'); // 16:05 New York
    const first = await rig.capture({ symbols: ['SPY'] });
    expect(first.targets[0]).toMatchObject({ status: 'captured', marketOpen: false, requests: 2 });
    const termRows = await rig.count('term_structure');
    expect(termRows).toBeGreaterThan(0);

    rig.emulator.clock.advance(5 * 60_000);
    const second = await rig.capture({ symbols: ['SPY'] });
    expect(second.targets[0]).toMatchObject({ status: 'skipped', requests: 0 });
    expect(second.targets[0]!.reason).toMatch(/already captured/);
    expect(await rig.count('term_structure')).toBe(termRows);
  });

  it('--max-requests caps the run and keeps what was captured', async () => {
    rig = await startRig();
    const { emulator } = rig;
    const summary = await rig.capture({ maxRequests: 3 });
    expect(summary.plannedRequests).toBe(4);
    expect(summary.requestsSpent).toBe(3);
    expect(emulator.counters.requests(emulator.keys.pro)).toBe(3);
    expect(summary.stoppedBy).toBe('max_requests');
    expect(summary.targets.map((t) => [t.symbol, t.status, t.requests])).toEqual([
      ['BTC', 'captured', 2],
      ['SPY', 'captured', 1],
    ]);
    expect(await rig.count('live_levels')).toBe(2);
    expect(summary.warnings.some((w) => w.includes('--max-requests 3'))).toBe(true);
  });

  it('records each capture in sync.runs: requests spent, rows added, outcome, options without the key', async () => {
    rig = await startRig();
    const first = await rig.capture({ maxRequests: 3 });
    const second = await rig.capture();
    const added = (s: typeof first) => s.rowsInserted.live_levels + s.rowsInserted.term_structure + s.rowsInserted.live_strikes;
    const runs = await rig.runs();
    expect(runs).toMatchObject([
      { command: 'capture', outcome: 'ok', requests: 3, rows: added(first), finished: true, error: null },
      { command: 'capture', outcome: 'ok', requests: second.requestsSpent, rows: added(second), finished: true },
    ]);
    expect(added(first)).toBeGreaterThan(0);
    expect(JSON.parse(String(runs[0]?.options))).toMatchObject({ symbols: ['BTC', 'SPY'], maxRequests: 3, byStrike: false });
    expect(String(runs[0]?.options)).not.toContain(rig.emulator.keys.pro);
  });

  it('a refused key records no run and creates no warehouse', async () => {
    rig = await startRig();
    const bad = createApiClient({ baseUrl: rig.emulator.baseUrl, apiKey: `gex_${'0'.repeat(32)}` });
    try {
      await expect(
        runCapture(captureApiFrom(bad), {
          dbPath: rig.dbPath,
          archiveRoot: join(rig.dir, 'raw'),
          symbols: ['BTC'],
          byStrike: false,
          force: false,
          dryRun: false,
          signal: new AbortController().signal,
        }),
      ).rejects.toThrow();
    } finally {
      await bad.close();
    }
    expect(existsSync(rig.dbPath)).toBe(false);
  });

  it('a 429 stops cleanly and what was fetched is written', async () => {
    rig = await startRig();
    rig.emulator.setQuota(rig.emulator.keys.pro, { requestsUsed: 499 });
    const summary = await rig.capture();
    expect(summary.stoppedBy).toBe('quota');
    expect(summary.quotaStop?.bucket).toBe('requests');
    expect(summary.requestsSpent).toBe(1);
    expect(summary.targets.map((t) => t.status)).toEqual(['captured', 'not_reached']);
    expect(await rig.count('live_levels')).toBe(1);
  });

  it('dry run shows the cost from free calls only and spends nothing', async () => {
    rig = await startRig();
    const { emulator } = rig;
    const codes = (await rig.client.expirations('all', 'BTC')).data.expirations.length;
    const summary = await rig.capture({ byStrike: true, dryRun: true });
    expect(summary.dryRun).toBe(true);
    expect(summary.targets.find((t) => t.symbol === 'BTC')).toMatchObject({ status: 'planned', plannedRequests: 2 + codes });
    expect(summary.requestsSpent).toBe(0);
    expect(emulator.counters.requests(emulator.keys.pro)).toBe(0);
    expect(emulator.counters.hits(/\/(levels|gex)\//)).toBe(0);
    expect(existsSync(rig.dbPath)).toBe(false);
  });
});
