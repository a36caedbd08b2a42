// `rebuild` with no readable warehouse: a damaged DuckDB file is kept aside and the warehouse is
// recreated from the raw archive alone; a missing one is created. The archive here is built by a real
// sync against the in-process emulator, so the ledger sha256s are the ones its manifests carry.
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DamagedWarehouseError, NotAWarehouseError } from '../../src/core/errors.js';
import { openWarehouse } from '../../src/warehouse/open.js';
import { rebuildWarehouse } from '../../src/warehouse/rebuild.js';
import { compactUtcStamp, setAsideDamaged } from '../../src/warehouse/rebuild-from-archive.js';
import { verifyWarehouse } from '../../src/warehouse/verify.js';
import { consistent, inspectWarehouse, tableChecksums } from '../helpers/invariants.js';
import { listFiles, snapshotBench, type Bench, type BenchSnapshot } from '../helpers/sync.js';
import { makeTempDir } from './fixtures.js';

const PAIR = { exchange: 'deribit', symbol: 'BTC' };
const AT = new Date('2026-11-22T10:15:00.123Z');
const STAMP = '20261122T101500Z';

interface Reference {
  checksums: Record<string, string>;
  ledger: string[];
  files: number;
  /** The credits the sync that built the archive spent (charged to the emulator it used). */
  paid: number;
}

interface Synced extends Reference {
  bench: Bench;
}

// The bench every rebuild starts from: one sync of PAIR, made once per file and put back for each
// test (a fresh emulator whose counters start at 0), with what that sync left as the reference.
let once: BenchSnapshot;
let reference: Reference;
beforeAll(async () => {
  once = await snapshotBench({ days: 2 }, async (bench) => {
    await bench.sync(PAIR);
    const ledger = await ledgerOf(bench.dbPath);
    const paid = bench.emulator.counters.credits(bench.emulator.keys.pro);
    reference = { checksums: await tableChecksums(bench.dbPath), ledger, files: ledger.length, paid };
  });
});
afterAll(() => once?.remove());

async function synced(): Promise<Synced> {
  return { bench: await once.start(), ...reference };
}

async function ledgerOf(dbPath: string): Promise<string[]> {
  const warehouse = await openWarehouse(dbPath, { readOnly: true });
  try {
    const reader = await warehouse.connection.runAndReadAll(
      `SELECT concat_ws('|', exchange, symbol, session_date, file, sha256, bytes, rows, status) k FROM sync.files ORDER BY k`,
    );
    return reader.getRowObjectsJson().map((row) => String(row.k));
  } finally {
    warehouse.close();
  }
}

let copies = 0;
/**
 * A copy of the synced warehouse under a path this process never opened: DuckDB caches an open
 * database per path in the process, and would serve the old blocks instead of the damaged file.
 */
function copyOf(bench: Bench): string {
  const folder = join(bench.dir, `copy${++copies}`);
  mkdirSync(folder);
  const path = join(folder, 'gex.duckdb');
  copyFileSync(bench.dbPath, path);
  return path;
}

async function queryDb(dbPath: string, sql: string): Promise<unknown[]> {
  const warehouse = await openWarehouse(dbPath, { readOnly: true });
  try {
    return (await warehouse.connection.runAndReadAll(sql)).getRowObjectsJson();
  } finally {
    warehouse.close();
  }
}

/** Overwrites `length` bytes at `offset` with garbage. */
function damage(path: string, offset: number, length: number): void {
  const bytes = readFileSync(path);
  bytes.fill(0x5a, offset, Math.min(bytes.length, offset + length));
  writeFileSync(path, bytes);
}

const CORRUPTIONS = [
  { name: 'garbage over the file header', offset: 0, message: /not a valid DuckDB file/ },
  { name: 'a database header failing its checksum', offset: 4096, message: /not a valid DuckDB file/ },
];

let current: Bench | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

