import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { restoredEachTest } from '../helpers/restored-dir.js';
import { LockError, UsageError } from '../../src/core/errors.js';
import { recordFileStatus, listLedger, type LedgerRow } from '../../src/warehouse/ledger.js';
import { acquireSyncLock } from '../../src/warehouse/lock.js';
import { chooseVersion, rebuildWarehouse } from '../../src/warehouse/rebuild.js';
import { seedArchive, tableChecksums, withDb, writeArchived } from './archive-fixtures.js';
import { BTC, levelsRows, query, type Market } from './fixtures.js';

const BTC2: Market = { ...BTC, sessionDate: '2026-11-21' };
const SPY: Market = { exchange: 'tradfi', symbol: 'SPY', sessionDate: '2026-11-20' };

let dir: string;
let dbPath: string;
let archive: string;

// Every test starts from the same archive and warehouse, built once per file.
const seeded = restoredEachTest(async (folder) => {
  const db = join(folder, 'gex.duckdb');
  await seedArchive(db, join(folder, 'raw'), [BTC, BTC2, SPY]);
  await withDb(db, async (wh) => {
    // A /history/levels fill of a session without a levels file: not in the archive, kept.
    await wh.connection.run(`INSERT INTO levels (exchange, symbol, session_date, timestamp_utc, type, expiration, spot, source)
                             VALUES ('tradfi', 'SPY', DATE '2026-11-23', TIMESTAMPTZ '2026-11-23T15:00:00Z', 'intraday', 'TOTAL', 601, 'api')`);
  });
});

beforeEach(() => {
  dir = seeded.path;
  dbPath = join(dir, 'gex.duckdb');
  archive = join(dir, 'raw');
});

