import { readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { restoredEachTest } from '../helpers/restored-dir.js';
import { LockError, UsageError } from '../../src/core/errors.js';
import { recordFileStatus } from '../../src/warehouse/ledger.js';
import { acquireSyncLock } from '../../src/warehouse/lock.js';
import { upsertManifest } from '../../src/warehouse/manifest.js';
import { verifyWarehouse, type VerifyProblem } from '../../src/warehouse/verify.js';
import { seedArchive, tableChecksums, withDb, writeArchived } from './archive-fixtures.js';
import { BTC, levelsRows, query, type Market } from './fixtures.js';
import type { LoadInput } from '../../src/warehouse/loader.js';

const BTC2: Market = { ...BTC, sessionDate: '2026-11-21' };
const SPY: Market = { exchange: 'tradfi', symbol: 'SPY', sessionDate: '2026-11-20' };

let dir: string;
let dbPath: string;
let archive: string;
let inputs: LoadInput[];

// Every test starts from the same archive and warehouse, built once per file.
const seeded = restoredEachTest(async (folder) => {
  const db = join(folder, 'gex.duckdb');
  inputs = await seedArchive(db, join(folder, 'raw'), [BTC, BTC2, SPY]);
  // The manifest agrees with what was downloaded.
  await withDb(db, async (wh) => {
    for (const market of [BTC, BTC2, SPY]) {
      const rows = inputs
        .filter((i) => i.exchange === market.exchange && i.symbol === market.symbol && i.sessionDate === market.sessionDate)
        .map((i) => ({ session_date: i.sessionDate, file: i.file, rows: i.rows, bytes: i.bytes, sha256: i.sha256, schema_version: 1 }));
      await upsertManifest(wh.connection, market.exchange, market.symbol, rows, new Date('2026-11-21T00:00:00Z'));
    }
  });
});

beforeEach(() => {
  dir = seeded.path;
  dbPath = join(dir, 'gex.duckdb');
  archive = join(dir, 'raw');
});

const brief = (problems: VerifyProblem[]) => problems.map((p) => [p.kind, p.symbol, p.session_date, p.file]);

function flipByte(path: string): void {
  const bytes = readFileSync(path);
  bytes[bytes.length - 5] = (bytes[bytes.length - 5] ?? 0) ^ 0x01;
  writeFileSync(path, bytes);
}

describe('verifyWarehouse', () => {
  it('finds nothing wrong in a consistent warehouse', async () => {
    expect(await verifyWarehouse({ dbPath, archiveRoot: archive })).toEqual({ checked: 9, problems: [], repaired: [] });
  });

  it('reports a flipped byte, a missing archive file, deleted rows, unexplained rows and a newer manifest version', async () => {
    flipByte(join(archive, 'bybit', 'BTC', '2026-11-20_levels.csv.gz'));
    rmSync(join(archive, 'tradfi', 'SPY', '2026-11-20_strikes_by_expiry.csv.gz'));
    await withDb(dbPath, async (wh) => {
      await wh.connection.run(`DELETE FROM strikes_total WHERE symbol = 'BTC' AND session_date = DATE '2026-11-21' AND strike = 98000`);
      await wh.connection.run(`INSERT INTO strikes_total (exchange, symbol, session_date, timestamp_utc, strike)
                               VALUES ('okx', 'ETH', DATE '2026-11-20', TIMESTAMPTZ '2026-11-20T00:00:00Z', 1)`);
      await upsertManifest(
        wh.connection,
        'tradfi',
        'SPY',
        [{ session_date: '2026-11-20', file: 'levels', rows: 4, bytes: 10, sha256: 'f'.repeat(64), schema_version: 1 }],
        new Date(),
      );
    });
    const report = await verifyWarehouse({ dbPath, archiveRoot: archive });
    expect(report.checked).toBe(9);
    expect(report.repaired).toEqual([]);
    expect(brief(report.problems)).toEqual([
      ['hash_mismatch', 'BTC', '2026-11-20', 'levels'],
      ['row_count_mismatch', 'BTC', '2026-11-21', 'strikes_total'],
      ['manifest_mismatch', 'SPY', '2026-11-20', 'levels'],
      ['missing_archive', 'SPY', '2026-11-20', 'strikes_by_expiry'],
      ['unexplained_rows', 'ETH', '2026-11-20', 'strikes_total'],
    ]);
    expect(report.problems[1]?.detail).toContain('holds 2 rows of this file, the ledger says 3');
  });

  it('a sparse file planted at an archived name is a hash_mismatch named by its size, never read', async () => {
    const path = join(archive, 'tradfi', 'SPY', '2026-11-20_levels.csv.gz');
    const recorded = statSync(path).size;
    rmSync(path);
    writeFileSync(path, '');
    truncateSync(path, 2 * 1024 ** 3); // 2 GiB, no disk; before, verify hashed it all (3 s a GiB)
    const report = await verifyWarehouse({ dbPath, archiveRoot: archive });
    expect(brief(report.problems)).toEqual([['hash_mismatch', 'SPY', '2026-11-20', 'levels']]);
    expect(report.problems[0]!.detail).toBe(`${path} holds ${2 * 1024 ** 3} bytes, the ledger says ${recorded}: not read`);
  });

  it('repair reloads files whose archive is intact and reports what it could not repair', async () => {
    const before = await withDb(dbPath, (wh) => tableChecksums(wh));
    flipByte(join(archive, 'bybit', 'BTC', '2026-11-20_levels.csv.gz'));
    await withDb(dbPath, async (wh) => {
      await wh.connection.run(`DELETE FROM strikes_total WHERE symbol = 'BTC' AND session_date = DATE '2026-11-21' AND strike = 98000`);
      await wh.connection.run(`DELETE FROM strikes_by_expiry WHERE symbol = 'SPY'`);
      await wh.connection.run(`INSERT INTO strikes_total (exchange, symbol, session_date, timestamp_utc, strike)
                               VALUES ('okx', 'ETH', DATE '2026-11-20', TIMESTAMPTZ '2026-11-20T00:00:00Z', 1)`);
    });
    const report = await verifyWarehouse({ dbPath, archiveRoot: archive, repair: true });
    expect(brief(report.repaired)).toEqual([
      ['row_count_mismatch', 'BTC', '2026-11-21', 'strikes_total'],
      ['row_count_mismatch', 'SPY', '2026-11-20', 'strikes_by_expiry'],
      ['unexplained_rows', 'ETH', '2026-11-20', 'strikes_total'],
    ]);
    expect(brief(report.problems)).toEqual([['hash_mismatch', 'BTC', '2026-11-20', 'levels']]);
    await withDb(dbPath, async (wh) => expect(await tableChecksums(wh)).toEqual(before));
    const again = await verifyWarehouse({ dbPath, archiveRoot: archive });
    expect(brief(again.problems)).toEqual([['hash_mismatch', 'BTC', '2026-11-20', 'levels']]);
  });

  it('repair loads a newer archived version that failed to load', async () => {
    const v2 = writeArchived(archive, 'levels', BTC2, { rows: levelsRows(BTC2, 3) });
    await withDb(dbPath, async (wh) => {
      await recordFileStatus(wh.connection, v2, 'failed_load', 'disk full');
      await upsertManifest(
        wh.connection,
        'bybit',
        'BTC',
        [{ session_date: BTC2.sessionDate, file: 'levels', rows: v2.rows, bytes: v2.bytes, sha256: v2.sha256, schema_version: 1 }],
        new Date(),
      );
    });
    const found = await verifyWarehouse({ dbPath, archiveRoot: archive });
    expect(brief(found.problems)).toEqual([
      ['hash_mismatch', 'BTC', '2026-11-21', 'levels'],
      ['manifest_mismatch', 'BTC', '2026-11-21', 'levels'],
    ]);
    const repaired = await verifyWarehouse({ dbPath, archiveRoot: archive, repair: true });
    expect(repaired.problems).toEqual([]);
    expect(repaired.repaired).toHaveLength(2);
    await withDb(dbPath, async (wh) => {
      expect(await query(wh, `SELECT count(*)::INTEGER AS n FROM levels WHERE session_date = DATE '2026-11-21'`)).toEqual([{ n: 6 }]);
    });
  });

  it('a file that never loaded is a problem until repair loads it from an intact archive', async () => {
    const eth: Market = { exchange: 'okx', symbol: 'ETH', sessionDate: '2026-11-20' };
    const input = writeArchived(archive, 'strikes_total', eth);
    await withDb(dbPath, (wh) => recordFileStatus(wh.connection, input, 'failed_load', 'killed'));
    expect(brief((await verifyWarehouse({ dbPath, archiveRoot: archive })).problems)).toEqual([['failed_load', 'ETH', '2026-11-20', 'strikes_total']]);
    const report = await verifyWarehouse({ dbPath, archiveRoot: archive, repair: true });
    expect([report.checked, report.problems, brief(report.repaired)]).toEqual([10, [], [['failed_load', 'ETH', '2026-11-20', 'strikes_total']]]);
  });

  it('repair needs the sync lock; a missing warehouse is a usage error', async () => {
    const lock = await acquireSyncLock(dbPath);
    try {
      await expect(verifyWarehouse({ dbPath, archiveRoot: archive, repair: true })).rejects.toBeInstanceOf(LockError);
      expect((await verifyWarehouse({ dbPath, archiveRoot: archive })).problems).toEqual([]);
    } finally {
      await lock.release();
    }
    await expect(verifyWarehouse({ dbPath: join(dir, 'none.duckdb'), archiveRoot: archive })).rejects.toBeInstanceOf(UsageError);
  });
});
