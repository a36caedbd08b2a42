// The write path of `gexwh export`: stale partitions cut into runs, one partitioned COPY per run
// into a hidden staging folder, files renamed into place. Pure planning first, then the I/O: one
// file per partition even when DuckDB splits a partition over several files, partition columns
// inside the files, nothing half-written or staged left behind after a failure or a crash.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { beforeEach, describe, expect, it } from 'vitest';
import { EXPORT_TABLES, exportOn, exportWarehouse, normalizeExportOptions, onlyFileIn, partitionPath } from '../../src/export/export.js';
import { loadFiles } from '../../src/warehouse/loader.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/open.js';
import { BTC, levelsRows, makeTempDir, query, writeFixture, type Market } from '../warehouse/fixtures.js';
import { FILE_KINDS } from '../../src/core/file-kinds.js';
import { copyRuns, stalePartitions, type ExportedPartition, type Partition } from '../../src/export/copy-runs.js';
import { ledgerPartitions, scannedPartitions, tableLayout } from '../../src/export/partitions.js';
import { localTarget } from '../../src/export/target.js';
import { restoredEachTest } from '../helpers/restored-dir.js';

const part = (exchange: string, symbol: string, sessionDate: string, fingerprint = 'f'): Partition => ({ exchange, symbol, sessionDate, rows: 1, fingerprint });

describe('copyRuns (pure)', () => {
  const a1 = part('bybit', 'BTC', '2026-11-01');
  const a2 = part('bybit', 'BTC', '2026-11-02');
  const a3 = part('bybit', 'BTC', '2026-11-03');
  const a4 = part('bybit', 'BTC', '2026-11-04');
  const b1 = part('bybit', 'ETH', '2026-11-01');
  const c1 = part('tradfi', 'SPY', '2026-11-02');
  const all = [a1, a2, a3, a4, b1, c1];
  const key = (p: Partition) => `${p.symbol}@${p.sessionDate.slice(8)}`;
  const shape = (stale: Partition[], max = 64) =>
    copyRuns(all, new Set(stale), max).map((run) => [run.firstDate, run.lastDate, run.partitions.map(key).sort().join(' '), run.whole]);

  it('one run over every pair when everything is stale: the date range alone selects it', () => {
    expect(shape(all)).toEqual([['2026-11-01', '2026-11-04', 'BTC@01 BTC@02 BTC@03 BTC@04 ETH@01 SPY@02', true]]);
  });

  it('one new session of every pair is one run, whatever the pairs', () => {
    expect(shape([a2, c1])).toEqual([['2026-11-02', '2026-11-02', 'BTC@02 SPY@02', true]]);
  });

  it('a date with nothing stale ends a run; a date only partly stale joins the keys', () => {
    expect(shape([a1, a2, a4, c1])).toEqual([
      ['2026-11-01', '2026-11-02', 'BTC@01 BTC@02 SPY@02', false],
      ['2026-11-04', '2026-11-04', 'BTC@04', true],
    ]);
    expect(shape([a1, b1, a2])).toEqual([['2026-11-01', '2026-11-02', 'BTC@01 BTC@02 ETH@01', false]]);
  });

  it('runs hold at most max partitions, a crowded date is cut into keyed runs, and nothing stale means no run', () => {
    expect(shape([a1, a2, a3, a4], 3)).toEqual([
      ['2026-11-01', '2026-11-03', 'BTC@01 BTC@02 BTC@03', false],
      ['2026-11-04', '2026-11-04', 'BTC@04', true],
    ]);
    expect(shape(all, 1)).toEqual([
      ['2026-11-01', '2026-11-01', 'BTC@01', false],
      ['2026-11-01', '2026-11-01', 'ETH@01', false],
      ['2026-11-02', '2026-11-02', 'BTC@02', false],
      ['2026-11-02', '2026-11-02', 'SPY@02', false],
      ['2026-11-03', '2026-11-03', 'BTC@03', true],
      ['2026-11-04', '2026-11-04', 'BTC@04', true],
    ]);
    expect(shape([])).toEqual([]);
  });
});

