// views.sql of an export: DuckDB statements that rebuild the warehouse's query surface over the
// exported files. The exported tables become views of the same names over the partition files, and
// the warehouse's own sql/views.sql follows word for word, so the views and macros a reader of the
// export gets cannot drift from the warehouse's. The table columns come from the warehouse's catalog.
import type { DuckDBConnection } from '@duckdb/node-api';
import { duckdb } from '../warehouse/duckdb.js';
import { bool, readRows, text } from '../warehouse/read-rows.js';
import { viewDefinitions } from '../warehouse/migrations.js';
import { quoteIdentifier as id, quoteString, sqlTypeName } from '../core/sql-quote.js';

export interface ExportColumn {
  name: string;
  /** DuckDB's type name as the catalog prints it (VARCHAR, DATE, TIMESTAMP WITH TIME ZONE ...). */
  type: string;
  /** False for a NOT NULL column of the warehouse (engines that can declare it do); default true. */
  nullable?: boolean;
}

export interface ExportedTable {
  name: string;
  columns: ExportColumn[];
  /** Whether the export holds at least one file of the table. */
  hasFiles: boolean;
  /** Hive-partitioned by PARTITION_COLUMNS, or (runs) one file `<table>/data.<ext>`. */
  partitioned: boolean;
}

/** The partition columns, in path order: `<table>/exchange=X/symbol=Y/session_date=D/data.<ext>`. */
export const PARTITION_COLUMNS = ['exchange', 'symbol', 'session_date'] as const;

/**
 * Each table's columns in the warehouse, in table order, as exported: JSON travels as text (every
 * engine reads a string; the runs' options are the only JSON column).
 */
export async function tableColumns(conn: DuckDBConnection, tables: readonly string[], schema = 'main'): Promise<Map<string, ExportColumn[]>> {
  const rows = await readRows(
    conn,
    `SELECT table_name, column_name, data_type, is_nullable FROM duckdb_columns()
      WHERE database_name = current_database() AND schema_name = $2 AND list_contains($1::VARCHAR[], table_name)
      ORDER BY table_name, column_index`,
    [duckdb.listValue([...tables]), schema],
    { table_name: text, column_name: text, data_type: text, is_nullable: bool },
  );
  const result = new Map<string, ExportColumn[]>();
  for (const row of rows) {
    const columns = result.get(row.table_name) ?? [];
    columns.push({ name: row.column_name, type: row.data_type === 'JSON' ? 'VARCHAR' : row.data_type, nullable: row.is_nullable });
    result.set(row.table_name, columns);
  }
  return result;
}

/** The glob of a table's files under `root` (a folder or an s3:// prefix). */
export function tableGlob(root: string, table: Pick<ExportedTable, 'name' | 'partitioned'>, format: 'parquet' | 'csv'): string {
  return `${root.replace(/\/+$/, '')}/${table.name}/${table.partitioned ? '*/*/*/' : ''}*.${format}`;
}

/**
 * One table as a view over its files, every column cast to the warehouse's type. Parquet: the
 * partition columns typed from the path (hive types given, so a symbol such as 1000PEPE stays text),
 * so a filter on them skips whole folders. CSV: the files hold every column, typed as declared. A
 * table with no file yet is an empty view of the same columns.
 */
export function tableViewSql(root: string, table: ExportedTable, format: 'parquet' | 'csv'): string {
  // Every name quoted and every type checked: a column's name is whatever the warehouse holds.
  const columns = table.columns.map((c) => `${id(c.name)}::${sqlTypeName(c.type)} AS ${id(c.name)}`).join(', ');
  if (!table.hasFiles)
    return `CREATE OR REPLACE VIEW ${id(table.name)} AS SELECT ${table.columns.map((c) => `NULL::${sqlTypeName(c.type)} AS ${id(c.name)}`).join(', ')} WHERE false;`;
  const hive = table.partitioned
    ? `hive_partitioning = true, hive_types = {'exchange': 'VARCHAR', 'symbol': 'VARCHAR', 'session_date': 'DATE'}`
    : 'hive_partitioning = false';
  const glob = quoteString(tableGlob(root, table, format));
  const source =
    format === 'parquet'
      ? `read_parquet(${glob}, ${hive})`
      : // The dialect is the one the export's COPY writes (DuckDB's defaults): told, not sniffed, since
        // DuckDB sniffs the files again at every bind of every view built on this one (a minute for
        // views.sql over a few days of CSV; milliseconds told).
        `read_csv(${glob}, header = true, auto_detect = false, hive_partitioning = false, ` +
        `columns = {${table.columns.map((c) => `${quoteString(c.name)}: ${quoteString(sqlTypeName(c.type))}`).join(', ')}})`;
  return `CREATE OR REPLACE VIEW ${id(table.name)} AS SELECT ${columns} FROM ${source};`;
}

/**
 * The warehouse keeps session_closes as a table the loader maintains (what levels_close joins to);
 * an export does not carry it, so its views.sql computes it from the exported levels.
 */
const SESSION_CLOSES_VIEW =
  `CREATE OR REPLACE VIEW session_closes AS SELECT exchange, symbol, session_date, max(timestamp_utc) AS timestamp_utc ` +
  `FROM levels WHERE expiration = 'TOTAL' GROUP BY exchange, symbol, session_date;`;

/** The whole views.sql text (pure): header, the tables over the files, then sql/views.sql verbatim. */
export function exportViewsSql(root: string, tables: readonly ExportedTable[], format: 'parquet' | 'csv', definitions: string = viewDefinitions()): string {
  return [
    "-- gexwh export: the warehouse's tables, views and macros over the exported files.",
    '-- Open with: duckdb -init views.sql   (an s3:// export: INSTALL httpfs; LOAD httpfs; and S3 credentials',
    '-- first, e.g. CREATE SECRET (TYPE s3, PROVIDER credential_chain)). Written by every gexwh export; the',
    `-- paths below are absolute, so a moved export needs a new run of gexwh export (or an edit of them).`,
    '-- Timestamps are UTC, as in the warehouse: ts arguments without an offset are read as UTC.',
    "SET TimeZone = 'UTC';",
    '',
    ...tables.map((table) => tableViewSql(root, table, format)),
    SESSION_CLOSES_VIEW,
    '',
    definitions,
  ].join('\n');
}
