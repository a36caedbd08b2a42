// The scale benchmark's extras (storage, export, nightly load) on a 2-day warehouse with small chains:
// every measurement runs and reports, and the nightly load adds the new session (no timing asserted).
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { openWarehouse } from '../../src/warehouse/index.js';
import { growScaleWarehouse } from '../../bench/scale-warehouse.js';
import { parseContenders, parseExtrasParts, scaleExtras } from '../../bench/scale-extras.js';
import { removeDir, tempDir } from '../../bench/fixture.js';

describe('scale extras', () => {
  it('--extras alone means all three measurements; a list picks some; an unknown name is refused', () => {
    expect([...parseExtrasParts(undefined)]).toEqual(['storage', 'export', 'nightly', 'incremental']);
    expect([...parseExtrasParts('--runs')]).toEqual(['storage', 'export', 'nightly', 'incremental']);
    expect([...parseExtrasParts('storage,nightly')]).toEqual(['storage', 'nightly']);
    expect(() => parseExtrasParts('storage,disk')).toThrow(/storage, export, nightly, incremental.*"disk"/);
  });

  it('--contenders picks the export contenders; the export and its same-files baseline always run', () => {
    expect(parseContenders(undefined)).toEqual(['export', 'sameFiles', 'sameFilesKept', 'splitting']);
    expect(parseContenders('export,sameFilesKept,sameFiles')).toEqual(['export', 'sameFiles', 'sameFilesKept']);
    expect(parseContenders('sameFiles,export')).toEqual(['export', 'sameFiles']);
    expect(() => parseContenders('export,splitting')).toThrow(/must name export and sameFiles/);
    expect(() => parseContenders('export,sameFiles,raw')).toThrow(/export, sameFiles, sameFilesKept, splitting.*"raw"/);
  });

  it('measures bytes per row, export against COPY and a nightly load on a tiny warehouse', async () => {
    const dir = tempDir('extras-test');
    try {
      const db = join(dir, 'w.duckdb');
      const warehouse = await openWarehouse(db);
      try {
        await growScaleWarehouse(warehouse.connection, {
          lastSession: '2026-11-23',
          days: 2,
          shape: { expirations: 6, strikes: 12, fullExpirations: 2, bandStrikes: 4 },
        });
        await warehouse.connection.run('CHECKPOINT');
      } finally {
        warehouse.close();
      }
      const lines: string[] = [];
      const report = await scaleExtras({ db, runs: 1, lastSession: '2026-11-23', expirations: 4, strikes: 10 }, (l) => lines.push(l));
      for (const table of ['levels', 'strikes_total', 'strikes_by_expiry'])
        expect(report).toMatch(new RegExp(`\\| ${table} \\| [\\d,]+ \\| [\\d.]+ \\| [\\d.]+ \\| [\\d.]+× \\|`));
      // Each output says what it holds: files, partitions, partitions split over several files, rows.
      expect(report).toMatch(/exportWarehouse.*\| \d+ MB; \d+ files for \d+ partitions \(0 split\), [\d,]+ rows \| [\d.]+× time \| [\d.]+–[\d.]+ \|/);
      // The target's baseline writes the same files (none split); DuckDB's default may split partitions.
      expect(report).toMatch(/raw `COPY.*writing the same files.*\| \d+ MB; \d+ files for \d+ partitions \(0 split\), [\d,]+ rows \| — \|/);
      expect(report).toMatch(
        /block allocator keeping its memory.*\| \d+ MB; \d+ files for \d+ partitions \(0 split\), [\d,]+ rows \| [\d.]+× time; the export [\d.]+× this \|/,
      );
      expect(report).toMatch(/default of 100 open files.*\| \d+ MB; \d+ files for \d+ partitions \(\d+ split\), [\d,]+ rows \| [\d.]+× time \|/);
      expect(lines.filter((l) => /export run 1 (export|sameFiles|sameFilesKept|splitting):/.test(l))).toHaveLength(4);
      expect(report).toMatch(/incremental export of one new session .*\| \d+ MB \| — \|/);
      expect(lines.filter((l) => /incremental 2027-03-0\d: .* 12 partitions written/.test(l))).toHaveLength(1);
      expect(lines.filter((l) => l.includes('nightly 2026-11-24'))).toHaveLength(2);
      const after = await openWarehouse(db);
      try {
        const sessions = (
          await after.connection.runAndReadAll(`SELECT DISTINCT exchange || '/' || symbol AS p FROM levels WHERE session_date = DATE '2026-11-24' ORDER BY p`)
        )
          .getRowsJS()
          .flat();
        expect(sessions).toEqual(['deribit/BTC', 'okx/ETH', 'tradfi/QQQ', 'tradfi/SPY']);
      } finally {
        after.close();
      }
    } finally {
      await removeDir(dir);
    }
  }, 120_000);
});