describe('stalePartitions (pure)', () => {
  const pathOf = (p: Partition) => `/out/${p.sessionDate}`;
  const done = (p: Partition, over: Partial<ExportedPartition> = {}): [string, ExportedPartition] => [
    `${p.exchange}|${p.symbol}|${p.sessionDate}`,
    { exchange: p.exchange, symbol: p.symbol, sessionDate: p.sessionDate, fingerprint: p.fingerprint, path: pathOf(p), sha256: null, bytes: null, ...over },
  ];
  const same = part('bybit', 'BTC', '2026-11-01');
  const changed = part('bybit', 'BTC', '2026-11-02', 'new');
  const moved = part('bybit', 'BTC', '2026-11-03');
  const deleted = part('bybit', 'BTC', '2026-11-04');
  const fresh = part('bybit', 'BTC', '2026-11-05');
  const exported = new Map([done(same), done(changed, { fingerprint: 'old' }), done(moved, { path: '/elsewhere' }), done(deleted)]);
  const exists = (path: string) => path !== pathOf(deleted);

  it('new, changed, moved and deleted-by-hand partitions are stale; the rest are skipped unless full', () => {
    const partitions = [same, changed, moved, deleted, fresh];
    expect(stalePartitions(partitions, exported, pathOf, false, exists)).toEqual([changed, moved, deleted, fresh]);
    expect(stalePartitions(partitions, exported, pathOf, true, exists)).toEqual(partitions);
  });
});

describe('onlyFileIn', () => {
  it('returns the single file of a folder, null for none, several or no folder', () => {
    const { dir, cleanup } = makeTempDir();
    try {
      expect(onlyFileIn(join(dir, 'missing'))).toBeNull();
      expect(onlyFileIn(dir)).toBeNull();
      writeFileSync(join(dir, 'data_0.tmp'), 'x');
      expect(onlyFileIn(dir)).toBe(join(dir, 'data_0.tmp'));
      writeFileSync(join(dir, 'data_1.tmp'), 'y');
      expect(onlyFileIn(dir)).toBeNull();
    } finally {
      cleanup();
    }
  });
});

let dir: string;
let dbPath: string;
let outDir: string;
const BTC2: Market = { ...BTC, sessionDate: '2026-11-21' };
const BTC3: Market = { ...BTC, sessionDate: '2026-11-22' };

async function withDb<T>(fn: (wh: Warehouse) => Promise<T>): Promise<T> {
  const wh = await openWarehouse(dbPath);
  try {
    return await fn(wh);
  } finally {
    wh.close();
  }
}

function allFiles(root: string): string[] {
  if (!existsSync(root)) return [];
  const found: string[] = [];
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else found.push(relative(root, path));
    }
  };
  walk(root);
  // Files at the root (views.sql ...) and the runs describe the export; the data is in the table folders.
  return found.filter((path) => path.includes(sep) && !path.startsWith(`runs${sep}`)).sort();
}

/** Every table read back from its files must equal the table (both ways, duplicates counted). */
async function expectExportEqualsTables(wh: Warehouse, tables: readonly string[] = FILE_KINDS): Promise<void> {
  for (const table of tables) {
    const source = `read_parquet('${join(outDir, table, '**', '*.parquet')}', hive_partitioning = true)`;
    const differing = await query(
      wh,
      `SELECT count(*)::INTEGER AS n FROM (
        (SELECT * FROM ${table} EXCEPT ALL SELECT * FROM ${source}) UNION ALL (SELECT * FROM ${source} EXCEPT ALL SELECT * FROM ${table}))`,
    );
    expect(differing, table).toEqual([{ n: 0 }]);
  }
}

/** The connection, with every partitioned COPY it runs recorded (statement and parameters). */
function recordingCopies(conn: DuckDBConnection, copies: Array<{ sql: string; params: unknown[] }>): DuckDBConnection {
  return recording(conn, /PARTITION_BY/, copies);
}

/** The connection, with every statement matching `pattern` it runs recorded (statement and parameters). */
function recording(conn: DuckDBConnection, pattern: RegExp, seen: Array<{ sql: string; params: unknown[] }>): DuckDBConnection {
  return new Proxy(conn, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (sql: unknown, params?: unknown[]) => {
        if (prop === 'run' && typeof sql === 'string' && pattern.test(sql)) seen.push({ sql, params: params ?? [] });
        return (value as (...args: unknown[]) => unknown).call(target, sql, params);
      };
    },
  });
}

