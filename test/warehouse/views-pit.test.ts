// Point-in-time macros, file-over-api preference, the daily series and levels_compare against
// known numbers (sql/003_point_in_time.sql on top of 002). Data is built with INSERTs so every
// expected value is visible in the test.
import { describe, expect, it } from 'vitest';
import { insertApiLevels, type HistoryLevelsRow } from '../../src/warehouse/levels-api.js';
import type { Warehouse } from '../../src/warehouse/open.js';
import { query, withWarehouse } from './fixtures.js';
import { seededRandom } from '../helpers/random.js';
import { rebuildSessionCloses } from '../../src/warehouse/session-closes.js';

interface Capture {
  exchange: string;
  symbol: string;
  session: string;
  ts: string;
  spot: number | null;
  source?: 'file' | 'api';
  type?: 'intraday' | 'close';
}

async function addCapture(wh: Warehouse, c: Capture): Promise<void> {
  await wh.connection.run(
    `INSERT INTO levels (exchange, symbol, session_date, timestamp_utc, type, oi_date, expiration, spot, flip, net_gex,
                         abs_gex, p1_strike, n1_strike, s_price, v_price, source)
     VALUES ($1, $2, $3::DATE, $4::TIMESTAMPTZ, $5, $3::DATE, 'TOTAL', $6, $6 - 10, $6 * 2, $6 * 3, $6 + 5, $6 - 5, $6 + 1, $6 - 1, $7)`,
    [c.exchange, c.symbol, c.session, c.ts, c.type ?? 'intraday', c.spot, c.source ?? 'file'],
  );
  await rebuildSessionCloses(wh.connection); // as every writer of levels keeps the close marker
}

const crypto = (session: string, ts: string, spot: number | null, extra: Partial<Capture> = {}): Capture => ({
  exchange: 'bybit',
  symbol: 'BTC',
  session,
  ts,
  spot,
  ...extra,
});
const spy = (session: string, ts: string, spot: number | null, extra: Partial<Capture> = {}): Capture => ({
  exchange: 'tradfi',
  symbol: 'SPY',
  session,
  ts,
  spot,
  ...extra,
});

describe('levels_total and levels_close', () => {
  it('a session with a levels file shows no api rows; a session without one keeps them', async () => {
    await withWarehouse(async (wh) => {
      await addCapture(wh, crypto('2026-11-20', '2026-11-20T23:45:00Z', 100, { type: 'close' }));
      // Through the fill's writer, which keeps file-backed sessions free of api rows (sql/005).
      const fill = (ts: string, spot: number): HistoryLevelsRow => ({
        schema_version: 1,
        timestamp_utc: ts,
        session_date: ts.slice(0, 10),
        type: 'intraday',
        oi_date: null,
        spot,
      });
      const inserted = await insertApiLevels(wh.connection, 'bybit', 'BTC', [
        fill('2026-11-20T23:50:00Z', 999), // late fill of a file session
        fill('2026-11-21T00:00:00Z', 110),
        fill('2026-11-21T00:15:00Z', 111),
      ]);
      expect(inserted).toBe(2);
      expect(await query(wh, `SELECT timestamp_utc::VARCHAR AS t, spot, source FROM levels_total ORDER BY t`)).toEqual([
        { t: '2026-11-20 23:45:00+00', spot: 100, source: 'file' },
        { t: '2026-11-21 00:00:00+00', spot: 110, source: 'api' },
        { t: '2026-11-21 00:15:00+00', spot: 111, source: 'api' },
      ]);
      expect(await query(wh, `SELECT session_date::VARCHAR AS d, spot, type FROM levels_close ORDER BY d`)).toEqual([
        { d: '2026-11-20', spot: 100, type: 'close' },
        { d: '2026-11-21', spot: 111, type: 'intraday' },
      ]);
    });
  });

  it('levels_close takes the session date, not the UTC date, for TradFi', async () => {
    await withWarehouse(async (wh) => {
      // 20:45 and 21:00 UTC on a November weekday are 15:45 and 16:00 in New York: same session.
      await addCapture(wh, spy('2026-11-20', '2026-11-20T20:45:00Z', 600));
      await addCapture(wh, spy('2026-11-20', '2026-11-20T21:00:00Z', 601, { type: 'close' }));
      await addCapture(wh, spy('2026-11-23', '2026-11-23T14:30:00Z', 603));
      expect(await query(wh, `SELECT session_date::VARCHAR AS d, spot, type FROM levels_close ORDER BY d`)).toEqual([
        { d: '2026-11-20', spot: 601, type: 'close' },
        { d: '2026-11-23', spot: 603, type: 'intraday' },
      ]);
    });
  });
});

