// `gexwh alerts` through the CLI (in process) on a demo-like warehouse: the flip crossings and regime
// changes it lists are those hand SQL finds over levels_total, a window replayed whole is its two
// halves replayed, the JSON is the events' own, and bad input is exit 2.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertEvent } from '../../src/alerts/rules.js';
import { openWarehouse } from '../../src/warehouse/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { loadDemoHistory } from '../helpers/demo-warehouse.js';

let dir: string;
let db: string;
/** Hand SQL's flip crossings and regime changes of deribit BTC, sessions 2026-03-05..2026-03-12. */
let handFlips: { ts: string; direction: string }[];
let handRegimes: { ts: string; regime: string; previous: string }[];

const ISO = `'%Y-%m-%dT%H:%M:%SZ'`;
/** Each capture with the one before it (the window's first capture included), by lag over the whole history. */
const STEPS = `
  WITH s AS (
    SELECT session_date, strftime(timestamp_utc, ${ISO}) AS ts, spot, flip, regime,
           lag(spot) OVER w AS p_spot, lag(flip) OVER w AS p_flip, lag(regime) OVER w AS p_regime
      FROM levels WHERE expiration = 'TOTAL' AND exchange = 'deribit' AND symbol = 'BTC'
    WINDOW w AS (ORDER BY timestamp_utc))
  SELECT * FROM s WHERE session_date BETWEEN DATE '2026-03-05' AND DATE '2026-03-12'`;

async function rows<T>(conn: DuckDBConnection, sql: string): Promise<T[]> {
  return (await conn.runAndReadAll(sql)).getRowObjectsJson() as T[];
}

async function replay(...args: string[]): Promise<{ code: number | null; events: AlertEvent[]; stdout: string; stderr: string }> {
  const result = await runCliInProcess(['alerts', '--db', db, ...args]);
  const events = args.includes('--json') && result.code === 0 ? (JSON.parse(result.stdout) as { events: AlertEvent[] }).events : [];
  return { ...result, events };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gexwh-alerts-'));
  db = join(dir, 'wh.duckdb');
  const wh = await openWarehouse(db);
  try {
    await loadDemoHistory(wh, dir, { from: '2026-03-02', strikes: 16 });
    handFlips = await rows(
      wh.connection,
      `SELECT ts, CASE WHEN spot >= flip THEN 'up' ELSE 'down' END AS direction FROM (${STEPS})
        WHERE (spot >= flip) <> (p_spot >= p_flip) ORDER BY ts`,
    );
    handRegimes = await rows(wh.connection, `SELECT ts, regime, p_regime AS previous FROM (${STEPS}) WHERE regime <> p_regime ORDER BY ts`);
  } finally {
    wh.close();
  }
}, 120_000);

/** The nearest walls of one capture by hand: strikes_total against its TOTAL spot, no view. */
const HAND_WALL = (ts: string, side: 'call' | 'put') => `
  WITH s AS (
    SELECT st.strike, st.net_gex, (st.strike - l.spot) / l.spot * 100 AS d
      FROM strikes_total st JOIN levels l
        ON l.exchange = st.exchange AND l.symbol = st.symbol AND l.timestamp_utc = st.timestamp_utc AND l.expiration = 'TOTAL'
     WHERE st.exchange = 'deribit' AND st.symbol = 'BTC' AND st.timestamp_utc = TIMESTAMPTZ '${ts}')
  SELECT ${side === 'call' ? `(SELECT strike FROM s WHERE d > 0 AND d <= 10 AND net_gex > 0 ORDER BY net_gex DESC LIMIT 1)` : `(SELECT strike FROM s WHERE d < 0 AND d >= -10 AND net_gex < 0 ORDER BY net_gex ASC LIMIT 1)`} AS wall`;

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const WINDOW = ['--exchange', 'deribit', '--symbol', 'BTC', '--from', '2026-03-05', '--to', '2026-03-12', '--json'];

