// sql/views.sql is the one definition of the views and macros: an existing warehouse (migrated up to
// the last version before it) upgrades to the very same definitions, a fresh one gets them, the file
// is applied once per change, and an edit of the file reaches a warehouse at its next open.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findSqlDir } from '../../src/warehouse/sql-dir.js';
import { VIEWS_FILE } from '../../src/warehouse/migrations.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/open.js';
import { makeTempDir, query } from './fixtures.js';

/**
 * Each user view's and macro's definition as DuckDB normalised it (comments and layout gone). A macro
 * read back from the file quotes its type names, one created in this session does not, and an
 * EXCLUDE list prints in hash order: both made canonical here.
 */
async function definitions(wh: Warehouse): Promise<Array<Record<string, unknown>>> {
  return query(
    wh,
    `SELECT view_name AS name, sql AS definition FROM duckdb_views() WHERE NOT internal AND schema_name = 'main'
     UNION ALL
     SELECT function_name,
            replace(replace(macro_definition, '"TIMESTAMP WITH TIME ZONE"', 'TIMESTAMP WITH TIME ZONE'), 'EXCLUDE (symbol, exchange)', 'EXCLUDE (exchange, symbol)')
              || ' ' || list_sort(parameters)::VARCHAR
       FROM duckdb_functions()
      WHERE NOT internal AND schema_name = 'main' AND function_type = 'table_macro'
     ORDER BY name`,
  );
}

async function withDb<T>(path: string, options: Parameters<typeof openWarehouse>[1], fn: (wh: Warehouse) => Promise<T>): Promise<T> {
  const wh = await openWarehouse(path, options);
  try {
    return await fn(wh);
  } finally {
    wh.close();
  }
}

describe('sql/views.sql, the one definition of the views', () => {
  it('an existing warehouse upgrades to exactly the definitions the numbered migrations had left', async () => {
    const { dir, cleanup } = makeTempDir();
    try {
      const db = join(dir, 'old.duckdb');
      const before = await withDb(db, { migrations: { upTo: 40 } }, definitions);
      expect(before.map((row) => row.name)).toEqual([
        'levels_asof',
        'levels_close',
        'levels_compare',
        'levels_expiry',
        'levels_total',
        'pit_levels',
        'strikes',
        'strikes_asof',
        'strikes_expiry',
      ]);
      const after = await withDb(db, {}, async (wh) => {
        expect(await query(wh, `SELECT name FROM sync.definitions`)).toEqual([{ name: 'views' }]);
        return definitions(wh);
      });
      // Every definition as the numbered migrations left it but levels_close, which joins the close
      // marker of migration 52 since, and those views.sql added after them (the nearest walls); a fresh
      // warehouse ends the same as the upgraded one.
      const later = ['levels_close', 'levels_nearest_walls', 'nearest_walls', 'regime_returns', 'flip_crossings'];
      const unchanged = (rows: typeof before) => rows.filter((row) => !later.includes(String(row.name)));
      expect(unchanged(after)).toEqual(unchanged(before));
      expect(after.find((row) => row.name === 'levels_close')).not.toEqual(before.find((row) => row.name === 'levels_close'));
      expect(await withDb(join(dir, 'fresh.duckdb'), {}, definitions)).toEqual(after);
    } finally {
      cleanup();
    }
  });

  it('is applied once per text: unchanged at the next open, applied again once edited', async () => {
    const { dir, cleanup } = makeTempDir();
    try {
      const sqlDir = join(dir, 'sql');
      mkdirSync(sqlDir);
      for (const name of readdirSync(findSqlDir())) copyFileSync(join(findSqlDir(), name), join(sqlDir, name));
      const db = join(dir, 'gex.duckdb');
      const stamp = (wh: Warehouse) => query(wh, `SELECT sha256, applied_at::VARCHAR AS at FROM sync.definitions`);
      const first = await withDb(db, { migrations: { dir: sqlDir } }, stamp);
      expect(await withDb(db, { migrations: { dir: sqlDir } }, stamp)).toEqual(first);

      const edited =
        readFileSync(join(sqlDir, VIEWS_FILE), 'utf8') + '\nCREATE OR REPLACE VIEW levels_close_count AS SELECT count(*) AS n FROM levels_close;\n';
      writeFileSync(join(sqlDir, VIEWS_FILE), edited);
      await withDb(db, { migrations: { dir: sqlDir } }, async (wh) => {
        expect(await query(wh, 'SELECT n::INTEGER AS n FROM levels_close_count')).toEqual([{ n: 0 }]);
        expect((await stamp(wh))[0]?.sha256).not.toBe(first[0]?.sha256);
      });
    } finally {
      cleanup();
    }
  });

  it('a failing views file changes nothing and names itself', async () => {
    const { dir, cleanup } = makeTempDir();
    try {
      const sqlDir = join(dir, 'sql');
      mkdirSync(sqlDir);
      for (const name of readdirSync(findSqlDir())) copyFileSync(join(findSqlDir(), name), join(sqlDir, name));
      const db = join(dir, 'gex.duckdb');
      const good = await withDb(db, { migrations: { dir: sqlDir } }, definitions);
      writeFileSync(join(sqlDir, VIEWS_FILE), 'CREATE OR REPLACE VIEW levels_total AS SELECT 1 AS one;\nSELECT * FROM no_such_table;\n');
      await expect(openWarehouse(db, { migrations: { dir: sqlDir } })).rejects.toThrow(/views\.sql failed/);
      copyFileSync(join(findSqlDir(), VIEWS_FILE), join(sqlDir, VIEWS_FILE));
      expect(await withDb(db, { migrations: { dir: sqlDir } }, definitions)).toEqual(good);
    } finally {
      cleanup();
    }
  });
});
