// gexwh levels with live snapshots (`gexwh capture`'s live_levels) beside the history: a snapshot
// newer than the pair's capture at the moment is shown, typed live, its Δs against the closes by
// levels_compare's rule; an older one, or one after --at, is ignored; one at the same instant as a
// history capture (the demo's live rows copy today's fills, as capture and sync --fill-levels both
// hold the API's 15-minute captures) leaves the history's line.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWarehouse } from '../../src/warehouse/index.js';
import { insertLiveRows, type LiveRow } from '../../src/warehouse/live.js';
import { runCliInProcess, type CliResult } from '../helpers/cli.js';
import { loadDemoHistory } from '../helpers/demo-warehouse.js';

interface Row {
  [key: string]: unknown;
}

let dir: string;
let db: string;
/** The lines before the test's live rows were written (the demo's tie with the history), without --at and at SNAPSHOT. */
let historyOnly: { latest: string; text: string; atSnapshot: Row[] };
/** The closes of deribit BTC, newest first. */
let closes: Row[];
/** The demo's own live_levels rows of deribit BTC at its last history capture. */
let tiedLiveRows: number;

/** Newer than the demo's last history capture of deribit BTC (2026-03-16 14:00 UTC). */
const SNAPSHOT = '2026-03-16T14:30:00Z';
const LIVE_BTC = { spot: 81234.5, flip: 80111.25, regime: 'positive', net_gex: 123456789, p1_strike: 85000, n1_strike: 78000 };

function liveRow(exchange: string, symbol: string, sessionDate: string, asOf: string, levels: LiveRow): LiveRow {
  return { exchange, symbol, session_date: sessionDate, as_of: asOf, expiration: 'TOTAL', captured_at: asOf, is_live: true, market_open: true, ...levels };
}

async function levels(args: string[]): Promise<CliResult> {
  return runCliInProcess(['levels', '--db', db, ...args]);
}

