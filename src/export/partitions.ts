// The partitions a table holds and the export ledger's record of them, read from the warehouse. A
// partition's fingerprint says what it holds, so a rerun rewrites only what changed.
import type { DuckDBConnection } from '@duckdb/node-api';
import { duckdb } from '../warehouse/duckdb.js';
import { bool, nullable, num, readOne, readRows, text } from '../warehouse/read-rows.js';
import { errorMessage } from '../core/errors.js';
import type { CopyRun, ExportedPartition, Partition } from './copy-runs.js';
import { partitionKey } from './copy-runs.js';
import type { ExportSelection } from './options.js';
import { isHistoryTable, type ExportTable } from './tables.js';

/**
 * The rows of a run's own partitions (parameters $8..$10), for a run that does not hold every
 * partition of its dates: a semi-join after the date range, which zone maps serve first.
 */
export const RUN_KEYS = `(exchange, symbol, session_date) IN (SELECT unnest($8::VARCHAR[]), unnest($9::VARCHAR[]), CAST(unnest($10::VARCHAR[]) AS DATE))`;

export function runKeyParams(run: CopyRun) {
  return [
    duckdb.listValue(run.partitions.map((p) => p.exchange)),
    duckdb.listValue(run.partitions.map((p) => p.symbol)),
    duckdb.listValue(run.partitions.map((p) => p.sessionDate)),
  ];
}

/** The selection's filters over (exchange, symbol, session_date) as SQL on parameters $1..$4. */
export const FILTER = `($1::VARCHAR[] IS NULL OR list_contains($1::VARCHAR[], exchange))
            AND ($2::VARCHAR[] IS NULL OR list_contains($2::VARCHAR[], symbol))
            AND ($3::DATE IS NULL OR session_date >= $3::DATE)
            AND ($4::DATE IS NULL OR session_date <= $4::DATE)`;

export function filterParams(selection: ExportSelection) {
  return [
    selection.exchanges ? duckdb.listValue(selection.exchanges) : null,
    selection.symbols ? duckdb.listValue(selection.symbols) : null,
    selection.since,
    selection.until,
  ];
}

/**
 * Partitions with rows, and a fingerprint of what they hold: the loaded file versions (sha256),
 * the row count, for levels the api rows (a fill adds rows without a file), and the column layout
 * (a migration adding a column re-exports everything). A history table's partitions come from the
 * ledger when its row counts add up to the table's (a count DuckDB answers from metadata); else,
 * and for the live tables, from a scan grouping the whole table (seconds at multi-year scale, which
 * an incremental export of one day cannot afford).
 */
export async function listPartitions(conn: DuckDBConnection, table: ExportTable, selection: ExportSelection): Promise<Partition[]> {
  const layout = await tableLayout(conn, table);
  if (isHistoryTable(table)) {
    const fromLedger = await ledgerPartitions(conn, table, selection, layout);
    if (fromLedger !== null) return fromLedger;
  }
  return scannedPartitions(conn, table, selection, layout);
}

/** The fingerprint of a partition, the same text whichever way its parts were found. */
const FINGERPRINT = `sha256(concat_ws('|', $6, coalesce(shas, '-'), rows::VARCHAR, api_rows::VARCHAR,
                             coalesce(strftime(api_last, '%Y-%m-%dT%H:%M:%S.%fZ'), '-')))`;

const PARTITION = { exchange: text, symbol: text, sessionDate: text, rows: num, fingerprint: text };

/**
 * A history table's partitions from the ledger: each loaded file's rows, plus (levels) the api fill
 * rows, which the loader keeps apart from file sessions. Trusted only when their sum is the table's
 * row count under the same filter; any difference (rows deleted or added by hand, a ledger without
 * row counts) returns null and the caller scans. A change that keeps every count, such as an UPDATE,
 * is not seen; the scan's fingerprint, built from the same counts, does not see it either.
 */
