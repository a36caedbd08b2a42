// session_closes, the close marker levels_close joins to, must follow every write to levels: after
// each write path the marker equals the latest TOTAL capture per session, and levels_close answers as
// the per-session window it replaced.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeApiLevels } from '../../src/warehouse/levels-fill.js';
import type { HistoryLevelsRow } from '../../src/warehouse/levels-api.js';
import { loadFiles } from '../../src/warehouse/loader.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/open.js';
import { removeOrphanRows } from '../../src/warehouse/rebuild.js';
import { BTC, levelsRows, makeTempDir, type Market, query, withWarehouse, writeFixture } from './fixtures.js';

const ETH: Market = { exchange: 'deribit', symbol: 'ETH', sessionDate: '2026-11-20' };
const BTC_NEXT: Market = { ...BTC, sessionDate: '2026-11-21' };

/** The marker per session, as text. */
const markers = (wh: Warehouse) =>
  query(
    wh,
    `SELECT exchange, symbol, session_date::VARCHAR AS d, strftime(timestamp_utc AT TIME ZONE 'UTC', '%H:%M') AS close
               FROM session_closes ORDER BY ALL`,
  );

/** The marker agrees with the rows, and levels_close with the window over levels_total it replaced. */
async function expectFresh(wh: Warehouse): Promise<void> {
  expect(await markers(wh)).toEqual(
    await query(
      wh,
      `SELECT exchange, symbol, session_date::VARCHAR AS d, strftime(max(timestamp_utc) AT TIME ZONE 'UTC', '%H:%M') AS close
                       FROM levels WHERE expiration = 'TOTAL' GROUP BY ALL ORDER BY ALL`,
    ),
  );
  const columns = `exchange, symbol, session_date::VARCHAR AS d, timestamp_utc::VARCHAR AS ts, spot, source`;
  expect(await query(wh, `SELECT ${columns} FROM levels_close ORDER BY ALL`)).toEqual(
    await query(
      wh,
      `SELECT ${columns} FROM levels_total
                      QUALIFY row_number() OVER (PARTITION BY exchange, symbol, session_date ORDER BY timestamp_utc DESC) = 1
                      ORDER BY ALL`,
    ),
  );
}

function apiRow(session: string, time: string, spot: number): HistoryLevelsRow {
  return { schema_version: 1, timestamp_utc: `${session}T${time}:00Z`, session_date: session, type: 'intraday', oi_date: session, spot };
}

