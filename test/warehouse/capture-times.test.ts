// A daily file's timestamp_utc in any ISO 8601 spelling of its instant loads as that instant: without
// seconds (which DuckDB's cast alone refuses), with a zero offset, or with another offset (converted
// exactly). A text that is no date-time still fails the file, named.
import { describe, expect, it } from 'vitest';
import { loadFiles } from '../../src/warehouse/loader.js';
import { BTC, levelsRows, query, strikesTotalRows, withWarehouse, writeFixture } from './fixtures.js';

const LEAN_LEVELS = ['timestamp_utc', 'expiration', 'spot'];

describe('capture times of daily files', () => {
  it('no seconds, +00:00, +0000 and a non-zero offset load as their UTC instants; the derived type still finds the close', async () => {
    await withWarehouse(async (wh, dir) => {
      const spellings = ['2026-11-20T14:00Z', '2026-11-20T14:15+00:00', '2026-11-20T14:30:00+0000', '2026-11-20T15:45+01:00'];
      const rows = spellings.map((timestamp_utc, i) => ({ ...levelsRows(BTC, 1)[0]!, timestamp_utc, spot: i }));
      const levels = writeFixture(dir, 'levels', BTC, { header: LEAN_LEVELS, rows });
      const strikes = writeFixture(dir, 'strikes_total', BTC, { rows: strikesTotalRows(BTC).map((row) => ({ ...row, timestamp_utc: '2026-11-20T14:00Z' })) });
      const report = await loadFiles(wh.connection, [levels, strikes]);
      expect(report.failed).toEqual([]);
      expect(await query(wh, 'SELECT timestamp_utc::VARCHAR AS ts, type, spot FROM levels ORDER BY timestamp_utc')).toEqual([
        { ts: '2026-11-20 14:00:00+00', type: 'intraday', spot: 0 },
        { ts: '2026-11-20 14:15:00+00', type: 'intraday', spot: 1 },
        { ts: '2026-11-20 14:30:00+00', type: 'intraday', spot: 2 },
        { ts: '2026-11-20 14:45:00+00', type: 'close', spot: 3 },
      ]);
      expect(await query(wh, 'SELECT DISTINCT timestamp_utc::VARCHAR AS ts FROM strikes_total')).toEqual([{ ts: '2026-11-20 14:00:00+00' }]);
    });
  });

  it('a timestamp_utc that is no date-time still fails the file', async () => {
    await withWarehouse(async (wh, dir) => {
      const rows = [{ ...levelsRows(BTC, 1)[0]!, timestamp_utc: '2026-11-20T14:0Z' }];
      const report = await loadFiles(wh.connection, [writeFixture(dir, 'levels', BTC, { header: LEAN_LEVELS, rows })]);
      expect(report.failed[0]?.error).toMatch(/2026-11-20T14:0Z/);
    });
  });
});