describe('as-of macros', () => {
  it('levels_asof: at or before ts, across a crypto session boundary, with max_staleness', async () => {
    await withWarehouse(async (wh) => {
      await addCapture(wh, crypto('2026-11-20', '2026-11-20T23:45:00Z', 100));
      await addCapture(wh, crypto('2026-11-21', '2026-11-21T00:00:00Z', null)); // NULL values still count
      const asof = async (ts: string, staleness?: string) => {
        const sql = staleness
          ? `SELECT session_date::VARCHAR AS d, timestamp_utc::VARCHAR AS t, spot FROM levels_asof('bybit', 'BTC', $1, max_staleness := CAST($2 AS INTERVAL))`
          : `SELECT session_date::VARCHAR AS d, timestamp_utc::VARCHAR AS t, spot FROM levels_asof('bybit', 'BTC', $1)`;
        return query(wh, sql, staleness ? [ts, staleness] : [ts]);
      };
      expect(await asof('2026-11-20T23:59:59Z')).toEqual([{ d: '2026-11-20', t: '2026-11-20 23:45:00+00', spot: 100 }]);
      expect(await asof('2026-11-21T00:00:00Z')).toEqual([{ d: '2026-11-21', t: '2026-11-21 00:00:00+00', spot: null }]);
      expect(await asof('2026-11-20T23:44:59Z')).toEqual([]);
      expect(await asof('2026-11-21T00:10:00Z', '10 minutes')).toEqual([{ d: '2026-11-21', t: '2026-11-21 00:00:00+00', spot: null }]);
      expect(await asof('2026-11-21T00:10:01Z', '10 minutes')).toEqual([]);
    });
  });

  it('strikes_asof honours max_staleness', async () => {
    await withWarehouse(async (wh) => {
      await addCapture(wh, spy('2026-11-20', '2026-11-20T21:00:00Z', 600));
      await wh.connection.run(
        `INSERT INTO strikes_total (exchange, symbol, session_date, timestamp_utc, strike, net_gex)
         VALUES ('tradfi', 'SPY', DATE '2026-11-20', TIMESTAMPTZ '2026-11-20T21:00:00Z', 630, 1),
                ('tradfi', 'SPY', DATE '2026-11-20', TIMESTAMPTZ '2026-11-20T21:00:00Z', 570, 2)`,
      );
      const monday = '2026-11-23T14:30:00Z';
      expect(await query(wh, `SELECT strike, spot, distance_pct FROM strikes_asof('tradfi', 'SPY', $1)`, [monday])).toEqual([
        { strike: 570, spot: 600, distance_pct: -5 },
        { strike: 630, spot: 600, distance_pct: 5 },
      ]);
      expect(await query(wh, `SELECT strike FROM strikes_asof('tradfi', 'SPY', $1, max_staleness := INTERVAL 1 DAY)`, [monday])).toEqual([]);
      expect(await query(wh, `SELECT count(*)::INTEGER AS n FROM strikes_asof('tradfi', 'SPY', $1, max_staleness := INTERVAL 3 DAY)`, [monday])).toEqual([
        { n: 2 },
      ]);
    });
  });
});