describe('session_closes', () => {
  it('the loader sets it, and a newer version of the file moves it later or earlier', async () => {
    await withWarehouse(async (wh, dir) => {
      expect((await loadFiles(wh.connection, [writeFixture(dir, 'levels', BTC)])).failed).toEqual([]);
      expect(await markers(wh)).toEqual([{ exchange: 'bybit', symbol: 'BTC', d: '2026-11-20', close: '14:15' }]);
      await expectFresh(wh);

      expect((await loadFiles(wh.connection, [writeFixture(dir, 'levels', BTC, { rows: levelsRows(BTC, 4) })])).failed).toEqual([]);
      expect((await markers(wh))[0]?.close).toBe('14:45');
      await expectFresh(wh);

      expect((await loadFiles(wh.connection, [writeFixture(dir, 'levels', BTC, { rows: levelsRows(BTC, 1) })])).failed).toEqual([]);
      expect((await markers(wh))[0]?.close).toBe('14:00');
      await expectFresh(wh);
    });
  });

  it('pairs sharing a capture time keep one marker each; a strikes file leaves it alone', async () => {
    await withWarehouse(async (wh, dir) => {
      const report = await loadFiles(wh.connection, [
        writeFixture(dir, 'levels', BTC),
        writeFixture(dir, 'levels', ETH),
        writeFixture(dir, 'strikes_total', BTC_NEXT),
      ]);
      expect(report.failed).toEqual([]);
      expect(await markers(wh)).toEqual([
        { exchange: 'bybit', symbol: 'BTC', d: '2026-11-20', close: '14:15' },
        { exchange: 'deribit', symbol: 'ETH', d: '2026-11-20', close: '14:15' },
      ]);
      expect(await query(wh, 'SELECT count(*)::INTEGER AS n FROM levels_close')).toEqual([{ n: 2 }]);
      await expectFresh(wh);
    });
  });

  it('a /history/levels fill adding a later capture moves it; the file loaded after replaces the api rows and their marker', async () => {
    await withWarehouse(async (wh, dir) => {
      await writeApiLevels(wh.connection, 'bybit', 'BTC', [apiRow('2026-11-20', '14:00', 1), apiRow('2026-11-21', '09:00', 2)]);
      expect((await markers(wh)).map((m) => m.close)).toEqual(['14:00', '09:00']);
      await expectFresh(wh);

      await writeApiLevels(wh.connection, 'bybit', 'BTC', [apiRow('2026-11-20', '14:00', 1), apiRow('2026-11-20', '15:00', 3)]);
      expect((await markers(wh)).map((m) => m.close)).toEqual(['15:00', '09:00']);
      expect(await query(wh, `SELECT spot, source FROM levels_close WHERE session_date = DATE '2026-11-20'`)).toEqual([{ spot: 3, source: 'api' }]);
      await expectFresh(wh);

      // The file's last capture (14:15) is earlier than the api's: the marker follows the file.
      expect((await loadFiles(wh.connection, [writeFixture(dir, 'levels', BTC)])).failed).toEqual([]);
      expect((await markers(wh)).map((m) => m.close)).toEqual(['14:15', '09:00']);
      await expectFresh(wh);
    });
  });

  it("rebuild's removal of rows no loaded file explains drops their marker", async () => {
    await withWarehouse(async (wh, dir) => {
      expect((await loadFiles(wh.connection, [writeFixture(dir, 'levels', BTC), writeFixture(dir, 'levels', ETH)])).failed).toEqual([]);
      await wh.connection.run(`DELETE FROM sync.files WHERE symbol = 'ETH'`);
      expect(await removeOrphanRows(wh.connection)).toBe(4);
      expect(await markers(wh)).toEqual([{ exchange: 'bybit', symbol: 'BTC', d: '2026-11-20', close: '14:15' }]);
      await expectFresh(wh);
    });
  });

  it('migration 52 fills it from the rows an older warehouse holds', async () => {
    const { dir, cleanup } = makeTempDir();
    try {
      const db = join(dir, 'gex.duckdb');
      const old = await openWarehouse(db, { migrations: { upTo: 51 } });
      try {
        // Today's loader records the layout and schema_version it reads (migration 070): they live only while it loads.
        await old.connection.run(
          'CREATE TABLE sync.layouts (file VARCHAR, schema_version INTEGER, header VARCHAR, first_file VARCHAR, first_seen_at TIMESTAMPTZ, columns_added VARCHAR[])',
        );
        await old.connection.run('ALTER TABLE sync.files ADD COLUMN schema_version INTEGER');
        expect(
          (await loadFiles(old.connection, [writeFixture(dir, 'levels', BTC), writeFixture(dir, 'levels', BTC_NEXT, { rows: levelsRows(BTC_NEXT, 3) })]))
            .failed,
        ).toEqual([]);
        await old.connection.run('DROP TABLE sync.layouts');
        await old.connection.run('ALTER TABLE sync.files DROP COLUMN schema_version');
      } finally {
        old.close();
      }
      const wh = await openWarehouse(db);
      try {
        expect((await markers(wh)).map((m) => `${String(m.d)} ${String(m.close)}`)).toEqual(['2026-11-20 14:15', '2026-11-21 14:30']);
        await expectFresh(wh);
      } finally {
        wh.close();
      }
    } finally {
      cleanup();
    }
  });
});
