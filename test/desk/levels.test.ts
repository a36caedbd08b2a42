// gexwh levels through the CLI (in process) on a demo-like warehouse: every number equals what the
// views and hand SQL over the tables answer, --at is point in time (no look-ahead), the walls' two
// definitions are named apart, missing columns answer NULL, bad input is exit 2.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roundDelta } from '../../src/desk/levels.js';
import { openWarehouse } from '../../src/warehouse/index.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import { runCliInProcess } from '../helpers/cli.js';
import { loadDemoHistory } from '../helpers/demo-warehouse.js';

let dir: string;
let db: string;

interface Row {
  [key: string]: unknown;
}

async function rows(conn: DuckDBConnection, sql: string): Promise<Row[]> {
  return (await conn.runAndReadAll(sql)).getRowObjectsJson() as Row[];
}

/** The nearest walls by hand: strikes_total joined to its capture's TOTAL spot, no view. */
const HAND_WALLS = (exchange: string, symbol: string, ts: string, range: number) => `
  WITH s AS (
    SELECT st.strike, st.net_gex, (st.strike - l.spot) / l.spot * 100 AS d
      FROM strikes_total st JOIN levels l
        ON l.exchange = st.exchange AND l.symbol = st.symbol AND l.timestamp_utc = st.timestamp_utc AND l.expiration = 'TOTAL'
     WHERE st.exchange = '${exchange}' AND st.symbol = '${symbol}' AND st.timestamp_utc = TIMESTAMPTZ '${ts}')
  SELECT (SELECT strike FROM s WHERE d > 0 AND d <= ${range} AND net_gex > 0 ORDER BY net_gex DESC LIMIT 1) AS call_wall,
         (SELECT strike FROM s WHERE d < 0 AND d >= -${range} AND net_gex < 0 ORDER BY net_gex ASC LIMIT 1) AS put_wall`;

/** The 0DTE share by hand: levels rows of that capture other than TOTAL. */
const HAND_ZERO_DTE = (exchange: string, symbol: string, ts: string) => `
  SELECT sum(CASE WHEN dte < 1 THEN abs_gex ELSE 0 END) / sum(abs_gex) AS share
    FROM levels WHERE exchange = '${exchange}' AND symbol = '${symbol}' AND timestamp_utc = TIMESTAMPTZ '${ts}' AND expiration <> 'TOTAL'`;

let compare: Row[];
const hand = new Map<string, Row>();
const AT = '2026-03-12T12:07:00Z';
let atCapture: Row;
let atRefs: Row[];
/** The close of 2026-03-15 (the last capture with strikes): its nearest walls within 5% by hand, and its p1. */
let closeWalls5: Row;
let closeP1: unknown;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gexwh-levels-'));
  db = join(dir, 'wh.duckdb');
  const wh = await openWarehouse(db);
  try {
    await loadDemoHistory(wh, dir, { from: '2026-03-02', strikes: 16 });
    compare = await rows(wh.connection, `SELECT *, strftime(timestamp_utc, '%Y-%m-%dT%H:%M:%SZ') AS ts FROM levels_compare ORDER BY exchange, symbol`);
    for (const c of compare) {
      const key = `${String(c.exchange)} ${String(c.symbol)}`;
      const walls = (await rows(wh.connection, HAND_WALLS(String(c.exchange), String(c.symbol), String(c.ts), 10)))[0]!;
      const walls5 = (await rows(wh.connection, HAND_WALLS(String(c.exchange), String(c.symbol), String(c.ts), 5)))[0]!;
      const zero = (await rows(wh.connection, HAND_ZERO_DTE(String(c.exchange), String(c.symbol), String(c.ts))))[0]!;
      hand.set(key, { ...walls, call_wall_5: walls5.call_wall, put_wall_5: walls5.put_wall, zero: zero.share });
    }
    // --at by hand: the last deribit BTC capture at or before AT, and the closes of the sessions 1 and 7 days before its own.
    atCapture = (
      await rows(
        wh.connection,
        `SELECT strftime(timestamp_utc, '%Y-%m-%dT%H:%M:%SZ') AS ts, session_date::VARCHAR AS session_date, spot, flip, type FROM levels
          WHERE exchange = 'deribit' AND symbol = 'BTC' AND expiration = 'TOTAL' AND timestamp_utc <= TIMESTAMPTZ '${AT}'
          ORDER BY timestamp_utc DESC LIMIT 1`,
      )
    )[0]!;
    atRefs = await rows(
      wh.connection,
      `SELECT n, (SELECT spot FROM levels l WHERE exchange = 'deribit' AND symbol = 'BTC' AND expiration = 'TOTAL'
                      AND session_date <= DATE '${String(atCapture.session_date)}' - n
                    ORDER BY timestamp_utc DESC LIMIT 1) AS spot
         FROM (VALUES (1), (7)) v(n) ORDER BY n`,
    );
    closeWalls5 = (await rows(wh.connection, HAND_WALLS('deribit', 'BTC', '2026-03-15T23:45:00Z', 5)))[0]!;
    closeP1 = (
      await rows(
        wh.connection,
        `SELECT p1_strike FROM levels WHERE symbol = 'BTC' AND expiration = 'TOTAL' AND timestamp_utc = TIMESTAMPTZ '2026-03-15T23:45:00Z'`,
      )
    )[0]!.p1_strike;
    await wh.connection.run('CHECKPOINT');
  } finally {
    wh.close();
  }
}, 180_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function levelsJson(args: string[], dbPath = db): Promise<{ at: string | null; range_pct: number; pairs: Row[] }> {
  const run = await runCliInProcess(['levels', '--db', dbPath, '--json', ...args]);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as { at: string | null; range_pct: number; pairs: Row[] };
}

