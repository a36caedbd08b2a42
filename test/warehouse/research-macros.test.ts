// The research macros of sql/views.sql against hand-written SQL over the tables on a demo-like
// warehouse (completed sessions from files, today's intraday fills): regime_returns(exchange, symbol)
// by lead() over each session's last capture, the ranges from levels itself; flip_crossings by lag()
// over levels' TOTAL rows, and equal to the flip_cross events `gexwh alerts` replays.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertEvent } from '../../src/alerts/rules.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { DEMO_PAIRS, loadDemoHistory } from '../helpers/demo-warehouse.js';

let dir: string;
let db: string;
let wh: Warehouse;

async function rows(conn: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  return (await conn.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
}

/** Numbers rounded to 9 significant digits (the two SQLs sum in different orders). */
const rounded = (list: Record<string, unknown>[]) =>
  list.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'number' ? Number(v.toPrecision(9)) : v])));

/** By hand: each session's last TOTAL capture (no view), completed sessions only, the next one by lead(). */
const HAND_REGIME_RETURNS = (exchange: string, symbol: string) => `
  WITH total AS (
    SELECT * FROM levels WHERE expiration = 'TOTAL' AND exchange = '${exchange}' AND symbol = '${symbol}'),
  last AS (
    SELECT session_date, spot, regime, type FROM total
    QUALIFY row_number() OVER (PARTITION BY session_date ORDER BY timestamp_utc DESC) = 1),
  completed AS (SELECT * FROM last WHERE type IS DISTINCT FROM 'intraday'),
  paired AS (
    SELECT regime, spot, lead(spot) OVER (ORDER BY session_date) AS next_spot, lead(session_date) OVER (ORDER BY session_date) AS next_date
      FROM completed),
  measured AS (
    SELECT p.regime, 100 * (p.next_spot - p.spot) / p.spot AS ret,
           100 * ((SELECT max(spot) FROM total t WHERE t.session_date = p.next_date) - (SELECT min(spot) FROM total t WHERE t.session_date = p.next_date)) / p.spot AS rng
      FROM paired p WHERE p.next_spot IS NOT NULL AND p.regime IS NOT NULL)
  SELECT '${exchange}' AS exchange, '${symbol}' AS symbol, regime, count(*) AS sessions,
         avg(ret) AS mean_next_return_pct, quantile_cont(ret, 0.5) AS median_next_return_pct,
         avg(rng) AS mean_next_range_pct, quantile_cont(rng, 0.5) AS median_next_range_pct
    FROM measured GROUP BY regime ORDER BY regime`;

const HAND_FLIP_CROSSINGS = (exchange: string, symbol: string) => `
  WITH s AS (
    SELECT exchange, symbol, session_date, timestamp_utc, type, spot, flip,
           lag(timestamp_utc) OVER w AS p_ts, lag(spot) OVER w AS p_spot, lag(flip) OVER w AS p_flip
      FROM levels WHERE expiration = 'TOTAL' AND exchange = '${exchange}' AND symbol = '${symbol}'
    WINDOW w AS (ORDER BY timestamp_utc))
  SELECT exchange, symbol, session_date, timestamp_utc, type, IF(spot >= flip, 'up', 'down') AS direction, spot, flip,
         p_ts AS previous_timestamp_utc, p_spot AS previous_spot, p_flip AS previous_flip
    FROM s WHERE spot IS NOT NULL AND flip IS NOT NULL AND p_spot IS NOT NULL AND p_flip IS NOT NULL AND (spot >= flip) != (p_spot >= p_flip)
   ORDER BY timestamp_utc`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gexwh-research-'));
  db = join(dir, 'wh.duckdb');
  wh = await openWarehouse(db);
  await loadDemoHistory(wh, dir, { from: '2026-02-20' });
}, 120_000);

afterAll(() => {
  wh?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(DEMO_PAIRS)('%s %s', (exchange, symbol) => {
  it('regime_returns: per regime at the close, the next completed session return and range (mean, median, count) as hand SQL finds them', async () => {
    const macro = await rows(wh.connection, `SELECT * FROM regime_returns('${exchange}', '${symbol}')`);
    const hand = await rows(wh.connection, HAND_REGIME_RETURNS(exchange, symbol));
    expect(macro.length).toBeGreaterThan(0);
    expect(rounded(macro)).toEqual(rounded(hand));
    // Today's intraday session is neither a close nor a next session: every completed close but the last has a next one.
    const [{ closes }] = (await rows(
      wh.connection,
      `WITH c AS (SELECT * FROM levels_close WHERE exchange = '${exchange}' AND symbol = '${symbol}' AND type = 'close')
       SELECT count(*)::INTEGER AS closes FROM c WHERE regime IS NOT NULL AND session_date < (SELECT max(session_date) FROM c)`,
    )) as [{ closes: number }];
    expect(macro.reduce((n, row) => n + Number(row.sessions), 0)).toBe(closes);
  });

  it('flip_crossings: every capture where spot changed sides of the flip, as hand SQL finds them, and the flip_cross alerts', async () => {
    const macro = await rows(wh.connection, `SELECT * FROM flip_crossings('${exchange}', '${symbol}')`);
    expect(macro.length).toBeGreaterThan(0);
    expect(macro).toEqual(await rows(wh.connection, HAND_FLIP_CROSSINGS(exchange, symbol)));
    const { stdout } = await runCliInProcess(['alerts', '--db', db, '--exchange', exchange, '--symbol', symbol, '--alert-rules', 'flip_cross', '--json']);
    const events = (JSON.parse(stdout) as { events: AlertEvent[] }).events.filter((e) => e.source === 'levels');
    const iso = (value: unknown) => new Date(String(value)).toISOString().replace('.000Z', 'Z');
    expect(events.map((e) => [e.timestamp_utc, e.direction, e.previous_timestamp_utc])).toEqual(
      macro.map((row) => [iso(row.timestamp_utc), row.direction, iso(row.previous_timestamp_utc)]),
    );
  });
});