describe('pit_levels', () => {
  it('keeps every user row: NULL ts, NULL or unknown market, none before, NULL levels values; weekend events get Friday', async () => {
    await withWarehouse(async (wh) => {
      await addCapture(wh, spy('2026-11-20', '2026-11-20T20:45:00Z', 600));
      await addCapture(wh, spy('2026-11-20', '2026-11-20T21:00:00Z', null, { type: 'close' }));
      await addCapture(wh, spy('2026-11-23', '2026-11-23T14:30:00Z', 610));
      await wh.connection.run(`CREATE TABLE events (id INTEGER, exchange VARCHAR, symbol VARCHAR, ts TIMESTAMPTZ)`);
      await wh.connection.run(`INSERT INTO events VALUES
        (1, 'tradfi', 'SPY', '2026-11-21T12:00:00Z'),   -- Saturday
        (2, 'tradfi', 'SPY', NULL),
        (3, NULL, 'SPY', '2026-11-21T12:00:00Z'),
        (4, 'tradfi', 'QQQ', '2026-11-21T12:00:00Z'),
        (5, 'tradfi', 'SPY', '2026-11-20T20:59:59Z'),
        (6, 'tradfi', 'SPY', '2026-11-01T00:00:00Z'),
        (6, 'tradfi', 'SPY', '2026-11-01T00:00:00Z')     -- duplicate rows stay duplicate`);
      const rows = await query(wh, `SELECT id, timestamp_utc::VARCHAR AS t, spot, type, session_date::VARCHAR AS d FROM pit_levels('events') ORDER BY id`);
      const none = { t: null, spot: null, type: null, d: null };
      expect(rows).toEqual([
        { id: 1, t: '2026-11-20 21:00:00+00', spot: null, type: 'close', d: '2026-11-20' },
        { id: 2, ...none },
        { id: 3, ...none },
        { id: 4, ...none },
        { id: 5, t: '2026-11-20 20:45:00+00', spot: 600, type: 'intraday', d: '2026-11-20' },
        { id: 6, ...none },
        { id: 6, ...none },
      ]);
    });
  });

  it('max_staleness turns too-old matches into NULLs and keeps fresh ones', async () => {
    await withWarehouse(async (wh) => {
      await addCapture(wh, crypto('2026-11-20', '2026-11-20T10:00:00Z', 100));
      await wh.connection.run(`CREATE TABLE fills (id INTEGER, exchange VARCHAR, symbol VARCHAR, ts TIMESTAMPTZ)`);
      await wh.connection.run(`INSERT INTO fills VALUES (1, 'bybit', 'BTC', '2026-11-20T10:15:00Z'), (2, 'bybit', 'BTC', '2026-11-20T10:15:01Z'),
                                                       (3, 'bybit', 'BTC', '2026-11-20T10:00:00Z')`);
      const rows = await query(wh, `SELECT id, timestamp_utc::VARCHAR AS t, spot FROM pit_levels('fills', max_staleness := INTERVAL 15 MINUTE) ORDER BY id`);
      expect(rows).toEqual([
        { id: 1, t: '2026-11-20 10:00:00+00', spot: 100 },
        { id: 2, t: null, spot: null },
        { id: 3, t: '2026-11-20 10:00:00+00', spot: 100 },
      ]);
    });
  });

  it('property: for hundreds of random events it returns the latest capture at or before, never after', async () => {
    await withWarehouse(async (wh) => {
      // Crypto every 15 minutes around the clock, TradFi in New York hours on weekdays; some slots
      // missing and some spots NULL (deterministic, by hash), so gaps and NULL values are exercised.
      await wh.connection.run(`
        INSERT INTO levels (exchange, symbol, session_date, timestamp_utc, type, expiration, spot, source)
        SELECT 'bybit', 'BTC', CAST(ts AS DATE), ts, 'intraday', 'TOTAL',
               CASE WHEN hash(ts, 'spot') % 5 = 0 THEN NULL ELSE epoch(ts) END, 'file'
          FROM generate_series(TIMESTAMPTZ '2026-11-19 00:00:00+00', TIMESTAMPTZ '2026-11-23 23:45:00+00', INTERVAL 15 MINUTE) g(ts)
         WHERE hash(ts) % 7 <> 0`);
      await wh.connection.run(`
        INSERT INTO levels (exchange, symbol, session_date, timestamp_utc, type, expiration, spot, source)
        SELECT 'tradfi', 'SPY', CAST(timezone('America/New_York', ts) AS DATE), ts, 'intraday', 'TOTAL',
               CASE WHEN hash(ts, 'spot') % 5 = 0 THEN NULL ELSE epoch(ts) END, 'file'
          FROM generate_series(TIMESTAMPTZ '2026-11-19 14:30:00+00', TIMESTAMPTZ '2026-11-23 21:00:00+00', INTERVAL 15 MINUTE) g(ts)
         WHERE isodow(timezone('America/New_York', ts)) <= 5
           AND CAST(timezone('America/New_York', ts) AS TIME) BETWEEN TIME '09:30' AND TIME '16:00'`);
      const captures = await query(wh, `SELECT exchange, symbol, epoch_ms(timestamp_utc)::BIGINT AS ms, spot FROM levels ORDER BY ms`);
      const byMarket = new Map<string, Array<{ ms: number; spot: unknown }>>();
      for (const c of captures) {
        const key = `${String(c.exchange)}|${String(c.symbol)}`;
        byMarket.set(key, [...(byMarket.get(key) ?? []), { ms: Number(c.ms), spot: c.spot }]);
      }

      const random = seededRandom(20261122);
      const start = Date.parse('2026-11-18T12:00:00Z');
      const span = Date.parse('2026-11-24T12:00:00Z') - start;
      const markets = [
        ['bybit', 'BTC'],
        ['tradfi', 'SPY'],
        ['okx', 'ETH'],
      ] as const;
      const events = Array.from({ length: 600 }, (_, id) => {
        const [exchange, symbol] = markets[Math.floor(random() * markets.length)] ?? markets[0];
        // Half the events land exactly on a capture slot or one millisecond either side of it.
        const slot = Math.floor((start + random() * span) / 900_000) * 900_000;
        const ms = random() < 0.5 ? slot + [-1, 0, 1][Math.floor(random() * 3)]! : start + Math.floor(random() * span);
        return { id, exchange, symbol, ms };
      });
      await wh.connection.run(`CREATE TABLE events (id INTEGER, exchange VARCHAR, symbol VARCHAR, ts TIMESTAMPTZ)`);
      const appender = await wh.connection.createAppender('events');
      for (const e of events) {
        appender.appendInteger(e.id);
        appender.appendVarchar(e.exchange);
        appender.appendVarchar(e.symbol);
        appender.appendVarchar(new Date(e.ms).toISOString());
        appender.endRow();
      }
      appender.closeSync();

      const rows = await query(wh, `SELECT id, epoch_ms(ts)::BIGINT AS ev, epoch_ms(timestamp_utc)::BIGINT AS got, spot FROM pit_levels('events') ORDER BY id`);
      expect(rows).toHaveLength(events.length);
      let matched = 0;
      for (const [i, row] of rows.entries()) {
        const event = events[i]!;
        expect(row.id).toBe(event.id);
        const list = byMarket.get(`${event.exchange}|${event.symbol}`) ?? [];
        const expected = latestAtOrBefore(list, event.ms);
        if (row.got !== null) {
          expect(Number(row.got)).toBeLessThanOrEqual(event.ms);
          matched += 1;
        }
        expect(row.got === null ? null : Number(row.got)).toBe(expected?.ms ?? null);
        expect(row.spot).toEqual(expected?.spot ?? null);
      }
      expect(matched).toBeGreaterThan(300);
    });
  });
});