describe('rebuildWarehouse', () => {
  it('recreates damaged tables from the archive: same contents as before, orphans gone, api fills kept', async () => {
    const before = await withDb(dbPath, (wh) => tableChecksums(wh));
    await withDb(dbPath, async (wh) => {
      await wh.connection.run(`DELETE FROM strikes_total WHERE strike = 97500`);
      await wh.connection.run(`UPDATE levels SET spot = -1 WHERE symbol = 'BTC' AND source = 'file'`);
      await wh.connection.run(`DELETE FROM strikes_by_expiry WHERE symbol = 'SPY'`);
      await wh.connection.run(`INSERT INTO strikes_by_expiry (exchange, symbol, session_date, timestamp_utc, expiration_date, strike)
                               VALUES ('okx', 'ETH', DATE '2026-01-01', TIMESTAMPTZ '2026-01-01T00:00:00Z', DATE '2026-02-01', 1)`);
      expect(await tableChecksums(wh)).not.toEqual(before);
    });

    const result = await rebuildWarehouse({ dbPath, archiveRoot: archive });
    expect(result.problems).toEqual([]);
    expect([result.source, result.damagedCopies]).toEqual(['ledger', []]);
    expect(result.filesReloaded).toBe(9);
    expect(result.rowsLoaded).toBe((4 + 3 + 4) * 3);
    expect(result.orphanRowsRemoved).toBe(1);
    await withDb(dbPath, async (wh) => {
      expect(await tableChecksums(wh)).toEqual(before);
      expect(await query(wh, `SELECT count(*)::INTEGER AS n FROM levels WHERE source = 'api'`)).toEqual([{ n: 1 }]);
      expect((await listLedger(wh.connection)).map((r) => r.status)).toEqual(Array(9).fill('loaded'));
      expect(await query(wh, `SELECT command, outcome, files_loaded FROM sync.runs WHERE run_id = $1`, [result.runId])).toEqual([
        { command: 'rebuild', outcome: 'ok', files_loaded: 9 },
      ]);
    });
    // Idempotent: a second rebuild changes nothing.
    const again = await rebuildWarehouse({ dbPath, archiveRoot: archive });
    expect([again.filesReloaded, again.orphanRowsRemoved, again.problems]).toEqual([9, 0, []]);
    await withDb(dbPath, async (wh) => expect(await tableChecksums(wh)).toEqual(before));
  });

  it('reports missing or altered archive files and keeps their rows', async () => {
    const before = await withDb(dbPath, (wh) => tableChecksums(wh));
    const missing = join(archive, 'bybit', 'BTC', '2026-11-20_strikes_total.csv.gz');
    const altered = join(archive, 'tradfi', 'SPY', '2026-11-20_levels.csv.gz');
    rmSync(missing);
    const bytes = readFileSync(altered);
    bytes[bytes.length - 5] = (bytes[bytes.length - 5] ?? 0) ^ 0xff;
    writeFileSync(altered, bytes);

    const result = await rebuildWarehouse({ dbPath, archiveRoot: archive });
    expect(result.filesReloaded).toBe(7);
    expect(result.problems.map((p) => [p.kind, p.exchange, p.symbol, p.session_date, p.file])).toEqual([
      ['missing', 'bybit', 'BTC', '2026-11-20', 'strikes_total'],
      ['hash_mismatch', 'tradfi', 'SPY', '2026-11-20', 'levels'],
    ]);
    expect(result.problems[0]?.detail).toContain(missing);
    await withDb(dbPath, async (wh) => {
      expect(await tableChecksums(wh)).toEqual(before);
      expect(await query(wh, `SELECT outcome FROM sync.runs WHERE run_id = $1`, [result.runId])).toEqual([{ outcome: 'partial' }]);
    });
  });

  it('loads a newer archived version that failed to load before, superseding the loaded one', async () => {
    const v2 = writeArchived(archive, 'levels', BTC, { rows: levelsRows(BTC, 3) });
    await withDb(dbPath, (wh) => recordFileStatus(wh.connection, v2, 'failed_load', 'disk full'));
    const result = await rebuildWarehouse({ dbPath, archiveRoot: archive });
    expect(result.problems).toEqual([]);
    await withDb(dbPath, async (wh) => {
      expect(await query(wh, `SELECT count(*)::INTEGER AS n FROM levels WHERE symbol = 'BTC' AND session_date = DATE '2026-11-20'`)).toEqual([{ n: 6 }]);
      const versions = (await listLedger(wh.connection)).filter((r) => r.file === 'levels' && r.symbol === 'BTC' && r.sessionDate === '2026-11-20');
      expect(versions.map((r) => [r.sha256 === v2.sha256, r.status]).sort()).toEqual([
        [false, 'superseded'],
        [true, 'loaded'],
      ]);
    });
  });

  it('waits for nobody: a held sync lock is a LockError; a missing archive is a usage error', async () => {
    const lock = await acquireSyncLock(dbPath);
    try {
      await expect(rebuildWarehouse({ dbPath, archiveRoot: archive })).rejects.toBeInstanceOf(LockError);
    } finally {
      await lock.release();
    }
    await expect(rebuildWarehouse({ dbPath, archiveRoot: join(dir, 'nowhere') })).rejects.toBeInstanceOf(UsageError);
    await expect(rebuildWarehouse({ dbPath: join(dir, 'none.duckdb'), archiveRoot: join(dir, 'nowhere') })).rejects.toBeInstanceOf(UsageError);
    // A missing warehouse with an archive is recreated from it (rebuild-from-archive.test.ts).
    expect((await rebuildWarehouse({ dbPath: join(dir, 'none.duckdb'), archiveRoot: archive })).source).toBe('archive');
  });
});

describe('chooseVersion', () => {
  const row = (sha256: string, status: LedgerRow['status']): LedgerRow => ({
    exchange: 'bybit',
    symbol: 'BTC',
    sessionDate: '2026-11-20',
    file: 'levels',
    sha256,
    bytes: 1,
    rows: 1,
    archivePath: null,
    downloadedAt: null,
    loadedAt: null,
    status,
    error: null,
  });
  it('prefers the archived version when it is loaded or failed to load, else names the loaded one', () => {
    const versions = [row('a', 'superseded'), row('b', 'loaded'), row('c', 'failed_load'), row('d', 'failed_verify')];
    expect(chooseVersion(versions, 'b')?.sha256).toBe('b');
    expect(chooseVersion(versions, 'c')?.sha256).toBe('c');
    expect(chooseVersion(versions, 'd')?.sha256).toBe('b');
    expect(chooseVersion(versions, undefined)?.sha256).toBe('b');
    expect(chooseVersion([row('c', 'failed_load')], undefined)).toBeUndefined();
    expect(chooseVersion([row('a', 'superseded')], 'a')).toBeUndefined();
  });
});