async function levelsJson(args: string[]): Promise<Row[]> {
  const run = await levels(['--json', ...args]);
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as { pairs: Row[] }).pairs;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gexwh-levels-live-'));
  db = join(dir, 'wh.duckdb');
  const wh = await openWarehouse(db);
  try {
    await loadDemoHistory(wh, dir, { from: '2026-03-02', strikes: 8 });
    closes = (
      await wh.connection.runAndReadAll(
        `SELECT session_date::VARCHAR AS session_date, spot, flip FROM levels_close WHERE exchange = 'deribit' AND symbol = 'BTC' ORDER BY session_date DESC`,
      )
    ).getRowObjectsJson() as Row[];
    tiedLiveRows = Number(
      (
        await wh.connection.runAndReadAll(
          `SELECT count(*)::INTEGER AS n FROM live_levels WHERE exchange = 'deribit' AND symbol = 'BTC' AND as_of = TIMESTAMPTZ '2026-03-16T14:00:00Z'`,
        )
      ).getRows()[0]![0],
    );
    await wh.connection.run('CHECKPOINT');
  } finally {
    wh.close();
  }
  const latest = await levels(['--json']);
  const text = await levels(['--symbol', 'BTC']);
  historyOnly = { latest: latest.stdout, text: text.stdout, atSnapshot: [] };
  historyOnly.atSnapshot = await levelsJson(['--at', SNAPSHOT]);
  const live = await openWarehouse(db);
  try {
    await insertLiveRows(live.connection, 'live_levels', [
      liveRow('deribit', 'BTC', '2026-03-16', SNAPSHOT, LIVE_BTC),
      // Older than SPY's history: ignored.
      liveRow('tradfi', 'SPY', '2026-03-13', '2026-03-13T15:00:00Z', { spot: 1, flip: 2, regime: 'positive', net_gex: 3 }),
      // A venue the history does not hold: no pair of its own.
      liveRow('deribit+okx', 'BTC', '2026-03-16', SNAPSHOT, { spot: 5 }),
    ]);
    await live.connection.run('CHECKPOINT');
  } finally {
    live.close();
  }
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('gexwh levels with live snapshots', () => {
  it('a newer snapshot is the line: typed live, its levels, Δs against the closes, no strikes nor expirations', async () => {
    const [btc, spy, ...rest] = await levelsJson([]);
    expect(rest).toEqual([]);
    expect(btc).toMatchObject({
      exchange: 'deribit',
      symbol: 'BTC',
      session_date: '2026-03-16',
      captured_at: SNAPSHOT,
      type: 'live',
      source: 'live_levels',
      spot: LIVE_BTC.spot,
      flip: LIVE_BTC.flip,
      regime: LIVE_BTC.regime,
      net_gex: LIVE_BTC.net_gex,
      api_call_wall: LIVE_BTC.p1_strike,
      api_put_wall: LIVE_BTC.n1_strike,
      nearest_call_wall: null,
      nearest_call_wall_gex: null,
      nearest_put_wall: null,
      nearest_put_wall_gex: null,
      zero_dte_share: null,
    });
    // levels_compare's rule: the close of the latest session on or before 2026-03-15 and 2026-03-09.
    const ref = (day: string) => closes.find((c) => String(c.session_date) <= day)!;
    expect(btc!.ref_session_date_1d).toBe(ref('2026-03-15').session_date);
    expect(btc!.ref_session_date_7d).toBe(ref('2026-03-09').session_date);
    const delta = (now: number, then: unknown) => (then === null ? null : now - Number(then));
    for (const [key, now, value, day] of [
      ['spot_delta_1d', LIVE_BTC.spot, 'spot', '2026-03-15'],
      ['flip_delta_1d', LIVE_BTC.flip, 'flip', '2026-03-15'],
      ['spot_delta_7d', LIVE_BTC.spot, 'spot', '2026-03-09'],
      ['flip_delta_7d', LIVE_BTC.flip, 'flip', '2026-03-09'],
    ] as const) {
      const expected = delta(now, ref(day)[value]);
      if (expected === null) expect(btc![key], key).toBeNull();
      else expect(btc![key], key).toBeCloseTo(expected, 9);
    }
    expect(btc!.spot_delta_1d).not.toBeNull();
    expect(btc!.flip_distance_pct).toBeCloseTo(((LIVE_BTC.flip - LIVE_BTC.spot) / LIVE_BTC.spot) * 100, 4);
    // The same keys as a history line, in the same order.
    expect(Object.keys(btc!)).toEqual(Object.keys(spy!));
    // SPY's snapshot is older than its history: the history's line, unchanged.
    expect(spy).toMatchObject({ source: 'levels', type: 'intraday' });
    expect(spy).toEqual((JSON.parse(historyOnly.latest) as { pairs: Row[] }).pairs[1]);
  });

  it('the text says live, the walls and share it does not hold are -', async () => {
    const run = await levels(['--symbol', 'BTC']);
    expect(run.code, run.stderr).toBe(0);
    const line = run.stdout.trim().split('\n')[2]!;
    expect(line).toMatch(/^deribit BTC +2026-03-16 14:30 UTC live +81,234\.5 /);
    expect(line).not.toMatch(/intraday|close/);
    expect(line).toMatch(/85,000 +78,000 +- +- +-$/);
  });

  it('--at before the snapshot: the history, as it answered before the snapshot was written', async () => {
    const before = await levelsJson(['--at', '2026-03-16T14:29:59Z', '--symbol', 'BTC']);
    expect(before[0]).toMatchObject({ source: 'levels', type: 'intraday', captured_at: '2026-03-16T14:00:00Z' });
    expect((await levelsJson(['--at', SNAPSHOT]))[0]).toMatchObject({ source: 'live_levels', captured_at: SNAPSHOT });
    // Before the SPY snapshot's own moment the history holds an older capture only: still the history's.
    const spyAt = await levelsJson(['--at', '2026-03-13T15:00:00Z', '--symbol', 'SPY']);
    expect(spyAt[0]).toMatchObject({ source: 'levels' });
  });

  it('a snapshot at the same instant as a history capture leaves the history line: typed intraday, source levels', async () => {
    expect(tiedLiveRows).toBe(1);
    expect(historyOnly.text).toMatch(/^pair /);
    expect(historyOnly.text).toContain('intraday');
    const lines = (JSON.parse(historyOnly.latest) as { pairs: Row[] }).pairs;
    expect(lines.map((l) => l.source)).toEqual(['levels', 'levels']);
    expect(historyOnly.atSnapshot.map((l) => l.source)).toEqual(['levels', 'levels']);
  });
});
