// `gexwh export`: writes the three data tables as hive partitions
// `<out>/<table>/exchange=X/symbol=Y/session_date=D/data.<parquet|csv>`, one file per partition,
// written to a temp name and renamed so a rerun replaces rather than adds. sync.exports remembers
// each partition's fingerprint: a rerun writes only new or changed sessions, `full` rewrites all,
// and partitions whose rows left the table are removed. The files keep the partition columns too,
// so each file is self-describing and read_parquet(..., hive_partitioning = true) types them right.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { listValue, type DuckDBConnection } from '@duckdb/node-api';
import { UsageError } from '../errors.js';
import { DATE_PATTERN, EXCHANGES, FILE_KINDS, SYMBOL_PATTERN, isExchange, isFileKind, type FileKind } from './layouts.js';
import { openWarehouse } from './open.js';

export const EXPORT_FORMATS = ['parquet', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportOptions {
  dbPath: string;
  outDir: string;
  /** Default parquet. */
  format?: ExportFormat;
  /** Subset of levels, strikes_total, strikes_by_expiry (default all three). */
  tables?: readonly string[];
  /** Session dates, inclusive, YYYY-MM-DD. */
  since?: string;
  until?: string;
  exchanges?: readonly string[];
  symbols?: readonly string[];
  /** Rewrite every selected partition, whatever the export ledger says. */
  full?: boolean;
  now?: () => Date;
}

export interface ExportTableCounts {
  table: FileKind;
  partitionsWritten: number;
  partitionsSkipped: number;
  /** Partitions whose rows are gone from the table: file and ledger row removed. */
  partitionsRemoved: number;
  rowsWritten: number;
}

export interface ExportResult {
  outDir: string;
  format: ExportFormat;
  tables: ExportTableCounts[];
  partitionsWritten: number;
  partitionsSkipped: number;
  partitionsRemoved: number;
  rowsWritten: number;
}

/** The validated selection (pure). */
export interface ExportSelection {
  outDir: string;
  format: ExportFormat;
  tables: FileKind[];
  since: string | null;
  until: string | null;
  exchanges: string[] | null;
  symbols: string[] | null;
  full: boolean;
}

/** Checks and normalises the options; UsageError (exit 2) names the bad value and what is allowed. */
export function normalizeExportOptions(options: Omit<ExportOptions, 'dbPath' | 'now'>): ExportSelection {
  const format = options.format ?? 'parquet';
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`export: unknown format "${String(format)}"; allowed: ${EXPORT_FORMATS.join(', ')}`);
  }
  if (!options.outDir || options.outDir.trim() === '') throw new UsageError('export: --out DIR is required');
  const tables = options.tables && options.tables.length > 0 ? [...new Set(options.tables)] : [...FILE_KINDS];
  for (const table of tables) {
    if (!isFileKind(table)) throw new UsageError(`export: unknown table "${table}"; allowed: ${FILE_KINDS.join(', ')}`);
  }
  for (const [name, value] of [['since', options.since], ['until', options.until]] as const) {
    if (value !== undefined && !DATE_PATTERN.test(value)) throw new UsageError(`export: --${name} must be a date YYYY-MM-DD, got "${value}"`);
  }
  if (options.since && options.until && options.since > options.until) {
    throw new UsageError(`export: --since ${options.since} is after --until ${options.until}`);
  }
  const exchanges = nonEmpty(options.exchanges?.map((e) => e.toLowerCase()));
  for (const exchange of exchanges ?? []) {
    if (!isExchange(exchange)) throw new UsageError(`export: unknown exchange "${exchange}"; allowed: ${EXCHANGES.join(', ')}`);
  }
  const symbols = nonEmpty(options.symbols?.map((s) => s.toUpperCase()));
  for (const symbol of symbols ?? []) {
    if (!SYMBOL_PATTERN.test(symbol)) throw new UsageError(`export: bad symbol "${symbol}"; allowed: A-Z 0-9 . _ -`);
  }
  return {
    outDir: resolve(options.outDir),
    format,
    tables: tables as FileKind[],
    since: options.since ?? null,
    until: options.until ?? null,
    exchanges,
    symbols,
    full: options.full === true,
  };
}

function nonEmpty(values: string[] | undefined): string[] | null {
  return values && values.length > 0 ? [...new Set(values)] : null;
}

/** `<out>/<table>/exchange=X/symbol=Y/session_date=D/data.<format>` (parts are validated upstream). */
export function partitionPath(outDir: string, table: FileKind, format: ExportFormat, exchange: string, symbol: string, sessionDate: string): string {
  return join(outDir, table, `exchange=${exchange}`, `symbol=${symbol}`, `session_date=${sessionDate}`, `data.${format}`);
}

