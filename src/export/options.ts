// What an export is asked for, and the partition paths it writes (pure).
import { join, resolve } from 'node:path';
import type { S3Options } from './s3.js';
import { isS3Url } from './s3-url.js';
import { EXPORT_TABLES, type ExportFormat, type ExportTable } from './tables.js';

/** The file of DuckDB statements every export writes at its root. */
export const VIEWS_SQL = 'views.sql';

/** The sync runs, one small file rewritten by every export: a reader's answer to "how fresh is this?". */
export const RUNS_TABLE = 'runs';

export interface ExportOptions {
  dbPath: string;
  outDir: string;
  /** Default parquet. */
  format?: ExportFormat;
  /** Subset of EXPORT_TABLES (default all). */
  tables?: readonly ExportTable[];
  /** Session dates, inclusive, YYYY-MM-DD. */
  since?: string;
  until?: string;
  exchanges?: readonly string[];
  symbols?: readonly string[];
  /** Rewrite every selected partition, whatever the export ledger says. */
  full?: boolean;
  /** Write into a local folder that holds files and is not a gexwh export (its files of the export's names are replaced). */
  force?: boolean;
  /** For an s3:// --out: endpoint, path-style addressing (credentials come from the AWS chain). */
  s3?: S3Options;
  /** Called after each file put in place: files done of the files this run writes, bytes so far. */
  onProgress?: (done: number, total: number, bytes: number) => void;
  now?: () => Date;
}

export interface ExportTableCounts {
  table: ExportTable;
  partitionsWritten: number;
  partitionsSkipped: number;
  /** Partitions whose rows are gone from the table: file and ledger row removed. */
  partitionsRemoved: number;
  rowsWritten: number;
}

export interface ExportResult {
  /** The folder, or the s3:// prefix. */
  outDir: string;
  format: ExportFormat;
  tables: ExportTableCounts[];
  partitionsWritten: number;
  partitionsSkipped: number;
  partitionsRemoved: number;
  rowsWritten: number;
  /** Bytes of the files put in place by this run (partitions, runs, views.sql, manifest). */
  bytesWritten: number;
  /** What the run left alone and the user may want to look at (never removed: the export did not write it, or cannot prove it did). */
  warnings: string[];
}

/** The validated selection (pure). */
export interface ExportSelection {
  outDir: string;
  format: ExportFormat;
  tables: ExportTable[];
  since: string | null;
  until: string | null;
  exchanges: string[] | null;
  symbols: string[] | null;
  full: boolean;
}

/** Fills the defaults and folds case and repeats; the values are checked where the flags are parsed (src/cli/export-flags.ts). */
export function normalizeExportOptions(options: Omit<ExportOptions, 'dbPath' | 'now'>): ExportSelection {
  return {
    outDir: isS3Url(options.outDir) ? options.outDir.replace(/\/+$/, '') : resolve(options.outDir),
    format: options.format ?? 'parquet',
    tables: nonEmpty(options.tables) ?? [...EXPORT_TABLES],
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

/** `<table>/exchange=X/symbol=Y/session_date=D/data.<format>` under the root (parts are validated upstream). */
export function partitionRelativePath(table: ExportTable, format: ExportFormat, exchange: string, symbol: string, sessionDate: string): string {
  return `${table}/exchange=${exchange}/symbol=${symbol}/session_date=${sessionDate}/data.${format}`;
}

/** The partition's file under a local export folder. */
export function partitionPath(outDir: string, table: ExportTable, format: ExportFormat, exchange: string, symbol: string, sessionDate: string): string {
  return join(outDir, partitionRelativePath(table, format, exchange, symbol, sessionDate));
}