describe('gexwh levels', () => {
  it('one line per pair; every number is levels_compare and strikes_total by hand', async () => {
    const result = await levelsJson([]);
    expect(result.pairs.map((p) => `${String(p.exchange)} ${String(p.symbol)}`)).toEqual(['deribit BTC', 'tradfi SPY']);
    for (const [i, line] of result.pairs.entries()) {
      const c = compare[i]!;
      const h = hand.get(`${String(c.exchange)} ${String(c.symbol)}`)!;
      expect(line).toMatchObject({
        captured_at: c.ts,
        session_date: c.session_date,
        type: c.type,
        spot: c.spot,
        flip: c.flip,
        regime: c.regime,
        net_gex: c.net_gex,
        api_call_wall: c.p1_strike,
        api_put_wall: c.n1_strike,
        ref_session_date_1d: c.ref_session_date_1d,
        ref_session_date_7d: c.ref_session_date_7d,
        nearest_call_wall: h.call_wall,
        nearest_put_wall: h.put_wall,
        range_pct: 10,
      });
      for (const key of ['spot_delta_1d', 'flip_delta_1d', 'spot_delta_7d', 'flip_delta_7d']) expect(line[key]).toBeCloseTo(Number(c[key]), 9);
      expect(line.flip_distance_pct).toBeCloseTo(((Number(c.flip) - Number(c.spot)) / Number(c.spot)) * 100, 4);
      expect(line.zero_dte_share).toBeCloseTo(Number(h.zero), 6);
      // Today's capture of the demo is an api fill in the middle of the session, and says so.
      expect(line.type).toBe('intraday');
    }
  });

  it('the deltas carry the decimals of their inputs, no float noise; the percentages are rounded', async () => {
    const decimals = (value: unknown) => (String(value).split('.')[1] ?? '').length;
    const wh = await openWarehouse(db);
    let closes: Row[];
    try {
      closes = await rows(wh.connection, `SELECT exchange, symbol, session_date::VARCHAR AS session_date, spot, flip FROM levels_close`);
    } finally {
      wh.close();
    }
    const close = (line: Row, days: string) =>
      closes.find((r) => r.exchange === line.exchange && r.symbol === line.symbol && r.session_date === line[`ref_session_date_${days}`])!;
    let noisy = 0;
    for (const at of ['2026-03-05T20:00:00Z', '2026-03-10T16:07:00Z', '2026-03-12T12:07:00Z', '2026-03-13T21:00:00Z', '']) {
      for (const line of (await levelsJson(at === '' ? [] : ['--at', at])).pairs) {
        for (const [value, days] of [
          ['spot', '1d'],
          ['flip', '1d'],
          ['spot', '7d'],
          ['flip', '7d'],
        ] as const) {
          const ref = close(line, days);
          if (ref === undefined || ref[value] === null || line[value] === null) continue;
          const [now, then] = [Number(line[value]), Number(ref[value])];
          const places = Math.max(decimals(now), decimals(then));
          if (decimals(now - then) > places) noisy += 1;
          expect(line[`${value}_delta_${days}`], `${String(line.symbol)} ${value} Δ${days} at ${at}`).toBe(Number((now - then).toFixed(places)));
        }
        expect(decimals(line.flip_distance_pct)).toBeLessThanOrEqual(4);
        expect(decimals(line.zero_dte_share)).toBeLessThanOrEqual(6);
      }
    }
    // The demo's prices do make float noise when subtracted: the check above is not vacuous.
    expect(noisy).toBeGreaterThan(0);
  });

  it('--range moves the nearest walls (only them), as the hand SQL does', async () => {
    const result = await levelsJson(['--range', '5%', '--symbol', 'btc']);
    expect(result.pairs).toHaveLength(1);
    const h = hand.get('deribit BTC')!;
    expect(result.pairs[0]).toMatchObject({
      nearest_call_wall: h.call_wall_5,
      nearest_put_wall: h.put_wall_5,
      range_pct: 5,
      api_call_wall: compare[0]!.p1_strike,
    });
  });

  it('--at: the last capture at or before it, the references from the sessions before it, never later rows', async () => {
    const result = await levelsJson(['--at', AT, '--exchange', 'deribit']);
    const line = result.pairs[0]!;
    expect(line).toMatchObject({ captured_at: atCapture.ts, session_date: atCapture.session_date, spot: atCapture.spot, flip: atCapture.flip });
    expect(line.spot_delta_1d).toBeCloseTo(Number(atCapture.spot) - Number(atRefs[0]!.spot), 9);
    expect(line.spot_delta_7d).toBeCloseTo(Number(atCapture.spot) - Number(atRefs[1]!.spot), 9);
    // One second before that capture: the one before it (no look-ahead), 15 minutes earlier.
    const before = new Date(Date.parse(String(atCapture.ts)) - 1000).toISOString();
    const earlier = (await levelsJson(['--at', before, '--exchange', 'deribit'])).pairs[0]!;
    expect(Date.parse(String(earlier.captured_at))).toBe(Date.parse(String(atCapture.ts)) - 15 * 60_000);
    // Before any capture: no line.
    expect((await levelsJson(['--at', '2020-01-01T00:00:00Z'])).pairs).toEqual([]);
  });

  it('the text names the two walls apart and says intraday', async () => {
    const run = await runCliInProcess(['levels', '--db', db, '--range', '7']);
    expect(run.code, run.stderr).toBe(0);
    const [header, , ...lines] = run.stdout.trim().split('\n');
    expect(header).toContain('API call wall (p1)');
    expect(header).toContain('nearest call wall (±7%)');
    expect(header).toContain('nearest put wall (±7%)');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^deribit BTC +2026-03-16 14:00 UTC intraday /);
  });

  it('--at before every capture says so, the moment written as every other time gexwh prints', async () => {
    const run = await runCliInProcess(['levels', '--db', db, '--at', '2020-01-01T00:00:00Z']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe('no capture at or before 2020-01-01 00:00:00Z of the pairs asked');
  });

  it('--tz writes the capture time in the zone; the JSON keeps UTC', async () => {
    const run = await runCliInProcess(['levels', '--db', db, '--symbol', 'SPY', '--tz', 'America/New_York']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/tradfi SPY +2026-03-16 10:00 EDT intraday /);
    const json = await levelsJson(['--symbol', 'SPY', '--tz', 'America/New_York']);
    expect(json.pairs[0]!.captured_at).toBe('2026-03-16T14:00:00Z');
    expect(json).toMatchObject({ time_zone: 'America/New_York' });
  });

  it('a warehouse without the optional columns (NULLs) answers NULLs, never an error', async () => {
    const bare = join(dir, 'bare.duckdb');
    copyFileSync(db, bare);
    const wh = await openWarehouse(bare);
    try {
      await wh.connection.run(`UPDATE levels SET flip = NULL, regime = NULL, p1_strike = NULL, n1_strike = NULL, dte = NULL, net_gex = NULL, abs_gex = NULL`);
      await wh.connection.run(`UPDATE strikes_total SET net_gex = NULL`);
      await wh.connection.run('CHECKPOINT');
    } finally {
      wh.close();
    }
    const line = (await levelsJson(['--symbol', 'BTC'], bare)).pairs[0]!;
    expect(line).toMatchObject({ flip: null, flip_distance_pct: null, regime: null, api_call_wall: null, nearest_call_wall: null, zero_dte_share: null });
    expect(typeof line.spot).toBe('number');
  });

  it('bad input is exit 2 naming what was wrong', async () => {
    const badAt = await runCliInProcess(['levels', '--db', db, '--at', '2026-03-12 12:00']);
    expect(badAt.code).toBe(2);
    expect(badAt.stderr).toContain('--at');
    const unknown = await runCliInProcess(['levels', '--db', db, '--symbol', 'BTX']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('BTC');
    const range = await runCliInProcess(['levels', '--db', db, '--range', '0']);
    expect(range.code).toBe(2);
    const missing = await runCliInProcess(['levels', '--db', join(dir, 'none.duckdb')]);
    expect(missing.code).toBe(2);
  });
});

describe('roundDelta', () => {
  it('keeps every digit the inputs carry, at any price scale, and drops the float noise', () => {
    expect(roundDelta(80862.27 - 81303.67, 80862.27)).toBe(-441.4);
    expect(roundDelta(0.1234 - 0.1201, 0.1234)).toBe(0.0033);
    expect(roundDelta(0.00012345 - 0.00012344, 0.00012345)).toBe(0.00000001);
    expect(roundDelta(6789.125 - 6701.0625, 6789.125)).toBe(88.0625);
    expect(roundDelta(0, 0)).toBe(0);
    expect(roundDelta(null, 1)).toBeNull();
    expect(roundDelta(1, null)).toBe(1);
  });
});

describe('gexwh chart on the same warehouse: intraday marked, --closes-only, the nearest walls', () => {
  it("levels and netgex name today's capture intraday, never a close; --closes-only leaves it out", async () => {
    for (const kind of ['levels', 'netgex', 'walls']) {
      const out = join(dir, `${kind}.svg`);
      const run = await runCliInProcess(['chart', kind, '--db', db, '--exchange', 'deribit', '--symbol', 'BTC', '--out', out, '--json']);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout).shows).toBe('15 sessions');
      const svg = readFileSync(out, 'utf8');
      expect(svg, kind).toContain('intraday 14:00 UTC');
      if (kind === 'netgex') {
        expect(svg).toContain('latest close 2026-03-15: net GEX');
        expect(svg).toContain('intraday 2026-03-16 14:00 UTC: net GEX');
      }
      const closesOnly = await runCliInProcess([
        'chart',
        kind,
        '--db',
        db,
        '--exchange',
        'deribit',
        '--symbol',
        'BTC',
        '--out',
        out,
        '--json',
        '--closes-only',
      ]);
      expect(closesOnly.code, closesOnly.stderr).toBe(0);
      expect(JSON.parse(closesOnly.stdout).shows).toBe('14 sessions');
      const closes = readFileSync(out, 'utf8');
      expect(closes, kind).not.toContain('intraday');
      expect(closes).not.toContain('2026-03-16');
    }
  });

  it('the profile draws the nearest walls of its capture, as nearest_walls answers them, beside the API walls', async () => {
    const out = join(dir, 'profile.svg');
    // The last capture with strikes: the close of 2026-03-15 (today's fills hold TOTAL levels only).
    const run = await runCliInProcess(['chart', 'profile', '--db', db, '--exchange', 'deribit', '--symbol', 'BTC', '--out', out, '--range', '5']);
    expect(run.code, run.stderr).toBe(0);
    const svg = readFileSync(out, 'utf8');
    expect(svg).toContain('API call wall (p1)');
    const strike = (v: unknown) => Number(v).toLocaleString('en-US');
    expect(svg).toContain(`nearest call wall (±5%) ${strike(closeWalls5.call_wall)}`);
    expect(svg).toContain(`nearest put wall (±5%) ${strike(closeWalls5.put_wall)}`);
    expect(svg).toContain(`API call wall (p1) ${strike(closeP1)}`);
  });
});