export async function exportWarehouse(options: ExportOptions): Promise<ExportResult> {
  const selection = normalizeExportOptions(options);
  if (!existsSync(resolve(options.dbPath))) throw new UsageError(`export: no warehouse at ${options.dbPath}`, { db: options.dbPath });
  const warehouse = await openWarehouse(options.dbPath);
  try {
    return await exportOn(warehouse.connection, selection, options.now ?? (() => new Date()));
  } finally {
    warehouse.close();
  }
}

/** Exports on an open, migrated, writable connection. */
export async function exportOn(conn: DuckDBConnection, selection: ExportSelection, now: () => Date = () => new Date()): Promise<ExportResult> {
  const tables: ExportTableCounts[] = [];
  for (const table of selection.tables) tables.push(await exportTable(conn, table, selection, now));
  const sum = (key: 'partitionsWritten' | 'partitionsSkipped' | 'partitionsRemoved' | 'rowsWritten') =>
    tables.reduce((total, counts) => total + counts[key], 0);
  return {
    outDir: selection.outDir,
    format: selection.format,
    tables,
    partitionsWritten: sum('partitionsWritten'),
    partitionsSkipped: sum('partitionsSkipped'),
    partitionsRemoved: sum('partitionsRemoved'),
    rowsWritten: sum('rowsWritten'),
  };
}

interface Partition {
  exchange: string;
  symbol: string;
  sessionDate: string;
  rows: number;
  fingerprint: string;
}

interface ExportedPartition {
  exchange: string;
  symbol: string;
  sessionDate: string;
  fingerprint: string;
  path: string;
}

const partitionKey = (p: { exchange: string; symbol: string; sessionDate: string }): string => `${p.exchange}|${p.symbol}|${p.sessionDate}`;

async function exportTable(conn: DuckDBConnection, table: FileKind, selection: ExportSelection, now: () => Date): Promise<ExportTableCounts> {
  const counts: ExportTableCounts = { table, partitionsWritten: 0, partitionsSkipped: 0, partitionsRemoved: 0, rowsWritten: 0 };
  const partitions = await listPartitions(conn, table, selection);
  const exported = await listExported(conn, table, selection);
  for (const partition of partitions) {
    const path = partitionPath(selection.outDir, table, selection.format, partition.exchange, partition.symbol, partition.sessionDate);
    const previous = exported.get(partitionKey(partition));
    if (!selection.full && previous?.fingerprint === partition.fingerprint && previous.path === path && existsSync(path)) {
      counts.partitionsSkipped += 1;
      continue;
    }
    await writePartition(conn, table, selection.format, partition, path);
    await recordExport(conn, table, selection, partition, path, now());
    counts.partitionsWritten += 1;
    counts.rowsWritten += partition.rows;
  }
  const current = new Set(partitions.map(partitionKey));
  for (const [key, gone] of exported) {
    if (current.has(key)) continue;
    rmSync(gone.path, { force: true });
    await conn.run(
      `DELETE FROM sync.exports WHERE out_dir = $1 AND table_name = $2 AND format = $3 AND exchange = $4 AND symbol = $5 AND session_date = $6::DATE`,
      [selection.outDir, table, selection.format, gone.exchange, gone.symbol, gone.sessionDate],
    );
    counts.partitionsRemoved += 1;
  }
  return counts;
}

/** The selection's filters over (exchange, symbol, session_date) as SQL on parameters $1..$4. */
const FILTER = `($1::VARCHAR[] IS NULL OR list_contains($1::VARCHAR[], exchange))
            AND ($2::VARCHAR[] IS NULL OR list_contains($2::VARCHAR[], symbol))
            AND ($3::DATE IS NULL OR session_date >= $3::DATE)
            AND ($4::DATE IS NULL OR session_date <= $4::DATE)`;

function filterParams(selection: ExportSelection) {
  return [
    selection.exchanges ? listValue(selection.exchanges) : null,
    selection.symbols ? listValue(selection.symbols) : null,
    selection.since,
    selection.until,
  ];
}

/**
 * Partitions with rows, and a fingerprint of what they hold: the loaded file versions (sha256),
 * the row count, for levels the api rows (a fill adds rows without a file), and the column layout
 * (a migration adding a column re-exports everything).
 */
