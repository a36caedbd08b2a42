// sql/new-warehouse.sql, the tables every migration leaves in one generated file: it is what the
// migrations make today, a new warehouse takes it only when it stands for exactly the migrations there,
// and a warehouse made from it is, in its catalog and its records, one made by replaying them all.
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { latestVersion, migrate, NEW_WAREHOUSE_FILE } from '../../src/warehouse/migrations.js';
import { findSqlDir } from '../../src/warehouse/sql-dir.js';
import { newWarehouseSql } from '../../scripts/new-warehouse-sql.js';
import { withInMemoryDuckDb } from '../helpers/in-memory-duckdb.js';
import { makeTempDir } from './fixtures.js';

const rows = async (conn: DuckDBConnection, sql: string) => (await conn.runAndReadAll(sql)).getRowObjectsJson();

/** Everything a migration can leave, as text to compare: objects, columns, constraints, records. */
async function catalog(conn: DuckDBConnection): Promise<Record<string, unknown>> {
  const here = 'database_name = current_database()';
  return {
    schemas: await rows(conn, `SELECT schema_name FROM duckdb_schemas() WHERE ${here} AND NOT internal ORDER BY 1`),
    sequences: await rows(
      conn,
      `SELECT schema_name, sequence_name, start_value, min_value, max_value, increment_by, cycle, sql FROM duckdb_sequences() WHERE ${here} ORDER BY 1, 2`,
    ),
    tables: await rows(conn, `SELECT schema_name, table_name, sql FROM duckdb_tables() WHERE ${here} ORDER BY 1, 2`),
    columns: await rows(
      conn,
      `SELECT schema_name, table_name, column_index, column_name, data_type, column_default, is_nullable FROM duckdb_columns() WHERE ${here} ORDER BY 1, 2, 3`,
    ),
    constraints: await rows(
      conn,
      `SELECT schema_name, table_name, constraint_type, constraint_text, constraint_column_names FROM duckdb_constraints() WHERE ${here} ORDER BY ALL`,
    ),
    indexes: await rows(conn, `SELECT schema_name, index_name, sql FROM duckdb_indexes() WHERE ${here} ORDER BY 1, 2`),
    views: await rows(conn, `SELECT schema_name, view_name, sql FROM duckdb_views() WHERE ${here} AND NOT internal ORDER BY 1, 2`),
    macros: await rows(
      conn,
      `SELECT schema_name, function_name, parameters, macro_definition FROM duckdb_functions() WHERE ${here} AND NOT internal AND function_type LIKE '%macro' ORDER BY ALL`,
    ),
    migrations: await rows(conn, 'SELECT version, name FROM sync.migrations ORDER BY version'),
    definitions: await rows(conn, 'SELECT name, sha256 FROM sync.definitions ORDER BY name'),
  };
}

/** A copy of sql/ whose generated file gains a marker table, with `version` in its header. */
function markedCopy(dir: string, version: number): string {
  const sql = findSqlDir();
  for (const name of readdirSync(sql)) copyFileSync(join(sql, name), join(dir, name));
  const text = readFileSync(join(sql, NEW_WAREHOUSE_FILE), 'utf8').replace(/^-- version: \d+$/m, `-- version: ${version}`);
  writeFileSync(join(dir, NEW_WAREHOUSE_FILE), `${text}CREATE TABLE sync.marker (x INTEGER);\n`);
  return dir;
}

const hasMarker = async (conn: DuckDBConnection) =>
  (await rows(conn, `SELECT count(*)::INT AS n FROM duckdb_tables() WHERE schema_name = 'sync' AND table_name = 'marker'`))[0]?.n === 1;

describe('sql/new-warehouse.sql', () => {
  it('is what the migrations make today (else: npm run sql:new-warehouse)', async () => {
    expect(readFileSync(join(findSqlDir(), NEW_WAREHOUSE_FILE), 'utf8')).toBe(await newWarehouseSql());
  });

  it('makes a warehouse whose catalog and records are those of every migration replayed', async () => {
    const made = await withInMemoryDuckDb(async (conn) => {
      await migrate(conn);
      return catalog(conn);
    });
    const replayed = await withInMemoryDuckDb(async (conn) => {
      await migrate(conn, { upTo: latestVersion() });
      return catalog(conn);
    });
    expect(made).toEqual(replayed);
    expect(made.migrations).toHaveLength(readdirSync(findSqlDir()).filter((name) => /^\d{3,}_/.test(name)).length);
  });

  it('is taken by a new warehouse only when its version is the last migration, and never for an older one', async () => {
    const { dir, cleanup } = makeTempDir();
    try {
      const current = markedCopy(dir, latestVersion());
      expect(await withInMemoryDuckDb(async (conn) => (await migrate(conn, { dir: current }), hasMarker(conn)))).toBe(true);
      // A migration added since the file was made: the numbered files are replayed instead.
      const stale = markedCopy(dir, latestVersion() - 1);
      expect(await withInMemoryDuckDb(async (conn) => (await migrate(conn, { dir: stale }), hasMarker(conn)))).toBe(false);
      // Built up to an older version on purpose (upTo): replayed, as the file holds later tables.
      expect(await withInMemoryDuckDb(async (conn) => (await migrate(conn, { dir: current, upTo: latestVersion() }), hasMarker(conn)))).toBe(false);
    } finally {
      cleanup();
    }
  });
});
