import { describe, expect, it } from 'vitest';
import { insertApiLevels, type HistoryLevelsRow } from '../../src/warehouse/levels-api.js';
import { loadFiles } from '../../src/warehouse/loader.js';
import { BTC, query, withWarehouse, writeFixture } from './fixtures.js';

function apiRow(ts: string, spot: number | null): HistoryLevelsRow {
  return {
    schema_version: 1,
    timestamp_utc: ts,
    session_date: ts.slice(0, 10),
    type: 'intraday',
    exchange: 'bybit',
    symbol: 'BTC',
    oi_date: null,
    spot,
    flip: 1,
    flip_count: 3,
    regime: 'negative',
    net_gex: -5,
    max_pain: null,
    atm_iv: 0.5,
  };
}

describe('insertApiLevels', () => {
  it('inserts TOTAL api rows, skips known captures and sessions that have their file', async () => {
    await withWarehouse(async (wh, dir) => {
      await loadFiles(wh.connection, [writeFixture(dir, 'levels', BTC)]); // session 2026-11-20, file rows
      const rows = [
        apiRow('2026-11-20T14:30:00Z', 1),
        apiRow('2026-11-21T00:00:00Z', 2),
        apiRow('2026-11-21T00:00:00Z', 2),
        apiRow('2026-11-21T00:15:00Z', null),
      ];
      expect(await insertApiLevels(wh.connection, 'bybit', 'BTC', rows)).toBe(2);
      expect(await insertApiLevels(wh.connection, 'bybit', 'BTC', rows)).toBe(0);
      const got = await query(
        wh,
        `SELECT timestamp_utc::VARCHAR AS t, expiration, spot, flip_count, regime, atm_iv, oi_date FROM levels WHERE source = 'api' ORDER BY t`,
      );
      expect(got).toEqual([
        { t: '2026-11-21 00:00:00+00', expiration: 'TOTAL', spot: 2, flip_count: 3, regime: 'negative', atm_iv: 0.5, oi_date: null },
        { t: '2026-11-21 00:15:00+00', expiration: 'TOTAL', spot: null, flip_count: 3, regime: 'negative', atm_iv: 0.5, oi_date: null },
      ]);
      expect(await query(wh, `SELECT count(*)::INTEGER AS n FROM levels_total WHERE session_date = DATE '2026-11-21'`)).toEqual([{ n: 2 }]);
    });
  });
});
