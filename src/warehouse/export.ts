// `gexwh export`: writes the three data tables as hive partitions
// `<out>/<table>/exchange=X/symbol=Y/session_date=D/data.<parquet|csv>`, one file per partition.
// The partitions to write go out in one partitioned COPY per table (per 64 partitions) into a hidden
// staging folder, then each file is renamed into place, so a rerun replaces rather than adds and a
// crash never leaves half a partition (one COPY per partition was 0.54x a raw COPY). sync.exports remembers
// each partition's fingerprint: a rerun writes only new or changed sessions, `full` rewrites all,
// and partitions whose rows left the table are removed. The files keep the partition columns too,
// so each file is self-describing and read_parquet(..., hive_partitioning = true) types them right.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { duckdb } from './duckdb.js';
import { UsageError } from '../errors.js';
import { isIsoDate } from '../time/dates.js';
import { EXCHANGES, FILE_KINDS, SYMBOL_PATTERN, SYMBOL_RULE, isExchange, isFileKind, type FileKind } from './layouts.js';
import { openWarehouse } from './open.js';
import { checkSelectionNames } from '../known-names.js';
import { heldPairs, HELD_SOURCE } from './held-pairs.js';

export const EXPORT_FORMATS = ['parquet', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportOptions {
  dbPath: string;
  outDir: string;
  /** Default parquet. */
  format?: ExportFormat;
  /** Subset of levels, strikes_total, strikes_by_expiry (default all three). */
  tables?: readonly FileKind[];
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

/** Fills the defaults and folds case and repeats; the values are checked where the flags are parsed (src/cli/export-flags.ts). */
export function normalizeExportOptions(options: Omit<ExportOptions, 'dbPath' | 'now'>): ExportSelection {
  return {
    outDir: resolve(options.outDir),
    format: options.format ?? 'parquet',
    tables: nonEmpty(options.tables) ?? [...FILE_KINDS],
    since: options.since ?? null,
    until: options.until ?? null,
    exchanges: nonEmpty(options.exchanges?.map((e) => e.toLowerCase())),
    symbols: nonEmpty(options.symbols?.map((s) => s.toUpperCase())),
    full: options.full === true,
  };
}

function nonEmpty<T extends string>(values: readonly T[] | undefined): T[] | null {
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
    // A mistyped name would export nothing and say so quietly: name it, with the closest held names.
    if (selection.exchanges || selection.symbols) {
      const names = { ...(selection.exchanges ? { exchanges: selection.exchanges } : {}), ...(selection.symbols ? { symbols: selection.symbols } : {}) };
      checkSelectionNames(names, { pairs: await heldPairs(warehouse.connection), source: HELD_SOURCE });
    }
    return await exportOn(warehouse.connection, selection, options.now ?? (() => new Date()));
  } finally {
    warehouse.close();
  }
}

/** Exports on an open, migrated, writable connection. */
export async function exportOn(conn: DuckDBConnection, selection: ExportSelection, now: () => Date = () => new Date()): Promise<ExportResult> {
  removeLeftoverStaging(selection.outDir);
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

export interface Partition {
  exchange: string;
  symbol: string;
  sessionDate: string;
  rows: number;
  fingerprint: string;
}

export interface ExportedPartition {
  exchange: string;
  symbol: string;
  sessionDate: string;
  fingerprint: string;
  path: string;
}

const partitionKey = (p: { exchange: string; symbol: string; sessionDate: string }): string => `${p.exchange}|${p.symbol}|${p.sessionDate}`;

/**
 * The partitions to write (pure apart from `exists`): new ones, changed fingerprints, moved paths,
 * files deleted by hand, or all with `full`. The rest are skipped.
 */
export function stalePartitions(
  partitions: readonly Partition[],
  exported: ReadonlyMap<string, ExportedPartition>,
  pathOf: (partition: Partition) => string,
  full: boolean,
  exists: (path: string) => boolean = existsSync,
): Partition[] {
  return partitions.filter((partition) => {
    const previous = exported.get(partitionKey(partition));
    const path = pathOf(partition);
    return full || previous?.fingerprint !== partition.fingerprint || previous.path !== path || !exists(path);
  });
}

/** Partitions written by one COPY: one (exchange, symbol), consecutive session dates. */
export interface CopyRun {
  exchange: string;
  symbol: string;
  firstDate: string;
  lastDate: string;
  partitions: Partition[];
}

/**
 * Cuts the stale partitions into runs of consecutive partitions of one (exchange, symbol), at most
 * `max` each (pure). `partitions` is every partition of the selection in (exchange, symbol,
 * session_date) order, so a run holds exactly the table's rows of its pair between its first and
 * last date: its COPY needs only a range predicate, which zone maps serve (a semi-join with the
 * list of partitions cost ~8% more CPU).
 */
export function copyRuns(partitions: readonly Partition[], stale: ReadonlySet<Partition>, max: number): CopyRun[] {
  const runs: CopyRun[] = [];
  let open: CopyRun | null = null; // the run the next stale partition may extend
  for (const partition of partitions) {
    if (!stale.has(partition)) {
      open = null;
    } else if (open && open.exchange === partition.exchange && open.symbol === partition.symbol && open.partitions.length < max) {
      open.partitions.push(partition);
      open.lastDate = partition.sessionDate;
    } else {
      open = { exchange: partition.exchange, symbol: partition.symbol, firstDate: partition.sessionDate, lastDate: partition.sessionDate, partitions: [partition] };
      runs.push(open);
    }
  }
  return runs;
}

async function exportTable(conn: DuckDBConnection, table: FileKind, selection: ExportSelection, now: () => Date): Promise<ExportTableCounts> {
  const partitions = await listPartitions(conn, table, selection);
  const exported = await listExported(conn, table, selection);
  const pathOf = (p: Partition) => partitionPath(selection.outDir, table, selection.format, p.exchange, p.symbol, p.sessionDate);
  const stale = stalePartitions(partitions, exported, pathOf, selection.full);
  for (const run of copyRuns(partitions, new Set(stale), PARTITIONS_PER_COPY)) {
    await writeRun(conn, table, selection.format, run, pathOf, selection.outDir);
    await recordExports(conn, table, selection, run.partitions, pathOf, now());
  }
  const current = new Set(partitions.map(partitionKey));
  const gone = [...exported.values()].filter((partition) => !current.has(partitionKey(partition)));
  for (const partition of gone) {
    rmSync(partition.path, { force: true });
    await conn.run(
      `DELETE FROM sync.exports WHERE out_dir = $1 AND table_name = $2 AND format = $3 AND exchange = $4 AND symbol = $5 AND session_date = $6::DATE`,
      [selection.outDir, table, selection.format, partition.exchange, partition.symbol, partition.sessionDate],
    );
  }
  return {
    table,
    partitionsWritten: stale.length,
    partitionsSkipped: partitions.length - stale.length,
    partitionsRemoved: gone.length,
    rowsWritten: stale.reduce((sum, partition) => sum + partition.rows, 0),
  };
}

/** The selection's filters over (exchange, symbol, session_date) as SQL on parameters $1..$4. */
const FILTER = `($1::VARCHAR[] IS NULL OR list_contains($1::VARCHAR[], exchange))
            AND ($2::VARCHAR[] IS NULL OR list_contains($2::VARCHAR[], symbol))
            AND ($3::DATE IS NULL OR session_date >= $3::DATE)
            AND ($4::DATE IS NULL OR session_date <= $4::DATE)`;

function filterParams(selection: ExportSelection) {
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
    // duckdb_columns(), not information_schema.columns (a view over it, 5x slower); same text.
    `SELECT string_agg(column_name || ' ' || data_type, ',' ORDER BY column_index) AS layout
       FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = 'main' AND table_name = $1`,
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

/**
 * Most partitions per partitioned COPY. DuckDB keeps one writer open per partition up to
 * partitioned_write_max_open_files (default 100); past it, a partition can be split over several
 * files. Staying below keeps one file per partition (and bounds the writers' buffers).
 */
export const PARTITIONS_PER_COPY = 64;

/**
 * Staged files end in .tmp so no *.parquet / *.csv glob of a reader ever matches them, and the
 * staging folder is hidden; a crashed run's folder is removed by the next export.
 */
const STAGING_PREFIX = '.gexwh-export-';

const COPY_OPTIONS: Record<ExportFormat, string> = {
  parquet: 'FORMAT parquet',
  csv: 'FORMAT csv, HEADER true',
};

function removeLeftoverStaging(outDir: string): void {
  if (!existsSync(outDir)) return;
  for (const name of readdirSync(outDir)) {
    if (name.startsWith(STAGING_PREFIX)) rmSync(join(outDir, name), { recursive: true, force: true });
  }
}

/**
 * Writes a run's partitions with ONE partitioned COPY into a staging folder beside the export (same
 * file system, so the renames are atomic), then renames each partition's file into place: a reader
 * or a crash sees the old file or the new one, never half of one. Rows come out in no promised
 * order (DuckDB's partitioned write interleaves its threads' chunks; an ORDER BY cost +50%).
 */
async function writeRun(
  conn: DuckDBConnection,
  table: FileKind,
  format: ExportFormat,
  run: CopyRun,
  pathOf: (partition: Partition) => string,
  outDir: string,
): Promise<void> {
  const staging = join(outDir, `${STAGING_PREFIX}${randomBytes(6).toString('hex')}`);
  mkdirSync(staging, { recursive: true });
  try {
    // `table` is one of FILE_KINDS; the values are parameters.
    await conn.run(
      `COPY (SELECT * FROM ${table} WHERE exchange = $1 AND symbol = $2 AND session_date BETWEEN $3::DATE AND $4::DATE)
         TO $5 (${COPY_OPTIONS[format]}, PARTITION_BY (exchange, symbol, session_date), WRITE_PARTITION_COLUMNS true, FILE_EXTENSION 'tmp')`,
      [run.exchange, run.symbol, run.firstDate, run.lastDate, staging],
    );
    for (const partition of run.partitions) {
      const path = pathOf(partition);
      mkdirSync(dirname(path), { recursive: true });
      const staged = onlyFileIn(join(staging, `exchange=${partition.exchange}`, `symbol=${partition.symbol}`, `session_date=${partition.sessionDate}`));
      if (staged) renameSync(staged, path);
      else await writePartition(conn, table, format, partition, path); // split over files, or not found: write it alone
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** The one file of a staged partition folder, or null when there is none or more than one. */
export function onlyFileIn(folder: string): string | null {
  if (!existsSync(folder)) return null;
  const names = readdirSync(folder);
  return names.length === 1 && names[0] !== undefined ? join(folder, names[0]) : null;
}

/** One partition by itself, to a hidden temp name then renamed (the fallback of writePartitions). */
async function writePartition(conn: DuckDBConnection, table: FileKind, format: ExportFormat, partition: Partition, path: string): Promise<void> {
  const temp = join(dirname(path), `.data.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await conn.run(
      `COPY (SELECT * FROM ${table} WHERE exchange = $1 AND symbol = $2 AND session_date = $3::DATE) TO $4 (${COPY_OPTIONS[format]})`,
      [partition.exchange, partition.symbol, partition.sessionDate, temp],
    );
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** The export ledger rows of written partitions, in one statement. */
async function recordExports(
  conn: DuckDBConnection,
  table: FileKind,
  selection: ExportSelection,
  partitions: readonly Partition[],
  pathOf: (partition: Partition) => string,
  at: Date,
): Promise<void> {
  await conn.run(
    `INSERT OR REPLACE INTO sync.exports (out_dir, table_name, exchange, symbol, session_date, format, fingerprint, rows, path, exported_at)
     SELECT $1, $2, unnest($3::VARCHAR[]), unnest($4::VARCHAR[]), CAST(unnest($5::VARCHAR[]) AS DATE), $6,
            unnest($7::VARCHAR[]), unnest($8::BIGINT[]), unnest($9::VARCHAR[]), $10::TIMESTAMPTZ`,
    [
      selection.outDir,
      table,
      duckdb.listValue(partitions.map((p) => p.exchange)),
      duckdb.listValue(partitions.map((p) => p.symbol)),
      duckdb.listValue(partitions.map((p) => p.sessionDate)),
      selection.format,
      duckdb.listValue(partitions.map((p) => p.fingerprint)),
      duckdb.listValue(partitions.map((p) => p.rows)),
      duckdb.listValue(partitions.map(pathOf)),
      at.toISOString(),
    ],
  );
}
