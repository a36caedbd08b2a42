import { describe, expect, it } from 'vitest';
import { rowCountMismatches } from '../../src/warehouse/row-count-mismatches.js';
import { loadFiles } from '../../src/warehouse/loader.js';
import { BTC, query, withWarehouse, writeFixture } from './fixtures.js';

describe('rowCountMismatches and reload', () => {
  it('finds lost rows and unexplained rows; reload repairs from the archive file', async () => {
    await withWarehouse(async (wh, dir) => {
      const levels = writeFixture(dir, 'levels', BTC);
      const strikes = writeFixture(dir, 'strikes_total', BTC);
      await loadFiles(wh.connection, [levels, strikes]);
      expect(await rowCountMismatches(wh.connection)).toEqual([]);

      await wh.connection.run(`DELETE FROM strikes_total WHERE strike = 98000`);
      await wh.connection.run(`INSERT INTO strikes_by_expiry (exchange, symbol, session_date, timestamp_utc, expiration_date, strike)
                               VALUES ('okx', 'ETH', DATE '2026-01-01', TIMESTAMPTZ '2026-01-01T00:00:00Z', DATE '2026-02-01', 1)`);
      expect(await rowCountMismatches(wh.connection)).toEqual([
        { exchange: 'bybit', symbol: 'BTC', sessionDate: '2026-11-20', file: 'strikes_total', sha256: strikes.sha256, expected: 3, actual: 2 },
        { exchange: 'okx', symbol: 'ETH', sessionDate: '2026-01-01', file: 'strikes_by_expiry', sha256: null, expected: 0, actual: 1 },
      ]);

      expect((await loadFiles(wh.connection, [strikes])).skipped).toHaveLength(1);
      const repaired = await loadFiles(wh.connection, [strikes], { reload: true });
      expect(repaired.loaded).toHaveLength(1);
      expect(await query(wh, 'SELECT count(*)::INTEGER AS n FROM strikes_total')).toEqual([{ n: 3 }]);
      expect((await rowCountMismatches(wh.connection)).map((m) => m.symbol)).toEqual(['ETH']);
    });
  });
});