describe('levels_compare', () => {
  it('crypto: 1d is the previous UTC day’s close, weekends included; 7d and 30d fall back to older sessions or NULL', async () => {
    await withWarehouse(async (wh) => {
      await addCapture(wh, crypto('2026-11-15', '2026-11-15T23:45:00Z', 50, { type: 'close' })); // Sunday
      await addCapture(wh, crypto('2026-11-21', '2026-11-21T23:30:00Z', 90)); // Saturday
      await addCapture(wh, crypto('2026-11-21', '2026-11-21T23:45:00Z', 95, { type: 'close' }));
      await addCapture(wh, crypto('2026-11-22', '2026-11-22T10:00:00Z', 100, { source: 'api' })); // Sunday, today
      const [row] = await query(
        wh,
        `SELECT spot, ref_session_date_1d::VARCHAR AS r1, ref_timestamp_utc_1d::VARCHAR AS t1, ref_type_1d AS ty1,
          spot_delta_1d, flip_delta_1d, net_gex_delta_1d, abs_gex_delta_1d, p1_strike_delta_1d, n1_strike_delta_1d, s_price_delta_1d, v_price_delta_1d,
          ref_session_date_7d::VARCHAR AS r7, spot_delta_7d, ref_session_date_30d AS r30, spot_delta_30d
          FROM levels_compare WHERE exchange = 'bybit' AND symbol = 'BTC'`,
      );
      expect(row).toEqual({
        spot: 100,
        r1: '2026-11-21',
        t1: '2026-11-21 23:45:00+00',
        ty1: 'close',
        spot_delta_1d: 5,
        flip_delta_1d: 5,
        net_gex_delta_1d: 10,
        abs_gex_delta_1d: 15,
        p1_strike_delta_1d: 5,
        n1_strike_delta_1d: 5,
        s_price_delta_1d: 5,
        v_price_delta_1d: 5,
        r7: '2026-11-15',
        spot_delta_7d: 50,
        r30: null,
        spot_delta_30d: null,
      });
    });
  });

  it('TradFi: a Monday’s 1d reference is Sunday, which gives the Friday close; NULL values give NULL deltas', async () => {
    await withWarehouse(async (wh) => {
      await addCapture(wh, spy('2026-11-20', '2026-11-20T20:45:00Z', 590));
      await addCapture(wh, spy('2026-11-20', '2026-11-20T21:00:00Z', 600, { type: 'close' }));
      await addCapture(wh, spy('2026-11-23', '2026-11-23T15:00:00Z', null));
      const [row] = await query(
        wh,
        `SELECT ref_session_date_1d::VARCHAR AS r1, ref_timestamp_utc_1d::VARCHAR AS t1, spot_delta_1d
          FROM levels_compare WHERE exchange = 'tradfi'`,
      );
      expect(row).toEqual({ r1: '2026-11-20', t1: '2026-11-20 21:00:00+00', spot_delta_1d: null });
    });
  });
});

function latestAtOrBefore<T extends { ms: number }>(sorted: readonly T[], ms: number): T | undefined {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid]?.ms ?? Infinity) <= ms) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? undefined : sorted[lo - 1];
}
