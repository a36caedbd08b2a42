import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { findSqlDir } from '../../src/warehouse/sql-dir.js';
import { appliedVersions, latestVersion, listMigrations, migrate } from '../../src/warehouse/migrations.js';
import { openWarehouse } from '../../src/warehouse/open.js';
import { loadFiles } from '../../src/warehouse/loader.js';
import { readListingState, upsertManifest } from '../../src/warehouse/manifest.js';
import { BTC, makeTempDir, query, writeFixture } from './fixtures.js';

describe('migrations', () => {
  it('finds sql/ at the package root from the module folder', () => {
    const dir = findSqlDir();
    expect(dir.endsWith('sql')).toBe(true);
    expect(listMigrations(dir)[0]?.name).toBe('schema');
  });

  it('skips a dist/ folder that holds a package.json but no sql/', () => {
    const { dir, cleanup } = makeTempDir();
    try {
      mkdirSync(join(dir, 'sql'));
      writeFileSync(join(dir, 'package.json'), '{}');
      mkdirSync(join(dir, 'dist', 'src', 'warehouse'), { recursive: true });
      writeFileSync(join(dir, 'dist', 'package.json'), '{}');
      expect(findSqlDir(join(dir, 'dist', 'src', 'warehouse'))).toBe(join(dir, 'sql'));
    } finally {
      cleanup();
    }
  });

  it('builds a fresh warehouse at the latest version with the contract tables', async () => {
    const { dir, cleanup } = makeTempDir();
    const wh = await openWarehouse(join(dir, 'new', 'gex.duckdb'));
    try {
      expect(await appliedVersions(wh.connection)).toEqual(listMigrations().map((m) => m.version));
      expect(Math.max(...(await appliedVersions(wh.connection)))).toBe(latestVersion());
      const tables = await query(wh, `SELECT table_schema || '.' || table_name AS t FROM information_schema.tables ORDER BY 1`);
      const names = tables.map((r) => r.t);
      for (const t of [
        'main.levels',
        'main.strikes_total',
        'main.strikes_by_expiry',
        'sync.coverage',
        'sync.manifest',
        'sync.files',
        'sync.runs',
        'sync.migrations',
      ]) {
        expect(names).toContain(t);
      }
      const tz = await query(wh, `SELECT current_setting('TimeZone') AS tz, TIMESTAMPTZ '2026-11-20T14:15:00Z'::VARCHAR AS ts`);
      expect(tz[0]).toEqual({ tz: 'UTC', ts: '2026-11-20 14:15:00+00' });
    } finally {
      wh.close();
      cleanup();
    }
  });

  it('in-memory warehouses are migrated and independent of each other', async () => {
    const a = await openWarehouse(':memory:');
    const b = await openWarehouse(':memory:');
    try {
      await a.connection.run("INSERT INTO sync.coverage (exchange, symbol, fetched_at) VALUES ('okx', 'BTC', now())");
      expect(await query(b, 'SELECT count(*)::INTEGER AS n FROM sync.coverage')).toEqual([{ n: 0 }]);
      expect(Math.max(...(await appliedVersions(b.connection)))).toBe(latestVersion());
    } finally {
      a.close();
      b.close();
    }
  });

  it('opening a missing warehouse read-only is a usage error; read-only never migrates', async () => {
    const { dir, cleanup } = makeTempDir();
    try {
      await expect(openWarehouse(join(dir, 'none.duckdb'), { readOnly: true })).rejects.toBeInstanceOf(UsageError);
      const db = join(dir, 'old.duckdb');
      (await openWarehouse(db, { migrations: { upTo: 1 } })).close();
      const ro = await openWarehouse(db, { readOnly: true });
      try {
        expect(await appliedVersions(ro.connection)).toEqual([1]);
        await expect(ro.connection.run('CREATE TABLE x (a INTEGER)')).rejects.toThrow(/read-only/i);
      } finally {
        ro.close();
      }
    } finally {
      cleanup();
    }
  });

  it('upgrades an older warehouse on reopen, each migration recorded once', async () => {
    const { dir, cleanup } = makeTempDir();
    const sqlDir = join(dir, 'sql');
    mkdirSync(sqlDir);
    writeFileSync(join(sqlDir, '001_base.sql'), 'CREATE SCHEMA IF NOT EXISTS sync; CREATE TABLE t (a INTEGER);');
    writeFileSync(join(sqlDir, '002_more.sql'), 'ALTER TABLE t ADD COLUMN b VARCHAR; CREATE VIEW v AS SELECT a, b FROM t;');
    const db = join(dir, 'old.duckdb');
    try {
      const old = await openWarehouse(db, { migrations: { dir: sqlDir, upTo: 1 } });
      await old.connection.run('INSERT INTO t VALUES (7)');
      expect(await appliedVersions(old.connection)).toEqual([1]);
      old.close();

      const upgraded = await openWarehouse(db, { migrations: { dir: sqlDir } });
      try {
        expect(await appliedVersions(upgraded.connection)).toEqual([1, 2]);
        expect(await query(upgraded, 'SELECT a, b FROM v')).toEqual([{ a: 7, b: null }]);
        const recorded = await query(upgraded, 'SELECT version, name FROM sync.migrations ORDER BY version');
        expect(recorded).toEqual([
          { version: 1, name: 'base' },
          { version: 2, name: 'more' },
        ]);
      } finally {
        upgraded.close();
      }
    } finally {
      cleanup();
    }
  });

  it('006 drops the levels index and keeps every row; the views still read them', async () => {
    const { dir, cleanup } = makeTempDir();
    const db = join(dir, 'gex.duckdb');
    try {
      const old = await openWarehouse(db, { migrations: { upTo: 5 } });
      // Today's loader records the layout and schema_version it reads (migration 070): they live only while it loads.
      await old.connection.run(
        'CREATE TABLE sync.layouts (file VARCHAR, schema_version INTEGER, header VARCHAR, first_file VARCHAR, first_seen_at TIMESTAMPTZ, columns_added VARCHAR[])',
      );
      await old.connection.run('ALTER TABLE sync.files ADD COLUMN schema_version INTEGER');
      await loadFiles(old.connection, [writeFixture(dir, 'levels', BTC)]);
      await old.connection.run('DROP TABLE sync.layouts');
      await old.connection.run('ALTER TABLE sync.files DROP COLUMN schema_version');
      const before = await query(old, 'SELECT * EXCLUDE (timestamp_utc), timestamp_utc::VARCHAR AS ts FROM levels ORDER BY ts, expiration');
      expect(await query(old, "SELECT count(*)::INTEGER AS n FROM duckdb_constraints() WHERE table_name = 'levels' AND constraint_type = 'UNIQUE'")).toEqual([
        { n: 1 },
      ]);
      old.close();

      const wh = await openWarehouse(db);
      try {
        expect(await appliedVersions(wh.connection)).toContain(6);
        expect(await query(wh, 'SELECT * EXCLUDE (timestamp_utc), timestamp_utc::VARCHAR AS ts FROM levels ORDER BY ts, expiration')).toEqual(before);
        expect(before).toHaveLength(4);
        expect(await query(wh, "SELECT count(*)::INTEGER AS n FROM duckdb_constraints() WHERE table_name = 'levels' AND constraint_type = 'UNIQUE'")).toEqual([
          { n: 0 },
        ]);
        expect(await query(wh, "SELECT count(*)::INTEGER AS n FROM duckdb_indexes() WHERE table_name = 'levels'")).toEqual([{ n: 0 }]);
        expect(await query(wh, 'SELECT count(*)::INTEGER AS n FROM levels_total')).toEqual([{ n: 2 }]);
        // NOT NULL and CHECK constraints came along.
        await expect(
          wh.connection.run(
            "INSERT INTO levels (exchange, symbol, session_date, timestamp_utc, expiration, source) VALUES ('bybit', 'BTC', DATE '2026-11-20', now(), 'TOTAL', 'web')",
          ),
        ).rejects.toThrow(/CHECK/i);
      } finally {
        wh.close();
      }
    } finally {
      cleanup();
    }
  });

  it('011 records every pair an older version listed as complete from its first file', async () => {
    const { dir, cleanup } = makeTempDir();
    const db = join(dir, 'gex.duckdb');
    try {
      const old = await openWarehouse(db, { migrations: { upTo: 10 } });
      const row = (date: string) => ({ session_date: date, file: 'levels', rows: 1, bytes: 1, sha256: 'a'.repeat(64), schema_version: 1 });
      await upsertManifest(old.connection, 'bybit', 'BTC', [row('2026-01-01'), row('2026-01-02')], '2026-01-03T00:00:00Z');
      await upsertManifest(old.connection, 'tradfi', 'SPY', [row('2026-01-02')], '2026-01-04T00:00:00Z');
      old.close();

      const wh = await openWarehouse(db);
      try {
        expect(await appliedVersions(wh.connection)).toContain(11);
        expect(await readListingState(wh.connection, 'bybit', 'BTC')).toEqual({ newestStored: '2026-01-02', completeFrom: null });
        expect(await query(wh, 'SELECT exchange, symbol, complete_from, listed_at::VARCHAR AS listed_at FROM sync.listings ORDER BY ALL')).toEqual([
          { exchange: 'bybit', symbol: 'BTC', complete_from: null, listed_at: '2026-01-03 00:00:00+00' },
          { exchange: 'tradfi', symbol: 'SPY', complete_from: null, listed_at: '2026-01-04 00:00:00+00' },
        ]);
      } finally {
        wh.close();
      }
    } finally {
      cleanup();
    }
  });
  it('the real 001 alone, reopened, reaches the latest schema', async () => {
    const { dir, cleanup } = makeTempDir();
    const db = join(dir, 'gex.duckdb');
    try {
      (await openWarehouse(db, { migrations: { upTo: 1 } })).close();
      const wh = await openWarehouse(db);
      try {
        expect(Math.max(...(await appliedVersions(wh.connection)))).toBe(latestVersion());
      } finally {
        wh.close();
      }
    } finally {
      cleanup();
    }
  });

  describe('reopening a warehouse (every command does)', () => {
    async function reopened(change: string): Promise<{ versions: number[]; viewsSha256: unknown; tableThere: unknown }> {
      const { dir, cleanup } = makeTempDir();
      const db = join(dir, 'gex.duckdb');
      try {
        const fresh = await openWarehouse(db);
        await fresh.connection.run(change);
        fresh.close();
        const wh = await openWarehouse(db);
        try {
          const [views] = await query(wh, `SELECT sha256 FROM sync.definitions WHERE name = 'views'`);
          const [table] = await query(wh, `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = 'unconfirmed_manifest'`);
          return { versions: await appliedVersions(wh.connection), viewsSha256: views?.sha256, tableThere: table?.n };
        } finally {
          wh.close();
        }
      } finally {
        cleanup();
      }
    }

    it('a current warehouse is checked in one read: no DDL, nothing applied', async () => {
      const { dir, cleanup } = makeTempDir();
      const wh = await openWarehouse(join(dir, 'gex.duckdb'));
      try {
        const runs = vi.spyOn(wh.connection, 'run');
        expect(await migrate(wh.connection)).toEqual([]);
        expect(runs.mock.calls.map(([sql]) => sql.trim().split(/\s/)[0])).toEqual(['SELECT']);
      } finally {
        wh.close();
        cleanup();
      }
    });

    it('a shipped version missing from the record is applied again, though the views are current', async () => {
      const got = await reopened('DROP TABLE sync.unconfirmed_manifest; DELETE FROM sync.migrations WHERE version = 75');
      expect(got.versions).toContain(75);
      expect(got.tableThere).toBe(1);
    });

    it('views recorded with another text are applied again', async () => {
      const current = await reopened('SELECT 1');
      const got = await reopened(`UPDATE sync.definitions SET sha256 = 'stale' WHERE name = 'views'`);
      expect(typeof current.viewsSha256).toBe('string');
      expect(got.viewsSha256).toBe(current.viewsSha256);
    });
  });

  it('rolls back a failing migration whole', async () => {
    const { dir, cleanup } = makeTempDir();
    const sqlDir = join(dir, 'sql');
    mkdirSync(sqlDir);
    writeFileSync(join(sqlDir, '001_ok.sql'), 'CREATE TABLE t (a INTEGER);');
    writeFileSync(join(sqlDir, '002_bad.sql'), 'CREATE TABLE u (a INTEGER); SELECT * FROM no_such_table;');
    const db = join(dir, 'x.duckdb');
    try {
      await expect(openWarehouse(db, { migrations: { dir: sqlDir } })).rejects.toThrow(/migration 2_bad failed/);
      const wh = await openWarehouse(db, { migrations: { dir: sqlDir, upTo: 1 } });
      try {
        expect(await appliedVersions(wh.connection)).toEqual([1]);
        expect(await query(wh, `SELECT count(*)::INTEGER AS n FROM information_schema.tables WHERE table_name = 'u'`)).toEqual([{ n: 0 }]);
      } finally {
        wh.close();
      }
    } finally {
      cleanup();
    }
  });
});