/** The partitions a recorded COPY's query selects, by running that query alone with the same parameters. */
async function rowsSelectedBy(wh: Warehouse, copy: { sql: string; params: unknown[] }): Promise<string[][]> {
  const inner = /^\s*COPY \((SELECT .*)\)\s+TO \$7 /s.exec(copy.sql)?.[1];
  expect(inner, copy.sql).toBeDefined();
  const reader = await wh.connection.runAndReadAll(
    // $7 is the COPY's folder: named here too, so the parameters are the COPY's own.
    `SELECT DISTINCT exchange, symbol, session_date::VARCHAR FROM (${inner}) WHERE $7::VARCHAR IS NOT NULL ORDER BY ALL`,
    copy.params as never,
  );
  return reader.getRowsJS().map((row) => row.map(String));
}

// The warehouse every write test starts from (three sessions of bybit BTC, every file kind loaded),
// built once per file and put back before each test.
const loaded = restoredEachTest(async (folder) => {
  const wh = await openWarehouse(join(folder, 'gex.duckdb'));
  try {
    const report = await loadFiles(
      wh.connection,
      [BTC, BTC2, BTC3].flatMap((market) => FILE_KINDS.map((kind) => writeFixture(folder, kind, market))),
    );
    expect(report.failed).toEqual([]);
  } finally {
    wh.close();
  }
});

beforeEach(() => {
  dir = loaded.path;
  dbPath = join(dir, 'gex.duckdb');
  outDir = join(dir, 'out');
});

