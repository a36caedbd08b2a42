// Cross-check with the emulator's real daily files: the loader must take them as they are.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMarketModel } from '../../emulator/market/index.js';
import { loadFiles, type LoadInput } from '../../src/warehouse/loader.js';
import { query, withWarehouse } from './fixtures.js';
import { FILE_KINDS } from '../../src/core/file-kinds.js';

describe('loading emulator daily files', () => {
  it('loads all three kinds of two venues with the manifest row counts, and they join', async () => {
    const model = createMarketModel({ seed: 7, expirations: 3, strikes: 8, symbols: ['BTC', 'SPY'], historyStart: '2026-01-05' });
    await withWarehouse(async (wh, dir) => {
      const inputs: LoadInput[] = [];
      for (const [exchange, symbol, sessionDate] of [
        ['deribit', 'BTC', '2026-01-06'],
        ['tradfi', 'SPY', '2026-01-06'],
      ] as const) {
        for (const file of FILE_KINDS) {
          const daily = model.dailyFile(exchange, symbol, sessionDate, file, 0);
          const path = join(dir, `${exchange}_${symbol}_${sessionDate}_${file}.csv.gz`);
          writeFileSync(path, daily.bytes);
          inputs.push({
            exchange,
            symbol,
            sessionDate,
            file,
            path,
            sha256: daily.sha256,
            bytes: daily.bytes.length,
            rows: daily.rows,
            archivePath: path,
            downloadedAt: new Date(),
          });
        }
      }
      const report = await loadFiles(wh.connection, inputs);
      expect(report.failed).toEqual([]);
      expect(report.warnings).toEqual([]);
      expect(report.loaded).toHaveLength(6);
      const totalRows = inputs.reduce((sum, input) => sum + input.rows, 0);
      expect(report.rowsLoaded).toBe(totalRows);
      // Every strikes_by_expiry row finds its levels row (timestamp + expiration).
      const orphans = await query(
        wh,
        `SELECT count(*)::INTEGER AS n FROM strikes_by_expiry s ANTI JOIN levels l
          ON l.exchange = s.exchange AND l.symbol = s.symbol AND l.timestamp_utc = s.timestamp_utc AND l.expiration_date = s.expiration_date`,
      );
      expect(orphans).toEqual([{ n: 0 }]);
      const totals = await query(wh, `SELECT count(*)::INTEGER AS n FROM levels WHERE expiration = 'TOTAL' AND expiration_date IS NULL AND source = 'file'`);
      expect(Number(totals[0]?.n)).toBeGreaterThan(0);
    });
  });
});