describe('rebuild of a damaged warehouse', () => {
  it.each(CORRUPTIONS)('$name: the clear error, then the file kept aside and identical tables from the archive', async ({ offset, message }) => {
    const { bench, checksums, ledger, files } = await synced();
    current = bench;
    const archived = await listFiles(bench.archive);
    const db = copyOf(bench);
    writeFileSync(`${db}.wal`, 'not a real wal');
    damage(db, offset, 4096);
    const damagedBytes = readFileSync(db);
    expect(damagedBytes.equals(readFileSync(bench.dbPath))).toBe(false);

    const refused = openWarehouse(db);
    await expect(refused).rejects.toBeInstanceOf(DamagedWarehouseError);
    await expect(refused).rejects.toThrow(message);
    await expect(refused).rejects.toThrow(/run gexwh rebuild/);

    const result = await rebuildWarehouse({ dbPath: db, archiveRoot: bench.archive, now: () => AT });
    const kept = `${db}.damaged-${STAMP}`;
    expect(result).toMatchObject({ source: 'archive', filesReloaded: files, problems: [], skipped: [], damagedCopies: [kept, `${kept}.wal`] });
    // The damaged copy is byte for byte what was there, its WAL beside it; the archive is untouched.
    expect(readFileSync(kept).equals(damagedBytes)).toBe(true);
    expect(readFileSync(`${kept}.wal`, 'utf8')).toBe('not a real wal');
    expect(await listFiles(bench.archive)).toEqual(archived);

    expect(await tableChecksums(db)).toEqual(checksums);
    expect(await ledgerOf(db)).toEqual(ledger); // same sha256, bytes and row counts
    expect(await inspectWarehouse(db, bench.archive)).toEqual(consistent(files));
  });

  it('a data block failing its checksum, found by reading every table before anything changes', async () => {
    const { bench, checksums, files } = await synced();
    current = bench;
    // Where DuckDB stores strikes_total's last column: block k starts after the three 4 KiB headers,
    // the segment at its offset past the block's own header (under 100 bytes).
    const [segment] = await bench.query<{ block_id: string; block_offset: string; block_size: string }>(
      `SELECT s.block_id::VARCHAR block_id, s.block_offset::VARCHAR block_offset, d.block_size::VARCHAR block_size
         FROM pragma_storage_info('strikes_total') s, pragma_database_size() d
        WHERE s.column_name = 'put_oi' AND s.persistent AND s.block_id >= 0 LIMIT 1`,
    );
    const db = copyOf(bench);
    const blockStart = 3 * 4096 + Number(segment!.block_id) * Number(segment!.block_size);
    damage(db, blockStart + 100 + Number(segment!.block_offset), 64);
    const damagedBytes = readFileSync(db);

    const result = await rebuildWarehouse({ dbPath: db, archiveRoot: bench.archive, now: () => AT });
    expect(result).toMatchObject({ source: 'archive', filesReloaded: files, problems: [] });
    expect(readFileSync(result.damagedCopies[0]!).equals(damagedBytes)).toBe(true); // kept before any change
    expect(await tableChecksums(db)).toEqual(checksums);
  });

  it('the next sync lists the free manifests and spends no credit; verify then finds nothing wrong', async () => {
    const { bench, checksums, files, paid } = await synced();
    current = bench;
    expect(paid).toBe(files);
    const credits = bench.emulator.counters.credits(bench.emulator.keys.pro);
    const db = copyOf(bench);
    damage(db, 0, 64 * 1024);
    // Its headers all gone, the file is no longer recognisably DuckDB's: rebuild replaces it only on --force.
    await expect(rebuildWarehouse({ dbPath: db, archiveRoot: bench.archive, now: () => AT })).rejects.toBeInstanceOf(NotAWarehouseError);
    await rebuildWarehouse({ dbPath: db, archiveRoot: bench.archive, now: () => AT, force: true });

    const next = await bench.sync(PAIR, { dbPath: db });
    expect(bench.emulator.counters.credits(bench.emulator.keys.pro)).toBe(credits);
    // Nothing reloaded either: the ledger, not the archive reuse of a sync, says the files are loaded.
    expect(next.creditsSpent).toBe(0);
    expect(next.plan).toMatchObject({ toDownload: 0, toReload: 0, alreadyLoaded: files });
    expect(next.filesLoaded).toBe(0);
    expect(await tableChecksums(db)).toEqual(checksums);
    const report = await verifyWarehouse({ dbPath: db, archiveRoot: bench.archive });
    expect(report.problems).toEqual([]);
    expect(report.checked).toBe(files);
  });

  it('a broken archived file is a load_failed problem recorded failed_load; the others load; strays are skipped and named', async () => {
    const { bench, files } = await synced();
    current = bench;
    const [broken] = (await listFiles(bench.archive)).filter((f) => f.endsWith('_strikes_total.csv.gz')).sort();
    const bytes = readFileSync(broken!);
    writeFileSync(broken!, bytes.subarray(0, Math.floor(bytes.length / 2))); // a truncated gzip
    const symbolFolder = join(bench.archive, 'deribit', 'BTC');
    writeFileSync(join(symbolFolder, 'notes.txt'), 'mine');
    writeFileSync(join(symbolFolder, '.2026-03-10_levels.csv.gz.0123456789ab.part'), 'a temp');
    mkdirSync(join(bench.archive, 'backup'));
    const db = copyOf(bench);
    damage(db, 0, 4096);

    const result = await rebuildWarehouse({ dbPath: db, archiveRoot: bench.archive, now: () => AT });
    expect(result.filesReloaded).toBe(files - 1);
    expect(result.problems).toEqual([expect.objectContaining({ kind: 'load_failed', exchange: 'deribit', symbol: 'BTC', file: 'strikes_total' })]);
    expect(result.problems[0]?.detail).toContain(broken);
    expect(result.skipped).toEqual([join(bench.archive, 'backup'), join(symbolFolder, 'notes.txt')]);
    const statuses = await queryDb(db, `SELECT status, count(*)::INT n FROM sync.files GROUP BY 1 ORDER BY 1`);
    expect(statuses).toEqual([
      { status: 'failed_load', n: 1 },
      { status: 'loaded', n: files - 1 },
    ]);
    const runs = await queryDb(db, `SELECT command, outcome, files_loaded, files_failed FROM sync.runs`);
    expect(runs).toEqual([{ command: 'rebuild', outcome: 'partial', files_loaded: files - 1, files_failed: 1 }]);
  });
});