describe('the partitioned write', () => {
  it('files keep the partition columns, in the table’s column order', async () => {
    await exportWarehouse({ dbPath, outDir });
    await withDb(async (wh) => {
      for (const table of FILE_KINDS) {
        const file = partitionPath(outDir, table, 'parquet', 'bybit', 'BTC', '2026-11-21');
        const inFile = await query(wh, `SELECT column_name FROM (DESCRIBE SELECT * FROM read_parquet('${file}', hive_partitioning = false))`);
        const inTable = await query(wh, `SELECT column_name FROM (DESCRIBE SELECT * FROM ${table})`);
        expect(inFile, table).toEqual(inTable);
      }
    });
  });

  it('the export lets DuckDB keep the memory its COPYs used (up to the memory limit), so the next COPY does not fault it in again', async () => {
    await withDb(async (wh) => {
      const setting = `SELECT current_setting('block_allocator_memory') AS kept, current_setting('memory_limit') AS "limit"`;
      const [before] = await query(wh, setting);
      expect(before?.kept).toBe('0 bytes');
      await exportOn(wh.connection, normalizeExportOptions({ outDir }));
      const [after] = await query(wh, setting);
      // DuckDB prints both rounded ('18.7 GiB' kept of an '18.8 GiB' limit): the same size to a rounding.
      const [kept, keptUnit] = String(after?.kept).split(' ');
      const [limit, limitUnit] = String(after?.limit).split(' ');
      expect(keptUnit).toBe(limitUnit);
      expect(Number(kept)).toBeGreaterThan(0);
      expect(Number(kept)).toBeCloseTo(Number(limit), 0);
    });
  });

  it('still one file per partition when DuckDB splits partitions over several files', async () => {
    await withDb(async (wh) => {
      // Three sessions whose rows interleave in the table, big enough for many DataChunks, and
      // settings that make a partitioned COPY close and reopen partition files: check they do.
      await wh.connection.run(
        `INSERT INTO strikes_total
         SELECT 'bybit', 'ETH', DATE '2026-11-20' + (i % 3)::INTEGER, TIMESTAMPTZ '2026-11-20 00:00:00+00' + to_seconds(i), i, 1, 2, 3, 4, 5, 1
           FROM range(30000) r(i)`,
      );
      await wh.connection.run('SET partitioned_write_max_open_files = 1');
      await wh.connection.run('SET partitioned_write_flush_threshold = 1');
      const probe = join(dir, 'probe');
      mkdirSync(probe);
      await wh.connection.run(
        `COPY (SELECT * FROM strikes_total WHERE symbol = 'ETH') TO '${probe}' (FORMAT parquet, PARTITION_BY (exchange, symbol, session_date))`,
      );
      expect(allFiles(probe).length).toBeGreaterThan(3);

      const result = await exportOn(wh.connection, normalizeExportOptions({ outDir }));
      expect(result.partitionsWritten).toBe(12);
      const days = ['2026-11-20', '2026-11-21', '2026-11-22'];
      expect(allFiles(join(outDir, 'strikes_total'))).toEqual([
        ...days.map((d) => `exchange=bybit/symbol=BTC/session_date=${d}/data.parquet`),
        ...days.map((d) => `exchange=bybit/symbol=ETH/session_date=${d}/data.parquet`),
      ]);
      await expectExportEqualsTables(wh);
    });
    expect(readdirSync(outDir).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it('one new session of two pairs is one partitioned COPY per table, which selects exactly its partitions, and one ledger write', async () => {
    await exportWarehouse({ dbPath, outDir });
    const BTC4: Market = { ...BTC, sessionDate: '2026-11-23' };
    const SPY4: Market = { exchange: 'tradfi', symbol: 'SPY', sessionDate: '2026-11-23' };
    await withDb(async (wh) => {
      const report = await loadFiles(
        wh.connection,
        [BTC4, SPY4].flatMap((market) => FILE_KINDS.map((kind) => writeFixture(dir, kind, market))),
      );
      expect(report.failed).toEqual([]);
      const copies: Array<{ sql: string; params: unknown[] }> = [];
      const ledgerWrites: Array<{ sql: string; params: unknown[] }> = [];
      const result = await exportOn(recordingCopies(recording(wh.connection, /INTO sync\.exports/, ledgerWrites), copies), normalizeExportOptions({ outDir }));
      expect(result.tables.slice(0, 3).map((t) => [t.table, t.partitionsWritten, t.partitionsSkipped])).toEqual(FILE_KINDS.map((table) => [table, 2, 3]));
      expect(copies).toHaveLength(3);
      expect(ledgerWrites, 'the three tables recorded in one statement').toHaveLength(1);
      for (const copy of copies)
        expect(await rowsSelectedBy(wh, copy)).toEqual([
          ['bybit', 'BTC', '2026-11-23'],
          ['tradfi', 'SPY', '2026-11-23'],
        ]);
      await expectExportEqualsTables(wh);
    });
  });

  it('a session only partly stale is written by a COPY joined with its keys: the fresh pair of that date is not read', async () => {
    const SPY: Market = { exchange: 'tradfi', symbol: 'SPY', sessionDate: '2026-11-22' };
    await withDb(async (wh) => {
      expect(
        (
          await loadFiles(
            wh.connection,
            FILE_KINDS.map((kind) => writeFixture(dir, kind, SPY)),
          )
        ).failed,
      ).toEqual([]);
    });
    await exportWarehouse({ dbPath, outDir, tables: ['levels'] });
    const before = statSync(partitionPath(outDir, 'levels', 'parquet', 'bybit', 'BTC', '2026-11-22')).mtimeMs;
    await withDb(async (wh) => {
      // A new version of SPY's levels of 11-22 (BTC's of that date unchanged) and BTC's levels of a new day.
      const report = await loadFiles(wh.connection, [
        writeFixture(dir, 'levels', SPY, { rows: levelsRows(SPY, 3), name: 'spy-v2.csv.gz' }),
        writeFixture(dir, 'levels', { ...BTC, sessionDate: '2026-11-23' }),
      ]);
      expect(report.failed).toEqual([]);
      const copies: Array<{ sql: string; params: unknown[] }> = [];
      const result = await exportOn(recordingCopies(wh.connection, copies), normalizeExportOptions({ outDir, tables: ['levels'] }));
      expect(result.partitionsWritten).toBe(2);
      expect(copies).toHaveLength(1);
      expect(await rowsSelectedBy(wh, copies[0]!)).toEqual([
        ['bybit', 'BTC', '2026-11-23'],
        ['tradfi', 'SPY', '2026-11-22'],
      ]);
      await expectExportEqualsTables(wh, ['levels']);
    });
    expect(statSync(partitionPath(outDir, 'levels', 'parquet', 'bybit', 'BTC', '2026-11-22')).mtimeMs).toBe(before);
  });

  it('a failed rename leaves the other files as they were, no staging folder, and the next run catches up', async () => {
    await exportWarehouse({ dbPath, outDir });
    const levels2 = partitionPath(outDir, 'levels', 'parquet', 'bybit', 'BTC', '2026-11-21');
    const before = statSync(partitionPath(outDir, 'levels', 'parquet', 'bybit', 'BTC', '2026-11-20')).mtimeMs;
    // New versions of two sessions; the target of one of them is blocked by a folder.
    await withDb(async (wh) => {
      const report = await loadFiles(wh.connection, [
        writeFixture(dir, 'levels', BTC2, { rows: levelsRows(BTC2, 3), name: 'btc2-v2.csv.gz' }),
        writeFixture(dir, 'levels', BTC3, { rows: levelsRows(BTC3, 3), name: 'btc3-v2.csv.gz' }),
      ]);
      expect(report.failed).toEqual([]);
    });
    rmSync(levels2);
    mkdirSync(join(levels2, 'blocker'), { recursive: true });
    await expect(exportWarehouse({ dbPath, outDir })).rejects.toThrow();
    expect(readdirSync(outDir).filter((name) => name.startsWith('.'))).toEqual([]);
    expect(allFiles(outDir).filter((path) => !path.endsWith('.parquet') && !path.endsWith('blocker'))).toEqual([]);
    expect(statSync(partitionPath(outDir, 'levels', 'parquet', 'bybit', 'BTC', '2026-11-20')).mtimeMs).toBe(before);

    rmSync(levels2, { recursive: true });
    const again = await exportWarehouse({ dbPath, outDir });
    expect(again.tables[0]).toMatchObject({ table: 'levels', partitionsWritten: 2, partitionsSkipped: 1 });
    await withDb(expectExportEqualsTables);
  });

  it('a failed run still records what earlier runs put in place (the ledger is written in batches): the rerun writes only the rest', async () => {
    await exportWarehouse({ dbPath, outDir });
    const BTC4: Market = { ...BTC, sessionDate: '2026-11-23' };
    await withDb(async (wh) => {
      expect(
        (
          await loadFiles(
            wh.connection,
            FILE_KINDS.map((kind) => writeFixture(dir, kind, BTC4)),
          )
        ).failed,
      ).toEqual([]);
    });
    // The last table's new partition cannot be renamed into place: a folder stands there.
    const blocked = partitionPath(outDir, 'strikes_by_expiry', 'parquet', 'bybit', 'BTC', '2026-11-23');
    mkdirSync(join(blocked, 'blocker'), { recursive: true });
    await expect(exportWarehouse({ dbPath, outDir })).rejects.toThrow();
    rmSync(blocked, { recursive: true });
    const again = await exportWarehouse({ dbPath, outDir });
    expect(again.tables.slice(0, 3).map((t) => [t.table, t.partitionsWritten])).toEqual([
      ['levels', 0],
      ['strikes_total', 0],
      ['strikes_by_expiry', 1],
    ]);
    await withDb(expectExportEqualsTables);
  });

  it('a staging folder left by a crashed run is named, not removed (the export cannot prove it wrote it), and its files never look like data', async () => {
    const leftover = join(outDir, '.gexwh-export-deadbeef0000', 'exchange=bybit', 'symbol=BTC', 'session_date=2026-11-20');
    mkdirSync(leftover, { recursive: true });
    writeFileSync(join(leftover, 'data_0.tmp'), 'half a file');
    const result = await exportWarehouse({ dbPath, outDir });
    expect(existsSync(join(leftover, 'data_0.tmp'))).toBe(true);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toContain('.gexwh-export-deadbeef0000');
    expect(allFiles(outDir).filter((path) => !path.startsWith('.gexwh-export-'))).toHaveLength(9);
    expect(allFiles(outDir).every((path) => path.endsWith('/data.parquet') || path.startsWith('.gexwh-export-'))).toBe(true);
  });
});

// An incremental export must not scan a multi-year table to learn its partitions: the ledger says
// which file versions each partition holds and how many rows. The ledger's answer must be the scan's,
// fingerprints included (so exports made before keep their partitions), and any count that does not
// add up sends the export back to the scan.
describe('the tables at once', () => {
  it("each table is written on a connection of its own; the ledger's connection runs one statement at a time, uploads recorded as they land", async () => {
    await withDb(async (wh) => {
      const onMain: Array<{ sql: string; params: unknown[] }> = [];
      const lanes: Array<Array<{ sql: string; params: unknown[] }>> = [];
      // A target that uploads (local: false) records each file as it lands, so the tables ask for
      // ledger writes at once. Each waits here until every table has placed its first file: a
      // write not made one at a time would find the others' already waiting.
      let placed!: () => void;
      const allPlaced = new Promise<void>((resolve) => (placed = resolve));
      let inFlight = 0;
      let most = 0;
      const ledger = new Proxy(recordingCopies(wh.connection, onMain), {
        get(target, prop, receiver) {
          const value: unknown = Reflect.get(target, prop, receiver);
          if (typeof value !== 'function' || prop !== 'run') return value;
          return async (sql: string, params?: unknown[]) => {
            if (!sql.includes('INTO sync.exports')) return (value as (...args: unknown[]) => unknown).call(target, sql, params);
            most = Math.max(most, ++inFlight);
            try {
              await allPlaced;
              return await (value as (...args: unknown[]) => Promise<unknown>).call(target, sql, params);
            } finally {
              inFlight -= 1;
            }
          };
        },
      });
      const result = await exportOn(ledger, normalizeExportOptions({ outDir }), {
        connect: async () => {
          const lane: Array<{ sql: string; params: unknown[] }> = [];
          lanes.push(lane);
          return recordingCopies(await wh.connect(), lane);
        },
        target: { ...localTarget(outDir), local: false },
        onProgress: (done) => {
          if (done === FILE_KINDS.length) setImmediate(placed);
        },
      });
      expect(result.partitionsWritten).toBe(9);
      expect(onMain).toEqual([]);
      // One lane per table, the live tables' too (they hold nothing here, so they copy nothing).
      expect(lanes.map((lane) => lane.map((copy) => /FROM (\w+) WHERE/.exec(copy.sql)?.[1]))).toEqual(
        EXPORT_TABLES.map((table) => (FILE_KINDS.includes(table as never) ? [table] : [])),
      );
      expect(most).toBe(1);
      expect(await query(wh, 'SELECT table_name, count(*)::INTEGER AS n FROM sync.exports GROUP BY ALL ORDER BY ALL')).toEqual(
        FILE_KINDS.map((table_name) => ({ table_name, n: 3 })).sort((a, b) => a.table_name.localeCompare(b.table_name)),
      );
      await expectExportEqualsTables(wh);
    });
  });
});

describe('partitions from the ledger', () => {
  const both = (wh: Warehouse, table: 'levels' | 'strikes_total' | 'strikes_by_expiry', filters: Parameters<typeof normalizeExportOptions>[0] = { outDir }) =>
    tableLayout(wh.connection, table).then(async (layout) => {
      const selection = normalizeExportOptions(filters);
      return {
        ledger: await ledgerPartitions(wh.connection, table, selection, layout),
        scan: await scannedPartitions(wh.connection, table, selection, layout),
      };
    });

  it("are the scan's, fingerprints included, with and without filters, api fills counted", async () => {
    await withDb(async (wh) => {
      // A fill of a session without a file: rows whose source is api, counted apart from the ledger's.
      await wh.connection.run(`INSERT INTO levels (exchange, symbol, session_date, timestamp_utc, type, expiration, source)
                               VALUES ('bybit', 'BTC', DATE '2026-11-23', TIMESTAMPTZ '2026-11-23 10:00:00+00', 'intraday', 'TOTAL', 'api')`);
      for (const table of FILE_KINDS) {
        const { ledger, scan } = await both(wh, table);
        expect(scan.length).toBeGreaterThanOrEqual(3);
        expect(ledger, table).toEqual(scan);
        const filtered = await both(wh, table, { outDir, since: '2026-11-21', symbols: ['BTC'] });
        expect(filtered.ledger, table).toEqual(filtered.scan);
        expect(filtered.scan.length).toBeLessThan(scan.length);
      }
    });
  });

  it('step aside when the table does not hold what the ledger says (rows deleted by hand)', async () => {
    await withDb(async (wh) => {
      await wh.connection.run(`DELETE FROM strikes_total WHERE session_date = DATE '2026-11-21' AND strike = (SELECT min(strike) FROM strikes_total)`);
      const { ledger, scan } = await both(wh, 'strikes_total');
      expect(ledger).toBeNull();
      expect(scan.find((p) => p.sessionDate === '2026-11-21')).toBeDefined();
    });
  });
});
