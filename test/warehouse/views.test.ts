import { describe, expect, it } from 'vitest';
import type { Warehouse } from '../../src/warehouse/open.js';
import { query, withWarehouse } from './fixtures.js';
import { rebuildSessionCloses } from '../../src/warehouse/session-closes.js';

async function addLevels(wh: Warehouse, symbol: string, ts: string, expiration: string, spot: number, source = 'file'): Promise<void> {
  await wh.connection.run(
    `INSERT INTO levels (exchange, symbol, session_date, timestamp_utc, type, oi_date, expiration, expiration_date, spot, flip, regime, net_gex, p1_strike, source)
     VALUES ('tradfi', $1, CAST($2::TIMESTAMPTZ AT TIME ZONE 'America/New_York' AS DATE), $2::TIMESTAMPTZ, 'intraday', DATE '2026-11-01',
             $3, CASE WHEN $3 = 'TOTAL' THEN NULL ELSE $3::DATE END, $4, $4 - 10, 'positive', $4 * 2, $4 + 5, $5)`,
    [symbol, ts, expiration, spot, source],
  );
  await rebuildSessionCloses(wh.connection); // as every writer of levels keeps the close marker
}

async function addStrike(wh: Warehouse, table: 'strikes_total' | 'strikes_by_expiry', ts: string, strike: number, expiration?: string): Promise<void> {
  if (table === 'strikes_total') {
    await wh.connection.run(
      `INSERT INTO strikes_total (exchange, symbol, session_date, timestamp_utc, strike, net_gex)
       VALUES ('tradfi', 'SPY', CAST($1::TIMESTAMPTZ AS DATE), $1::TIMESTAMPTZ, $2, 1)`,
      [ts, strike],
    );
  } else {
    await wh.connection.run(
      `INSERT INTO strikes_by_expiry (exchange, symbol, session_date, timestamp_utc, expiration_date, strike, net_gex)
       VALUES ('tradfi', 'SPY', CAST($1::TIMESTAMPTZ AS DATE), $1::TIMESTAMPTZ, $3::DATE, $2, 2)`,
      [ts, strike, expiration ?? null],
    );
  }
}

/** SPY captures: Fri 2026-11-20 (two), Mon 2026-11-16, Mon 2026-11-23 (latest). */
async function seed(wh: Warehouse): Promise<void> {
  await addLevels(wh, 'SPY', '2026-11-16T20:45:00Z', 'TOTAL', 590);
  await addLevels(wh, 'SPY', '2026-11-20T15:00:00Z', 'TOTAL', 598);
  await addLevels(wh, 'SPY', '2026-11-20T20:45:00Z', 'TOTAL', 600);
  await addLevels(wh, 'SPY', '2026-11-20T20:45:00Z', '2026-12-19', 601);
  await addLevels(wh, 'SPY', '2026-11-23T15:00:00Z', 'TOTAL', 610, 'api');
}

describe('views', () => {
  it('levels_total, levels_close and levels_expiry split and reduce levels', async () => {
    await withWarehouse(async (wh) => {
      await seed(wh);
      expect(await query(wh, 'SELECT count(*)::INTEGER AS n FROM levels_total')).toEqual([{ n: 4 }]);
      expect(await query(wh, `SELECT session_date::VARCHAR AS d, spot, source FROM levels_close ORDER BY d`)).toEqual([
        { d: '2026-11-16', spot: 590, source: 'file' },
        { d: '2026-11-20', spot: 600, source: 'file' },
        { d: '2026-11-23', spot: 610, source: 'api' },
      ]);
      expect(await query(wh, `SELECT expiration_date::VARCHAR AS e, spot FROM levels_expiry`)).toEqual([{ e: '2026-12-19', spot: 601 }]);
    });
  });

  it('strikes and strikes_expiry carry their capture’s levels and distance from spot', async () => {
    await withWarehouse(async (wh) => {
      await seed(wh);
      await addStrike(wh, 'strikes_total', '2026-11-20T20:45:00Z', 630);
      await addStrike(wh, 'strikes_by_expiry', '2026-11-20T20:45:00Z', 601, '2026-12-19');
      expect(await query(wh, 'SELECT strike, spot, flip, regime, distance_pct FROM strikes')).toEqual([
        { strike: 630, spot: 600, flip: 590, regime: 'positive', distance_pct: 5 },
      ]);
      expect(await query(wh, 'SELECT strike, spot, flip, distance_pct, expiration_date::VARCHAR AS e FROM strikes_expiry')).toEqual([
        { strike: 601, spot: 601, flip: 591, distance_pct: 0, e: '2026-12-19' },
      ]);
    });
  });

  it('levels_asof and strikes_asof never look ahead', async () => {
    await withWarehouse(async (wh) => {
      await seed(wh);
      await addStrike(wh, 'strikes_total', '2026-11-20T15:00:00Z', 1);
      await addStrike(wh, 'strikes_total', '2026-11-20T20:45:00Z', 2);
      const asof = (ts: string) => query(wh, `SELECT timestamp_utc::VARCHAR AS t, spot FROM levels_asof('tradfi', 'SPY', $1)`, [ts]);
      expect(await asof('2026-11-20T20:44:59Z')).toEqual([{ t: '2026-11-20 15:00:00+00', spot: 598 }]);
      expect(await asof('2026-11-20T20:45:00Z')).toEqual([{ t: '2026-11-20 20:45:00+00', spot: 600 }]);
      expect(await asof('2026-01-01T00:00:00Z')).toEqual([]);
      expect(await query(wh, `SELECT strike FROM strikes_asof('tradfi', 'SPY', '2026-11-20T20:00:00Z')`)).toEqual([{ strike: 1 }]);
    });
  });

  it('pit_levels ASOF-joins a user table without look-ahead', async () => {
    await withWarehouse(async (wh) => {
      await seed(wh);
      await wh.connection.run(`CREATE TABLE trades (exchange VARCHAR, symbol VARCHAR, ts TIMESTAMPTZ, qty INTEGER)`);
      await wh.connection.run(
        `INSERT INTO trades VALUES ('tradfi', 'SPY', '2026-11-20T16:00:00Z', 1), ('tradfi', 'SPY', '2026-11-10T00:00:00Z', 2), ('tradfi', 'QQQ', '2026-11-20T16:00:00Z', 3)`,
      );
      expect(await query(wh, `SELECT qty, timestamp_utc::VARCHAR AS t, spot, oi_date::VARCHAR AS oi FROM pit_levels('trades') ORDER BY qty`)).toEqual([
        { qty: 1, t: '2026-11-20 15:00:00+00', spot: 598, oi: '2026-11-01' },
        { qty: 2, t: null, spot: null, oi: null },
        { qty: 3, t: null, spot: null, oi: null },
      ]);
    });
  });

  it('levels_compare: a weekend reference gives the Friday close; none that far back gives NULL', async () => {
    await withWarehouse(async (wh) => {
      await seed(wh);
      const [row] = await query(
        wh,
        `SELECT spot, ref_session_date_1d::VARCHAR AS r1, spot_delta_1d, ref_session_date_7d::VARCHAR AS r7, spot_delta_7d,
          p1_strike_delta_7d, ref_session_date_30d AS r30, spot_delta_30d FROM levels_compare WHERE symbol = 'SPY'`,
      );
      expect(row).toEqual({
        spot: 610,
        r1: '2026-11-20',
        spot_delta_1d: 10,
        r7: '2026-11-16',
        spot_delta_7d: 20,
        p1_strike_delta_7d: 20,
        r30: null,
        spot_delta_30d: null,
      });
    });
  });
});
