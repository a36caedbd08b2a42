import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { restoredEachTest } from '../helpers/restored-dir.js';
import { UsageError } from '../../src/core/errors.js';
import { exportWarehouse, partitionPath, type ExportOptions } from '../../src/export/export.js';
import { loadFiles, type LoadInput } from '../../src/warehouse/loader.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/open.js';
import { BTC, levelsRows, query, writeFixture, type Market } from '../warehouse/fixtures.js';
import { FILE_KINDS } from '../../src/core/file-kinds.js';

const BTC2: Market = { ...BTC, sessionDate: '2026-11-21' };
const SPY: Market = { exchange: 'tradfi', symbol: 'SPY', sessionDate: '2026-11-20' };

let dir: string;
let dbPath: string;
let outDir: string;

async function withDb<T>(fn: (wh: Warehouse) => Promise<T>): Promise<T> {
  const wh = await openWarehouse(dbPath);
  try {
    return await fn(wh);
  } finally {
    wh.close();
  }
}

async function load(inputs: LoadInput[]): Promise<void> {
  await withDb(async (wh) => {
    const report = await loadFiles(wh.connection, inputs);
    expect(report.failed).toEqual([]);
  });
}

function allFiles(root: string): string[] {
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

const run = (extra: Partial<ExportOptions> = {}) => exportWarehouse({ dbPath, outDir, ...extra });

// Every test starts from the same loaded warehouse (BTC's two sessions, SPY's one), built once per file.
const loaded = restoredEachTest(async (folder) => {
  dbPath = join(folder, 'gex.duckdb');
  await load([BTC, BTC2, SPY].flatMap((market) => FILE_KINDS.map((kind) => writeFixture(folder, kind, market))));
});

beforeEach(() => {
  dir = loaded.path;
  dbPath = join(dir, 'gex.duckdb');
  outDir = join(dir, 'out');
});

/** Per-partition counts and sums, and the rows that differ between table and export (both ways). */
async function compareWithTables(format: 'parquet' | 'csv'): Promise<void> {
  await withDb(async (wh) => {
    for (const table of FILE_KINDS) {
      const glob = join(outDir, table, '**', `*.${format}`);
      const source =
        format === 'parquet'
          ? `read_parquet('${glob}', hive_partitioning = true)`
          : `((SELECT * FROM ${table} LIMIT 0) UNION ALL BY NAME (SELECT * FROM read_csv('${glob}', hive_partitioning = true, header = true)))`;
      const stats = (from: string) => `SELECT exchange, symbol, session_date::VARCHAR AS d, count(*)::INTEGER AS n, sum(net_gex) AS net
          FROM ${from} GROUP BY ALL ORDER BY ALL`;
      expect(await query(wh, stats(source))).toEqual(await query(wh, stats(table)));
      const differing = await query(
        wh,
        `SELECT count(*)::INTEGER AS n FROM (
          (SELECT * FROM ${table} EXCEPT ALL SELECT * FROM ${source}) UNION ALL (SELECT * FROM ${source} EXCEPT ALL SELECT * FROM ${table}))`,
      );
      expect(differing).toEqual([{ n: 0 }]);
    }
  });
}

describe('exportWarehouse', () => {
  it('writes one file per hive partition that reads back as the same rows', async () => {
    const result = await run();
    expect(result.format).toBe('parquet');
    expect(result.partitionsWritten).toBe(9);
    expect(result.partitionsSkipped).toBe(0);
    expect(result.rowsWritten).toBe((4 + 3 + 4) * 3);
    expect(result.tables.map((t) => [t.table, t.partitionsWritten, t.rowsWritten])).toEqual([
      ['levels', 3, 12],
      ['strikes_total', 3, 9],
      ['strikes_by_expiry', 3, 12],
      ['live_levels', 0, 0],
      ['term_structure', 0, 0],
      ['live_strikes', 0, 0],
    ]);
    expect(allFiles(join(outDir, 'levels'))).toEqual([
      'exchange=bybit/symbol=BTC/session_date=2026-11-20/data.parquet',
      'exchange=bybit/symbol=BTC/session_date=2026-11-21/data.parquet',
      'exchange=tradfi/symbol=SPY/session_date=2026-11-20/data.parquet',
    ]);
    await compareWithTables('parquet');
  });

  it('is incremental: a rerun writes nothing, a new session or a new file version only its partition', async () => {
    await run();
    const again = await run();
    expect([again.partitionsWritten, again.partitionsSkipped, again.rowsWritten]).toEqual([0, 9, 0]);

    const BTC3: Market = { ...BTC, sessionDate: '2026-11-22' };
    await load([writeFixture(dir, 'levels', BTC3), writeFixture(dir, 'levels', SPY, { rows: levelsRows(SPY, 3), name: 'spy-v2.csv.gz' })]);
    const third = await run();
    expect(third.tables[0]).toEqual({ table: 'levels', partitionsWritten: 2, partitionsSkipped: 2, partitionsRemoved: 0, rowsWritten: 4 + 6 });
    expect(third.partitionsWritten).toBe(2);
    expect(allFiles(outDir)).toHaveLength(10);
    await compareWithTables('parquet');

    const full = await run({ full: true });
    expect([full.partitionsWritten, full.partitionsSkipped]).toEqual([10, 0]);
    expect(allFiles(outDir)).toHaveLength(10);
    await compareWithTables('parquet');
  });

  it('rewrites a partition whose file was deleted, and removes one whose rows left the table', async () => {
    await run();
    const { rmSync } = await import('node:fs');
    rmSync(partitionPath(outDir, 'strikes_total', 'parquet', 'tradfi', 'SPY', '2026-11-20'));
    await withDb(async (wh) => {
      await wh.connection.run(`DELETE FROM levels WHERE symbol = 'SPY'`);
    });
    const result = await run();
    expect(result.tables.map((t) => [t.table, t.partitionsWritten, t.partitionsRemoved])).toEqual([
      ['levels', 0, 1],
      ['strikes_total', 1, 0],
      ['strikes_by_expiry', 0, 0],
      ['live_levels', 0, 0],
      ['term_structure', 0, 0],
      ['live_strikes', 0, 0],
    ]);
    expect(allFiles(join(outDir, 'levels'))).not.toContain('exchange=tradfi/symbol=SPY/session_date=2026-11-20/data.parquet');
    await compareWithTables('parquet');
  });

  it('filters by table, exchange, symbol and dates; csv reads back too', async () => {
    const only = await run({ tables: ['levels'], exchanges: ['BYBIT'], since: '2026-11-21', format: 'csv' });
    expect(only.tables.map((t) => t.table)).toEqual(['levels']);
    expect(only.partitionsWritten).toBe(1);
    expect(allFiles(outDir)).toEqual(['levels/exchange=bybit/symbol=BTC/session_date=2026-11-21/data.csv']);
    // The filtered run must not remove partitions outside its filter.
    const all = await run({ format: 'csv' });
    expect([all.partitionsWritten, all.partitionsSkipped, all.partitionsRemoved]).toEqual([8, 1, 0]);
    await compareWithTables('csv');
    const spy = await run({ symbols: ['spy'], until: '2026-11-20', tables: ['strikes_total'] });
    expect(spy.partitionsWritten).toBe(1);
  });

  it('a symbol or venue the warehouse does not hold is a usage error naming the closest held names; nothing written', async () => {
    const typo = await run({ symbols: ['BTX'] }).catch((e: unknown) => e);
    expect(typo).toBeInstanceOf(UsageError);
    expect((typo as Error).message).toBe('BTX: no history in the warehouse (loaded files and the coverage last seen); did you mean BTC?');
    await expect(run({ symbols: ['spy'], exchanges: ['bybit'] })).rejects.toThrow('SPY on bybit: no history; SPY has history on tradfi');
    await expect(run({ exchanges: ['okx'] })).rejects.toThrow(/^okx: no history in the warehouse .*; known venues: bybit, tradfi$/);
    expect(existsSync(outDir)).toBe(false);
  });

  it('a missing warehouse is a usage error (the flags are checked where they are parsed: test/cli/export-flags.test.ts)', async () => {
    await expect(exportWarehouse({ dbPath: join(dir, 'missing.duckdb'), outDir })).rejects.toBeInstanceOf(UsageError);
  });
});

// A tampered warehouse, or a user's own files in the export folder: the export removes only files its
// own last manifest lists, at the paths it makes from valid names, inside --out (links followed).
describe('export removes nothing it did not write', () => {
  const SPY_LEVELS = 'levels/exchange=tradfi/symbol=SPY/session_date=2026-11-20/data.parquet';
  const dropSpyLevels = (sql = '') =>
    withDb(async (wh) => {
      if (sql) await wh.connection.run(sql);
      await wh.connection.run(`DELETE FROM levels WHERE symbol = 'SPY'`);
    });

  it('a ledger row pointing outside --out: the file there stays, the run says so', async () => {
    await run();
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, "not gexwh's");
    await dropSpyLevels(`UPDATE sync.exports SET path = '${victim}' WHERE table_name = 'levels' AND symbol = 'SPY'`);
    const result = await run();
    expect(result.partitionsRemoved).toBe(1);
    expect(readFileSync(victim, 'utf8')).toBe("not gexwh's");
    expect(result.warnings).toEqual([
      `export: left ${victim} in place: the export ledger names it, but the last manifest of ${outDir} does not list it as one of its files`,
    ]);
    // The ledger row is gone all the same: the next run has nothing to say.
    expect((await run()).warnings).toEqual([]);
  });

  it('a ledger row whose names climb out of the folder is not followed', async () => {
    await run();
    // exchange = 'tradfi/../../../elsewhere': the path the ledger records resolves to <dir>/elsewhere/...
    const victim = join(dir, 'elsewhere', 'symbol=SPY', 'session_date=2026-11-20', 'data.parquet');
    mkdirSync(join(victim, '..'), { recursive: true });
    writeFileSync(victim, 'precious');
    const climbing = `${outDir}/levels/exchange=tradfi/../../../elsewhere/symbol=SPY/session_date=2026-11-20/data.parquet`;
    await dropSpyLevels(`UPDATE sync.exports SET exchange = 'tradfi/../../../elsewhere', path = '${climbing}' WHERE table_name = 'levels' AND symbol = 'SPY'`);
    const result = await run();
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(result.warnings).toEqual([
      `export: left ${climbing} in place: the export ledger names it, but the last manifest of ${outDir} does not list it as one of its files`,
    ]);
  });

  it('a file the last manifest does not list is not removed, even at a path the export makes', async () => {
    await run();
    // The manifest is replaced by one that lists nothing (a user's edit, or another tool's export).
    const manifest = join(outDir, '_gexwh_export.json');
    writeFileSync(manifest, JSON.stringify({ manifest_version: 1, objects: [] }));
    await dropSpyLevels();
    const result = await run();
    expect(existsSync(join(outDir, SPY_LEVELS))).toBe(true);
    expect(result.warnings).toHaveLength(1);
  });

  it('a partition folder that is a link to somewhere else: the file behind it stays', async () => {
    await run();
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'data.parquet'), "someone else's");
    const folder = join(outDir, SPY_LEVELS, '..');
    renameSync(folder, `${folder}.moved`);
    symlinkSync(elsewhere, folder);
    await dropSpyLevels();
    const result = await run();
    expect(readFileSync(join(elsewhere, 'data.parquet'), 'utf8')).toBe("someone else's");
    expect(result.warnings).toEqual([`export: left ${join(outDir, SPY_LEVELS)} in place: it is not a file inside ${outDir}`]);
  });

  it("a user's folder named like the staging folder is left whole and named; the run's own staging folder is gone", async () => {
    const mine = join(outDir, '.gexwh-export-mine');
    mkdirSync(join(mine, 'notes'), { recursive: true });
    writeFileSync(join(mine, 'notes', 'todo.txt'), 'keep me');
    const result = await run();
    expect(readFileSync(join(mine, 'notes', 'todo.txt'), 'utf8')).toBe('keep me');
    expect(result.warnings).toEqual([
      `export: ${mine} looks like the staging folder of a cut export; gexwh leaves it alone: remove it when no export is running`,
    ]);
    expect(readdirSync(outDir).filter((name) => name.startsWith('.'))).toEqual(['.gexwh-export-mine']);
  });
});