describe('rebuild with no warehouse', () => {
  it('creates it from the archive; then the next sync spends no credit', async () => {
    const { bench, checksums, ledger, files } = await synced();
    current = bench;
    const db = join(bench.dir, 'new', 'gex.duckdb');
    const result = await rebuildWarehouse({ dbPath: db, archiveRoot: bench.archive });
    expect(result).toMatchObject({ source: 'archive', filesReloaded: files, problems: [], damagedCopies: [] });
    expect(await tableChecksums(db)).toEqual(checksums);
    expect(await ledgerOf(db)).toEqual(ledger);
    const credits = bench.emulator.counters.credits(bench.emulator.keys.pro);
    expect((await bench.sync(PAIR, { dbPath: db })).creditsSpent).toBe(0);
    expect(bench.emulator.counters.credits(bench.emulator.keys.pro)).toBe(credits);
  });
});

describe('setAsideDamaged', () => {
  it('never overwrites an earlier copy: a second damage in the same second gets -2', async () => {
    const { dir, cleanup } = makeTempDir();
    try {
      const db = join(dir, 'gex.duckdb');
      writeFileSync(db, 'first');
      expect(await setAsideDamaged(db, AT)).toEqual([`${db}.damaged-${STAMP}`]);
      writeFileSync(db, 'second');
      writeFileSync(`${db}.wal`, 'wal');
      expect(await setAsideDamaged(db, AT)).toEqual([`${db}.damaged-${STAMP}-2`, `${db}.damaged-${STAMP}-2.wal`]);
      expect(readFileSync(`${db}.damaged-${STAMP}`, 'utf8')).toBe('first');
      expect(readFileSync(`${db}.damaged-${STAMP}-2`, 'utf8')).toBe('second');
      expect(existsSync(db) || existsSync(`${db}.wal`)).toBe(false);
    } finally {
      cleanup();
    }
  });
});

describe('what is not damage stays as it was', () => {
  let dir: string;
  let cleanup: () => void;
  beforeAll(() => ({ dir, cleanup } = makeTempDir()));
  afterAll(() => cleanup());

  it('a missing warehouse with an empty archive is a usage error and writes nothing', async () => {
    const archive = join(dir, 'empty-raw');
    mkdirSync(archive);
    const dbPath = join(dir, 'nowhere', 'gex.duckdb');
    await expect(rebuildWarehouse({ dbPath, archiveRoot: archive })).rejects.toThrow(/no warehouse at .* and no archived file under/);
    expect(existsSync(join(dir, 'nowhere'))).toBe(false);
  });

  it('a warehouse path that is a folder fails as it is and is not moved', async () => {
    const archive = join(dir, 'raw');
    mkdirSync(join(archive, 'deribit', 'BTC'), { recursive: true });
    writeFileSync(join(archive, 'deribit', 'BTC', '2026-03-10_levels.csv.gz'), gzipSync('a\n'));
    const dbPath = join(dir, 'a-folder');
    mkdirSync(dbPath);
    const failed = rebuildWarehouse({ dbPath, archiveRoot: archive });
    await expect(failed).rejects.toThrow();
    await expect(failed).rejects.not.toBeInstanceOf(DamagedWarehouseError);
    expect(existsSync(dbPath)).toBe(true);
    expect((await listFiles(dir)).some((f) => f.includes('.damaged-'))).toBe(false);
  });
});

describe('compactUtcStamp', () => {
  it('is the UTC second, safe in a file name', () => {
    expect(compactUtcStamp(AT)).toBe(STAMP);
  });
});