async function listPartitions(conn: DuckDBConnection, table: FileKind, selection: ExportSelection): Promise<Partition[]> {
  const layout = await tableLayout(conn, table);
  const apiColumns =
    table === 'levels'
      ? `count(*) FILTER (WHERE source = 'api')::BIGINT AS api_rows, max(timestamp_utc) FILTER (WHERE source = 'api') AS api_last`
      : `0::BIGINT AS api_rows, NULL::TIMESTAMPTZ AS api_last`;
  // `table` comes from FILE_KINDS (validated), never from user text.
  const reader = await conn.runAndReadAll(
    `WITH parts AS (
       SELECT exchange, symbol, session_date, count(*)::BIGINT AS rows, ${apiColumns}
         FROM ${table} WHERE ${FILTER} GROUP BY exchange, symbol, session_date
     ), loaded AS (
       SELECT exchange, symbol, session_date, string_agg(sha256, ',' ORDER BY sha256) AS shas
         FROM sync.files WHERE status = 'loaded' AND file = $5 GROUP BY exchange, symbol, session_date
     )
     SELECT p.exchange, p.symbol, p.session_date::VARCHAR AS session_date, p.rows,
            sha256(concat_ws('|', $6, coalesce(l.shas, '-'), p.rows::VARCHAR, p.api_rows::VARCHAR,
                             coalesce(strftime(p.api_last, '%Y-%m-%dT%H:%M:%S.%fZ'), '-'))) AS fingerprint
       FROM parts p LEFT JOIN loaded l USING (exchange, symbol, session_date)
      ORDER BY p.exchange, p.symbol, p.session_date`,
    [...filterParams(selection), table, layout],
  );
  return reader.getRowObjectsJS().map((row) => ({
    exchange: String(row.exchange),
    symbol: String(row.symbol),
    sessionDate: String(row.session_date),
    rows: Number(row.rows),
    fingerprint: String(row.fingerprint),
  }));
}

async function tableLayout(conn: DuckDBConnection, table: FileKind): Promise<string> {
  const reader = await conn.runAndReadAll(
    `SELECT string_agg(column_name || ' ' || data_type, ',' ORDER BY ordinal_position) AS layout
       FROM information_schema.columns WHERE table_schema = 'main' AND table_name = $1`,
    [table],
  );
  return String(reader.getRowObjectsJS()[0]?.layout ?? '');
}

async function listExported(conn: DuckDBConnection, table: FileKind, selection: ExportSelection): Promise<Map<string, ExportedPartition>> {
  const reader = await conn.runAndReadAll(
    `SELECT exchange, symbol, session_date::VARCHAR AS session_date, fingerprint, path
       FROM sync.exports WHERE ${FILTER} AND out_dir = $5 AND table_name = $6 AND format = $7`,
    [...filterParams(selection), selection.outDir, table, selection.format],
  );
  const result = new Map<string, ExportedPartition>();
  for (const row of reader.getRowObjectsJS()) {
    const partition = {
      exchange: String(row.exchange),
      symbol: String(row.symbol),
      sessionDate: String(row.session_date),
      fingerprint: String(row.fingerprint),
      path: String(row.path),
    };
    result.set(partitionKey(partition), partition);
  }
  return result;
}

/** Row order inside a partition file, so reruns write the same bytes for the same rows. */
const ROW_ORDER: Record<FileKind, string> = {
  levels: 'timestamp_utc, expiration',
  strikes_total: 'timestamp_utc, strike',
  strikes_by_expiry: 'timestamp_utc, expiration_date, strike',
};

const COPY_OPTIONS: Record<ExportFormat, string> = {
  parquet: '(FORMAT parquet)',
  csv: '(FORMAT csv, HEADER true)',
};

async function writePartition(conn: DuckDBConnection, table: FileKind, format: ExportFormat, partition: Partition, path: string): Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  // Hidden, and not matching *.parquet / *.csv globs, so readers never see a half-written file.
  const temp = join(dirname(path), `.data.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await conn.run(
      `COPY (SELECT * FROM ${table} WHERE exchange = $1 AND symbol = $2 AND session_date = $3::DATE ORDER BY ${ROW_ORDER[table]})
         TO $4 ${COPY_OPTIONS[format]}`,
      [partition.exchange, partition.symbol, partition.sessionDate, temp],
    );
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

async function recordExport(conn: DuckDBConnection, table: FileKind, selection: ExportSelection, partition: Partition, path: string, at: Date): Promise<void> {
  await conn.run(
    `INSERT OR REPLACE INTO sync.exports (out_dir, table_name, exchange, symbol, session_date, format, fingerprint, rows, path, exported_at)
     VALUES ($1, $2, $3, $4, $5::DATE, $6, $7, $8, $9, $10::TIMESTAMPTZ)`,
    [selection.outDir, table, partition.exchange, partition.symbol, partition.sessionDate, selection.format,
      partition.fingerprint, partition.rows, path, at.toISOString()],
  );
}