export async function ledgerPartitions(conn: DuckDBConnection, table: ExportTable, selection: ExportSelection, layout: string): Promise<Partition[] | null> {
  const api =
    table === 'levels'
      ? `SELECT exchange, symbol, session_date, count(*)::BIGINT AS api_rows, max(timestamp_utc) AS api_last FROM levels WHERE source = 'api' AND ${FILTER} GROUP BY ALL`
      : `SELECT NULL::VARCHAR AS exchange, NULL::VARCHAR AS symbol, NULL::DATE AS session_date, 0::BIGINT AS api_rows, NULL::TIMESTAMPTZ AS api_last WHERE false`;
  // `table` comes from EXPORT_TABLES (validated), never from user text.
  const rows = await readRows(
    conn,
    `WITH loaded AS (
       SELECT exchange, symbol, session_date, string_agg(sha256, ',' ORDER BY sha256) AS shas, sum(rows)::BIGINT AS file_rows, count(rows) = count(*) AS counted
         FROM sync.files WHERE status = 'loaded' AND file = $5 AND ${FILTER} GROUP BY ALL
     ), api AS (${api}), parts AS (
       SELECT exchange, symbol, session_date, shas, coalesce(file_rows, 0) + coalesce(api_rows, 0) AS rows, coalesce(api_rows, 0) AS api_rows, api_last, coalesce(counted, true) AS counted
         FROM loaded FULL JOIN api USING (exchange, symbol, session_date)
     )
     SELECT exchange, symbol, session_date::VARCHAR AS "sessionDate", rows, counted, ${FINGERPRINT} AS fingerprint
       FROM parts WHERE rows > 0 OR NOT counted
      ORDER BY exchange, symbol, session_date`,
    [...filterParams(selection), table, layout],
    { ...PARTITION, counted: bool },
  );
  if (rows.some((row) => !row.counted)) return null;
  const filtered = selection.exchanges || selection.symbols || selection.since || selection.until;
  const counted = await readOne(
    conn,
    `SELECT count(*)::BIGINT AS n FROM ${table}${filtered ? ` WHERE ${FILTER}` : ''}`,
    filtered ? filterParams(selection) : [],
    { n: num },
  );
  const expected = rows.reduce((sum, row) => sum + row.rows, 0);
  return counted.n === expected ? rows.map(({ counted: _, ...partition }) => partition) : null;
}

/** Partitions by a scan grouping the table: always right, and a read of the whole table. */
export async function scannedPartitions(conn: DuckDBConnection, table: ExportTable, selection: ExportSelection, layout: string): Promise<Partition[]> {
  // Rows a partition gains without a file: levels' api fills, and every live capture (insert-only,
  // so the count and the latest capture time change with each new one).
  const apiColumns =
    table === 'levels'
      ? `count(*) FILTER (WHERE source = 'api')::BIGINT AS api_rows, max(timestamp_utc) FILTER (WHERE source = 'api') AS api_last`
      : isHistoryTable(table)
        ? `0::BIGINT AS api_rows, NULL::TIMESTAMPTZ AS api_last`
        : `count(*)::BIGINT AS api_rows, max(captured_at) AS api_last`;
  // `table` comes from EXPORT_TABLES (validated), never from user text.
  return readRows(
    conn,
    `WITH parts AS (
       SELECT exchange, symbol, session_date, count(*)::BIGINT AS rows, ${apiColumns}
         FROM ${table} WHERE ${FILTER} GROUP BY exchange, symbol, session_date
     ), loaded AS (
       SELECT exchange, symbol, session_date, string_agg(sha256, ',' ORDER BY sha256) AS shas
         FROM sync.files WHERE status = 'loaded' AND file = $5 GROUP BY exchange, symbol, session_date
     )
     SELECT exchange, symbol, session_date::VARCHAR AS "sessionDate", rows, ${FINGERPRINT} AS fingerprint
       FROM parts LEFT JOIN loaded USING (exchange, symbol, session_date)
      ORDER BY exchange, symbol, session_date`,
    [...filterParams(selection), table, layout],
    PARTITION,
  );
}

export async function tableLayout(conn: DuckDBConnection, table: ExportTable): Promise<string> {
  // pragma_table_info binds the one table; duckdb_columns() binds every view of the warehouse to
  // filter them out (~3 ms against ~10-50 ms a call). The text is the same, column by column, as
  // the fingerprints of earlier exports were made with (test/export/layout.test.ts).
  let row;
  try {
    row = await readOne(conn, `SELECT string_agg(name || ' ' || type, ',' ORDER BY cid) AS layout FROM pragma_table_info($1)`, [`main.${table}`], {
      layout: nullable(text),
    });
  } catch (error) {
    if (isMissingTable(error)) return '';
    throw error;
  }
  return row.layout ?? '';
}

/** A table an older warehouse does not have yet has no layout, as it has no rows. */
function isMissingTable(error: unknown): boolean {
  return /Catalog Error: Table with name .* does not exist/i.test(errorMessage(error));
}

export async function listExported(conn: DuckDBConnection, table: ExportTable, selection: ExportSelection): Promise<Map<string, ExportedPartition>> {
  const rows = await readRows(
    conn,
    `SELECT exchange, symbol, session_date::VARCHAR AS "sessionDate", fingerprint, path, sha256, bytes
       FROM sync.exports WHERE ${FILTER} AND out_dir = $5 AND table_name = $6 AND format = $7`,
    [...filterParams(selection), selection.outDir, table, selection.format],
    { exchange: text, symbol: text, sessionDate: text, fingerprint: text, path: text, sha256: nullable(text), bytes: nullable(num) },
  );
  return new Map<string, ExportedPartition>(rows.map((partition) => [partitionKey(partition), partition]));
}
