// A verified load checks the bytes, not only their count: an archived file with one byte changed in
// place (same size, as a bad disk sector or a stray edit leaves it) is quarantined, never loaded. The
// size-changing corruptions of archived-load.test.ts would pass a size check alone.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PinMode } from '../../src/core/archive/pin.js';
import { expectVersion, loadArchived } from '../../src/warehouse/archived-load.js';
import { writeArchived } from './archive-fixtures.js';
import { BTC, query, withWarehouse } from './fixtures.js';

describe.each(['descriptor', 'copy'] as PinMode[])('a byte flipped in place (%s)', (pinMode) => {
  it('same size, other bytes: quarantined as a mismatch, no row loaded', async () => {
    await withWarehouse(async (wh, dir) => {
      const archive = join(dir, 'raw');
      const paid = writeArchived(archive, 'levels', BTC);
      const bytes = readFileSync(paid.path);
      // A byte of the gzip header's MTIME: the file still inflates to the same rows, so only the hash
      // can tell it is not the file that was paid for.
      bytes[4]! ^= 0x01;
      writeFileSync(paid.path, bytes);
      expect(statSync(paid.path).size).toBe(paid.bytes);

      const candidate = {
        exchange: paid.exchange,
        symbol: paid.symbol,
        sessionDate: paid.sessionDate,
        file: paid.file,
        relativePath: `${paid.exchange}/${paid.symbol}/${paid.sessionDate}_${paid.file}.csv.gz`,
      };
      const report = await loadArchived(
        wh.connection,
        archive,
        [candidate],
        (_c, found) => expectVersion({ sha256: paid.sha256, bytes: paid.bytes }, found, { rows: paid.rows, downloadedAt: paid.downloadedAt }, 'the manifest'),
        { command: 'test', pinMode },
      );
      expect(report.loaded).toEqual([]);
      expect(report.notLoaded.map((n) => n.kind)).toEqual(['mismatch']);
      expect(report.notLoaded[0]!.detail).toContain(`(${paid.bytes} bytes), the manifest says ${paid.sha256} (${paid.bytes} bytes)`);
      expect(readdirSync(join(archive, '_quarantine', paid.exchange, paid.symbol))).toHaveLength(2);
      expect(await query(wh, `SELECT count(*)::INT n FROM levels`)).toEqual([{ n: 0 }]);
      expect(await query(wh, `SELECT count(*)::INT n FROM sync.files WHERE status = 'loaded'`)).toEqual([{ n: 0 }]);
    });
  });
});