describe('gexwh alerts', () => {
  it('lists the flip crossings and regime changes hand SQL finds over levels, each with its direction', async () => {
    const { code, events } = await replay(...WINDOW);
    expect(code).toBe(0);
    expect(handFlips.length).toBeGreaterThan(0);
    expect(events.filter((e) => e.rule === 'flip_cross').map((e) => ({ ts: e.timestamp_utc, direction: e.direction }))).toEqual(handFlips);
    expect(events.filter((e) => e.rule === 'regime_change').map((e) => ({ ts: e.timestamp_utc, regime: e.regime, previous: e.previous_regime }))).toEqual(
      handRegimes,
    );
  });

  it("a wall crossing is measured against the wall of the capture before: the nearest walls as hand SQL finds them, the API's as p1/n1", async () => {
    const { events } = await replay(...WINDOW);
    const nearest = events.filter((e) => e.rule === 'nearest_wall_cross');
    const api = events.filter((e) => e.rule === 'api_wall_cross');
    expect(nearest.length).toBeGreaterThan(0);
    expect(api.length).toBeGreaterThan(0);
    const wh = await openWarehouse(db, { readOnly: true });
    try {
      for (const event of nearest) {
        const side = event.level_name === 'nearest_call_wall' ? 'call' : 'put';
        const [hand] = await rows<{ wall: number }>(wh.connection, HAND_WALL(event.previous_timestamp_utc, side));
        expect({ at: event.timestamp_utc, level: event.level }).toEqual({ at: event.timestamp_utc, level: hand!.wall });
        expect(event.range_pct).toBe(10);
        // Spot went from one side of that wall to the other.
        expect(Math.sign(event.spot! - event.level!) === Math.sign(event.previous_spot! - event.level!)).toBe(false);
      }
      for (const event of api) {
        const [hand] = await rows<{ wall: number }>(
          wh.connection,
          `SELECT ${event.level_name === 'api_call_wall' ? 'p1_strike' : 'n1_strike'} AS wall FROM levels_total
            WHERE exchange = 'deribit' AND symbol = 'BTC' AND timestamp_utc = TIMESTAMPTZ '${event.previous_timestamp_utc}'`,
        );
        expect(event.level).toBe(hand!.wall);
      }
    } finally {
      wh.close();
    }
  });

  it("a window replayed whole lists what its two halves list, end to end (the second half measured from the first's last capture)", async () => {
    const whole = await replay(...WINDOW);
    const first = await replay('--from', '2026-03-05', '--to', '2026-03-08', '--exchange', 'deribit', '--symbol', 'BTC', '--json');
    const second = await replay('--from', '2026-03-09', '--to', '2026-03-12', '--exchange', 'deribit', '--symbol', 'BTC', '--json');
    expect(first.events.length).toBeGreaterThan(0);
    expect(second.events.length).toBeGreaterThan(0);
    expect([...first.events, ...second.events]).toEqual(whole.events);
  });

  it('--alert-rules keeps only those rules; every pair is replayed without --exchange/--symbol', async () => {
    const { code, stdout } = await runCliInProcess([
      'alerts',
      '--db',
      db,
      '--from',
      '2026-03-02',
      '--to',
      '2026-03-15',
      '--alert-rules',
      'flip_cross',
      '--json',
    ]);
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as { from: string; to: string; rules: string[]; events: AlertEvent[] };
    expect(result).toMatchObject({ from: '2026-03-02', to: '2026-03-15', rules: ['flip_cross'] });
    expect(new Set(result.events.map((e) => e.rule))).toEqual(new Set(['flip_cross']));
    expect(new Set(result.events.map((e) => `${e.exchange} ${e.symbol}`))).toEqual(new Set(['deribit BTC', 'tradfi SPY']));
  });

  it('the text lists one line per event as a trader reads it', async () => {
    const { code, stdout } = await runCliInProcess([
      'alerts',
      '--db',
      db,
      '--from',
      '2026-03-10',
      '--to',
      '2026-03-10',
      '--symbol',
      'SPY',
      '--alert-rules',
      'regime_change,flip_cross',
    ]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^\d+ alert\(s\) would have fired from 2026-03-10 to 2026-03-10 \(rules: regime_change, flip_cross\):/);
    expect(stdout).toMatch(/tradfi SPY 2026-03-10 \d\d:\d\d UTC \((intraday|close)\): spot [\d,.]+ crossed (above|below) the gamma flip/);
  });

  it.each([
    [['--from', '2026-02-30'], /--from: "2026-02-30" is not a real date YYYY-MM-DD/],
    [['--from', '2026-03-10', '--to', '2026-03-09'], /--from 2026-03-10 is after --to 2026-03-09/],
    [['--alert-rules', 'walls'], /unknown rule walls; allowed: regime_change, flip_cross, api_wall_cross, nearest_wall_cross, or all/],
    [['--symbol', 'BTX'], /BTX/],
  ])('bad input %j is exit 2 naming what is allowed', async (args, message) => {
    const { code, stderr } = await runCliInProcess(['alerts', '--db', db, ...args]);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });

  it('a --db that does not exist is exit 2 and creates nothing', async () => {
    const missing = join(dir, 'missing.duckdb');
    const { code, stderr } = await runCliInProcess(['alerts', '--db', missing]);
    expect(code).toBe(2);
    expect(stderr).toContain('no warehouse at');
    expect(existsSync(missing)).toBe(false);
  });
});
