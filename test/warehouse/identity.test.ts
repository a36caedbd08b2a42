// What a --db file is (warehouse/identity.ts), and the migration that makes recorded archive paths
// relative to the archive root (sql/060).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { duckdb } from '../../src/warehouse/duckdb.js';
import { hasDuckDbHeader, identifyDbFile } from '../../src/warehouse/identity.js';
import { openWarehouse } from '../../src/warehouse/open.js';
import { makeTempDir, query } from './fixtures.js';

describe('identifyDbFile', () => {
  it("tells a warehouse of gexwh from a text file, another program's database, an empty one and a damaged one", async () => {
    const { dir, cleanup } = makeTempDir();
    try {
      const warehouse = join(dir, 'gex.duckdb');
      (await openWarehouse(warehouse)).close();
      expect(await identifyDbFile(warehouse)).toBe('gexwh');
      expect(await identifyDbFile(join(dir, 'none.duckdb'))).toBe('missing');
      writeFileSync(join(dir, 'important.conf'), 'user=me\n');
      expect(await identifyDbFile(join(dir, 'important.conf'))).toBe('not_duckdb');
      expect(await identifyDbFile(dir)).toBe('not_duckdb');

      const instance = await duckdb.DuckDBInstance.create(join(dir, 'other.duckdb'));
      const connection = await instance.connect();
      await connection.run('CREATE TABLE notes (t VARCHAR)');
      connection.closeSync();
      instance.closeSync();
      expect(await identifyDbFile(join(dir, 'other.duckdb'))).toBe('foreign');
      const empty = await duckdb.DuckDBInstance.create(join(dir, 'empty.duckdb'));
      empty.closeSync();
      expect(await identifyDbFile(join(dir, 'empty.duckdb'))).toBe('empty');

      // Garbage over the main header (where DUCK is): the database headers after it still say DuckDB.
      const bytes = readFileSync(warehouse);
      bytes.fill(0x5a, 0, 4096);
      writeFileSync(join(dir, 'wiped.duckdb'), bytes);
      expect(hasDuckDbHeader(join(dir, 'wiped.duckdb'))).toBe(true);
      expect(await identifyDbFile(join(dir, 'wiped.duckdb'))).toBe('damaged');
      bytes.fill(0x5a, 0, 3 * 4096); // every header gone: nothing says it was ever DuckDB's
      writeFileSync(join(dir, 'gone.duckdb'), bytes);
      expect(await identifyDbFile(join(dir, 'gone.duckdb'))).toBe('not_duckdb');
    } finally {
      cleanup();
    }
  });
});

describe('migration 060: archive paths relative to the archive root', () => {
  it("keeps the name of a path an older version recorded, and forgets any path that is not the row's own name", async () => {
    const { dir, cleanup } = makeTempDir();
    const db = join(dir, 'gex.duckdb');
    try {
      const old = await openWarehouse(db, { migrations: { upTo: 52 } });
      const sha = 'ab'.repeat(32);
      const rows: [string, string, string | null][] = [
        ['2026-03-01', 'levels', '/home/u/data/raw/deribit/BTC/2026-03-01_levels.csv.gz'],
        ['2026-03-02', 'levels', 'data/raw/deribit/BTC/2026-03-02_levels.csv.gz'],
        ['2026-03-03', 'levels', `/home/u/data/raw/deribit/BTC/2026-03-03_levels.${sha.slice(0, 12)}.csv.gz`],
        ['2026-03-04', 'levels', '/etc/passwd'],
        ['2026-03-05', 'levels', `/tmp/x/2026-03-05_levels.${sha.slice(0, 12)}.csv.gz`],
        ['2026-03-06', 'levels', 'data/raw/deribit/BTC/2026-03-01_levels.csv.gz'],
        ['2026-03-07', 'levels', '../../deribit/BTC/2026-03-07_levels.csv.gz'],
        ['2026-03-08', 'strikes_total', 'C:\\gex\\raw\\deribit\\BTC\\2026-03-08_strikes_total.csv.gz'],
        ['2026-03-09', 'levels', null],
      ];
      for (const [date, file, path] of rows) {
        await old.connection.run(
          `INSERT INTO sync.files (exchange, symbol, session_date, file, sha256, archive_path, status, updated_at) VALUES ('deribit', 'BTC', $1::DATE, $2, $3, $4, 'loaded', now())`,
          [date, file, sha, path],
        );
      }
      old.close();
      const migrated = await openWarehouse(db);
      try {
        expect(await query(migrated, `SELECT session_date::VARCHAR d, archive_path p FROM sync.files ORDER BY 1`)).toEqual([
          { d: '2026-03-01', p: 'deribit/BTC/2026-03-01_levels.csv.gz' },
          { d: '2026-03-02', p: 'deribit/BTC/2026-03-02_levels.csv.gz' },
          { d: '2026-03-03', p: `deribit/BTC/2026-03-03_levels.${sha.slice(0, 12)}.csv.gz` },
          { d: '2026-03-04', p: null },
          { d: '2026-03-05', p: null },
          { d: '2026-03-06', p: null },
          { d: '2026-03-07', p: null },
          { d: '2026-03-08', p: 'deribit/BTC/2026-03-08_strikes_total.csv.gz' },
          { d: '2026-03-09', p: null },
        ]);
      } finally {
        migrated.close();
      }
    } finally {
      cleanup();
    }
  });
});
