// What an export says of itself, written after its files: views.sql for DuckDB, the other engines'
// DDL and clickhouse.sql (Parquet only), and last the manifest of every object with its rows and sha256.
import type { DuckDBConnection } from '@duckdb/node-api';
import { nullable, num, readRows, text } from '../warehouse/read-rows.js';
import { CLICKHOUSE_FILE, clickhouseSql } from './clickhouse.js';
import { ENGINE_FILES, engineSql, type Engine } from './ddl.js';
import { exportManifest, MANIFEST_FILE, type ManifestObject } from './manifest.js';
import { RUNS_TABLE, VIEWS_SQL } from './options.js';
import { EXPORT_TABLES, type ExportFormat } from './tables.js';
import type { ExportTarget } from './target.js';
import { exportViewsSql, tableColumns, type ExportedTable } from './views.js';

/** Every table an export describes, with its warehouse columns and whether it has files there yet. */
export async function exportedTables(conn: DuckDBConnection, outDir: string, format: ExportFormat): Promise<ExportedTable[]> {
  const exported = await readRows(conn, `SELECT DISTINCT table_name FROM sync.exports WHERE out_dir = $1 AND format = $2`, [outDir, format], {
    table_name: text,
  });
  const withFiles = new Set(exported.map((row) => row.table_name));
  const columns = await tableColumns(conn, EXPORT_TABLES);
  const runs = await tableColumns(conn, [RUNS_TABLE], 'sync');
  return [
    ...EXPORT_TABLES.map((name) => ({ name, columns: columns.get(name) ?? [], hasFiles: withFiles.has(name), partitioned: true })),
    { name: RUNS_TABLE, columns: runs.get(RUNS_TABLE) ?? [], hasFiles: true, partitioned: false },
  ];
}

/**
 * views.sql, the other engines' DDL (trino.sql, athena.sql, spark.sql, clickhouse.sql; Parquet only), then the manifest, last: the manifest lists every object of the export with its rows
 * and sha256, so a reader who starts from it never meets a half export. Returns the bytes written.
 */
export async function writeDescription(
  conn: DuckDBConnection,
  target: ExportTarget,
  format: ExportFormat,
  runsFile: ManifestObject,
  exportedAt: Date,
): Promise<number> {
  let bytes = 0;
  const tables = await exportedTables(conn, target.root, format);
  const views = await target.putText(target.pathOf(VIEWS_SQL), exportViewsSql(target.root, tables, format));
  bytes += views.bytes;
  const engineFiles: ManifestObject[] = [];
  if (format === 'parquet') {
    for (const engine of Object.keys(ENGINE_FILES) as Engine[]) {
      const stored = await target.putText(target.pathOf(ENGINE_FILES[engine]), engineSql(engine, target.root, tables));
      bytes += stored.bytes;
      engineFiles.push({ table: null, path: ENGINE_FILES[engine], rows: null, ...stored });
    }
    const clickhouse = await target.putText(target.pathOf(CLICKHOUSE_FILE), clickhouseSql(target.clickhouse, tables));
    bytes += clickhouse.bytes;
    engineFiles.push({ table: null, path: CLICKHOUSE_FILE, rows: null, ...clickhouse });
  }
  const exported = await readRows(
    conn,
    `SELECT table_name, exchange, symbol, session_date::VARCHAR AS session_date, rows, path, sha256, bytes
       FROM sync.exports WHERE out_dir = $1 AND format = $2 ORDER BY table_name, exchange, symbol, session_date`,
    [target.root, format],
    { table_name: text, exchange: text, symbol: text, session_date: text, rows: num, path: text, sha256: nullable(text), bytes: nullable(num) },
  );
  const prefix = `${target.root}/`;
  const objects: ManifestObject[] = exported.map((row) => ({
    table: row.table_name,
    path: row.path.slice(prefix.length),
    rows: row.rows,
    sha256: row.sha256,
    bytes: row.bytes,
    partition: { exchange: row.exchange, symbol: row.symbol, session_date: row.session_date },
  }));
  objects.push(runsFile, { table: null, path: VIEWS_SQL, rows: null, ...views }, ...engineFiles);
  const manifest = exportManifest({ format: format, objects, exportedAt });
  bytes += (await target.putText(target.pathOf(MANIFEST_FILE), manifest)).bytes;
  return bytes;
}
