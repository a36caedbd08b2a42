// Loads verified daily files into the tables. Each batch of files is read by one
// read_csv straight into the target table (no staging copy: it cost as much again as the read), in
// ONE transaction with the removal of older versions, the ledger rows and the layout's record
// (schema on read: the header decides which columns are read, unknown ones are kept, see
// schema-evolution.ts). Checks ride along: a row of
// another market or session fails the statement (load-sql.ts), and each file's row count is compared
// with the manifest before COMMIT. A failing batch is retried file by file so one bad file blocks no other.
import type { DuckDBConnection } from '@duckdb/node-api';
import { headerSignature } from './csv-header.js';
import { DATE_PATTERN } from './layouts.js';
import { loadedFiles, recordBatchLoaded, recordFileStatus } from './ledger.js';
import { readCsvOf, targetSelect } from './load-sql.js';
import { checkRowCounts, checkUniqueCaptures, dateRange, FILES_TABLE } from './load-checks.js';
import { describeFile, holds, prepareHeader, versionsOf, type LoadInput, type Prepared } from './load-prepare.js';

export { describeFile, type LoadInput } from './load-prepare.js';
import {
  applyChanges,
  evolutionOf,
  layoutNotes,
  numericColumns,
  readLayoutState,
  recordLayout,
  type LayoutState,
  type SchemaContract,
} from './schema-evolution.js';
import { refreshSessionCloses } from './session-closes.js';
import { configurationLocked } from './keep-memory.js';
import { conciseDbError, toIsoTimestamp } from './duckdb-text.js';
import { errorMessage } from '../core/errors.js';
import { isFileKind } from '../core/file-kinds.js';
import { fileKey, isExchange } from '../core/pairs.js';
import { SYMBOL_PATTERN } from '../core/names.js';

export interface LoadOptions {
  /** Most files read by one statement (default 32). */
  maxFilesPerBatch?: number;
  /** Most manifest rows per batch, bounding the work a failed batch wastes (default 20,000,000). */
  maxRowsPerBatch?: number;
  /** Load even when the same sha256 is already loaded (verify --repair, rebuild). */
  reload?: boolean;
  now?: () => Date;
  /** Called after each batch with how many of the files are done (loaded, skipped or failed). */
  onProgress?(filesDone: number): void;
  /**
   * Stops the load: no file is started after it, and the batch in flight is interrupted and rolled
   * back (its files are neither loaded nor failed), so a stop takes effect within a second whatever
   * the batch's size. The files not done are the caller's to keep.
   */
  signal?: AbortSignal;
  /** `freeze` holds a file with a new column or schema_version instead of loading it (default `evolve`). */
  schemaContract?: SchemaContract;
}

export interface FailedLoad {
  input: LoadInput;
  error: string;
}

export interface LoadReport {
  loaded: LoadInput[];
  /** Same sha256 already loaded: nothing done. */
  skipped: LoadInput[];
  failed: FailedLoad[];
  /** Not loaded under the `freeze` contract: a new layout, and why (nothing recorded; the caller keeps them waiting). */
  held: Array<{ input: LoadInput; reason: string }>;
  /** Layout news, once each: columns added or widened, a schema_version first seen. */
  warnings: string[];
  rowsLoaded: number;
  /** The signal stopped the load before every file was done. */
  stopped?: true;
}

const SHA256 = /^[0-9a-f]{64}$/i;

/** Checks the parts the SQL and the ledger will carry; returns a reason or undefined. */
export function invalidInputReason(input: LoadInput): string | undefined {
  if (!isExchange(input.exchange)) return `unknown exchange "${input.exchange}"`;
  if (!SYMBOL_PATTERN.test(input.symbol)) return `bad symbol "${input.symbol}"`;
  if (!DATE_PATTERN.test(input.sessionDate)) return `bad session date "${input.sessionDate}"`;
  if (!isFileKind(input.file)) return `unknown file kind "${String(input.file)}"`;
  if (!SHA256.test(input.sha256)) return 'bad sha256';
  if (!Number.isInteger(input.rows) || input.rows < 0) return `bad manifest row count ${input.rows}`;
  return undefined;
}

export async function loadFiles(conn: DuckDBConnection, files: readonly LoadInput[], options: LoadOptions = {}): Promise<LoadReport> {
  if (options.onProgress) await trackProgress(conn);
  const interrupt = () => conn.interrupt();
  options.signal?.addEventListener('abort', interrupt, { once: true });
  try {
    const report = await loadRounds(conn, files, options);
    if (options.signal?.aborted && filesDone(report) < files.length) report.stopped = true;
    return report;
  } finally {
    options.signal?.removeEventListener('abort', interrupt);
  }
}

async function loadRounds(conn: DuckDBConnection, files: readonly LoadInput[], options: LoadOptions): Promise<LoadReport> {
  const report: LoadReport = { loaded: [], skipped: [], failed: [], held: [], warnings: [], rowsLoaded: 0 };
  const now = options.now ?? (() => new Date());
  const stopped = () => options.signal?.aborted === true;
  for (const round of splitRounds(files)) {
    if (stopped()) break;
    const loaded = await loadedFiles(conn, round);
    const versions = await versionsOf(conn, round);
    // Only `freeze` compares a file's layout with what the warehouse holds before loading it.
    const state = options.schemaContract === 'freeze' ? await readLayoutState(conn) : undefined;
    const prepared = await prepareRound(conn, round, report, { loaded, versions, state }, options);
    options.onProgress?.(filesDone(report));
    for (const batch of makeBatches(prepared, options)) {
      if (stopped()) break;
      const before = filesDone(report);
      await withinBatch(
        conn,
        batch.length,
        (done) => options.onProgress?.(before + done),
        () => loadBatchWithFallback(conn, batch, report, now, stopped),
      );
      options.onProgress?.(filesDone(report));
    }
  }
  return report;
}

/** The round's files that need loading, their headers mapped; the others skipped, failed or held into `report`. */
async function prepareRound(
  conn: DuckDBConnection,
  round: readonly LoadInput[],
  report: LoadReport,
  { loaded, versions, state }: { loaded: Map<string, string>; versions: Map<LoadInput, number>; state: LayoutState | undefined },
  options: LoadOptions,
): Promise<Prepared[]> {
  const now = options.now ?? (() => new Date());
  const stopped = () => options.signal?.aborted === true;
  const prepared: Prepared[] = [];
  for (const input of round) {
    if (stopped()) break;
    const invalid = invalidInputReason(input);
    if (invalid) {
      report.failed.push({ input, error: `${describeFile(input)}: ${invalid}` });
      continue;
    }
    if (!options.reload && loaded.get(fileKey(input)) === input.sha256) {
      report.skipped.push(input);
      continue;
    }
    const header = await prepareHeader(input, versions.get(input) ?? null);
    if ('error' in header) await fail(conn, report, input, header.error, now());
    else if (state === undefined || !holds(header, options.schemaContract, state, report)) prepared.push(header);
  }
  return prepared;
}

/**
 * DuckDB measures a running statement's progress only with its progress bar on (never printed here).
 * A sandbox's settings are locked: its opener turned it on before the lock (open-writer.ts).
 */
async function trackProgress(conn: DuckDBConnection): Promise<void> {
  if (await configurationLocked(conn)) return;
  await conn.run('SET enable_progress_bar = true');
  await conn.run('SET enable_progress_bar_print = false');
  await conn.run('SET progress_bar_time = 0');
}

const PROGRESS_POLL_MS = 250;

/**
 * Runs a batch while telling how many of its files are done, from DuckDB's progress of the statement
 * running (the read_csv over the batch's files advances as each file is read), so a batch of 32
 * files does not show as one jump (which made the time left wrong). Never the whole batch: that is
 * said once it has committed.
 */
export async function withinBatch<T>(conn: DuckDBConnection, size: number, onDone: (done: number) => void, work: () => Promise<T>): Promise<T> {
  let shown = 0;
  const timer = setInterval(() => {
    // The batch runs several statements; only the read advances far, and what was said stays said.
    const done = Math.min(size - 1, Math.floor((conn.progress.percentage / 100) * size));
    if (done <= shown) return;
    shown = done;
    onDone(done);
  }, PROGRESS_POLL_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

function filesDone(report: LoadReport): number {
  return report.loaded.length + report.skipped.length + report.failed.length;
}

/**
 * Two versions of one file (or one path listed twice) must not share a statement: later ones go to
 * later rounds, which load in order.
 */
function splitRounds(files: readonly LoadInput[]): LoadInput[][] {
  const rounds: LoadInput[][] = [];
  const seenPerRound: Array<Set<string>> = [];
  for (const input of files) {
    const marks = [`key:${fileKey(input)}`, `path:${input.path}`];
    let index = seenPerRound.findIndex((seen) => marks.every((mark) => !seen.has(mark)));
    if (index < 0) {
      index = rounds.length;
      rounds.push([]);
      seenPerRound.push(new Set());
    }
    rounds[index]?.push(input);
    for (const mark of marks) seenPerRound[index]?.add(mark);
  }
  return rounds;
}

/** Files of one kind and one header shape, cut to the batch limits. */
function makeBatches(prepared: readonly Prepared[], options: LoadOptions): Prepared[][] {
  const maxFiles = Math.max(1, options.maxFilesPerBatch ?? 32);
  const maxRows = Math.max(1, options.maxRowsPerBatch ?? 20_000_000);
  const groups = new Map<string, Prepared[]>();
  for (const item of prepared) {
    const key = `${item.input.file}|${item.version ?? ''}|${headerSignature(item.mapping)}`;
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  const batches: Prepared[][] = [];
  for (const group of groups.values()) {
    let current: Prepared[] = [];
    let rows = 0;
    for (const item of group) {
      if (current.length > 0 && (current.length >= maxFiles || rows + item.input.rows > maxRows)) {
        batches.push(current);
        current = [];
        rows = 0;
      }
      current.push(item);
      rows += item.input.rows;
    }
    if (current.length > 0) batches.push(current);
  }
  return batches;
}

async function loadBatchWithFallback(conn: DuckDBConnection, batch: Prepared[], report: LoadReport, now: () => Date, stopped: () => boolean): Promise<void> {
  try {
    const done = await loadBatch(conn, batch, now());
    report.rowsLoaded += done.rows;
    report.loaded.push(...batch.map((item) => item.input));
    report.warnings.push(...done.notes.filter((note) => !report.warnings.includes(note)));
    return;
  } catch (error) {
    // Interrupted by a stop: rolled back, the files are not failed, they wait for the next load.
    if (stopped()) return;
    if (batch.length === 1 && batch[0]) {
      await fail(conn, report, batch[0].input, messageFor(batch[0].input, error), now());
      return;
    }
  }
  for (const item of batch) {
    if (stopped()) return;
    await loadBatchWithFallback(conn, [item], report, now, stopped);
  }
}

function messageFor(input: LoadInput, error: unknown): string {
  const raw = conciseDbError(errorMessage(error));
  const message = input.source === undefined ? raw : raw.replaceAll(input.path, input.source);
  return message.includes(input.source ?? input.path) ? message : `${describeFile(input)}: ${message}`;
}

async function fail(conn: DuckDBConnection, report: LoadReport, input: LoadInput, error: string, at: Date): Promise<void> {
  report.failed.push({ input, error });
  await recordFileStatus(conn, input, 'failed_load', error, at);
}

/** Loads one batch; returns the rows inserted and its layout news. Throws (having written nothing) on any problem. */
async function loadBatch(conn: DuckDBConnection, batch: Prepared[], at: Date): Promise<{ rows: number; notes: string[] }> {
  const first = batch[0];
  if (!first) return { rows: 0, notes: [] };
  try {
    await stageFiles(conn, batch, first.version);
    return await commitBatch(conn, first, batch, at);
  } finally {
    await conn.run(`DROP TABLE IF EXISTS temp.main.${FILES_TABLE}`);
  }
}

/** The batch's files, one row each: what the statements join rows to and what the ledger records. */
async function stageFiles(conn: DuckDBConnection, batch: Prepared[], version: number | null): Promise<void> {
  // One schema_version per batch (batches are cut by it): a constant, not a parameter per row.
  await conn.run(
    `CREATE OR REPLACE TEMP TABLE ${FILES_TABLE} (
       path VARCHAR, exchange VARCHAR, symbol VARCHAR, session_date DATE, rows BIGINT,
       sha256 VARCHAR, bytes BIGINT, archive_path VARCHAR, downloaded_at TIMESTAMPTZ,
       schema_version INTEGER DEFAULT ${version === null ? 'NULL' : String(Math.trunc(version))})`,
  );
  // One row of parameters per file; the table's column types cast the text of dates and times.
  const rows = batch.map(({ input }) => [
    input.path,
    input.exchange,
    input.symbol,
    input.sessionDate,
    input.rows,
    input.sha256,
    input.bytes,
    input.archivePath,
    toIsoTimestamp(input.downloadedAt),
  ]);
  let n = 0;
  const tuples = rows.map((row) => `(${row.map(() => `$${++n}`).join(', ')})`);
  await conn.run(
    `INSERT INTO temp.main.${FILES_TABLE} (path, exchange, symbol, session_date, rows, sha256, bytes, archive_path, downloaded_at)
     VALUES ${tuples.join(', ')}`,
    rows.flat(),
  );
}

/**
 * Adds or widens the columns of the batch's unknown header names, replaces older versions, inserts the
 * rows, writes the ledger rows and the layout's record: all or nothing.
 */
async function commitBatch(conn: DuckDBConnection, first: Prepared, batch: Prepared[], at: Date): Promise<{ rows: number; notes: string[] }> {
  const kind = first.input.file;
  const { mapping } = first;
  const expected = batch.reduce((sum, item) => sum + item.input.rows, 0);
  const paths = batch.map((item) => item.input.path);
  const readCsv = readCsvOf(paths, mapping.columns);
  // Only a header with unknown columns pays for a first read of its values (to type them).
  const numeric = await numericColumns(conn, readCsv, paths, mapping.unknown);
  await conn.run('BEGIN TRANSACTION');
  try {
    // A header of known columns only changes no table: the catalog is read only for unknown ones.
    const existing = mapping.unknown.length > 0 ? (await readLayoutState(conn)).columns[kind] : new Map<string, string>();
    const { changes, extras } = evolutionOf(existing, mapping.unknown, numeric);
    await applyChanges(conn, kind, changes);
    // The session's rows come from exactly one file (plus api fills for levels): clear them all.
    // For levels this is what keeps a file-backed session free of api rows, which levels_total
    // relies on (sql/005: a plain filter, no anti-join).
    // The constant date range lets DuckDB skip row groups of other dates instead of scanning years.
    await conn.run(
      `DELETE FROM ${kind} AS t USING temp.main.${FILES_TABLE} AS f
        WHERE t.exchange = f.exchange AND t.symbol = f.symbol AND t.session_date = f.session_date
          AND t.session_date BETWEEN $1::DATE AND $2::DATE`,
      dateRange(batch),
    );
    const inserted = await conn.run(
      `INSERT INTO ${kind} ${targetSelect(kind, mapping, extras)}
         FROM ${readCsv} AS s JOIN temp.main.${FILES_TABLE} AS f ON s.filename = f.path`,
      paths,
    );
    await checkRowCounts(conn, kind, batch);
    if (kind === 'levels') {
      await checkUniqueCaptures(conn, batch);
      await refreshSessionCloses(conn, `SELECT exchange, symbol, session_date FROM temp.main.${FILES_TABLE}`, dateRange(batch));
    }
    if (inserted.rowsChanged !== expected) {
      throw new Error(`inserted ${inserted.rowsChanged} rows where the manifests say ${expected}`);
    }
    await recordBatchLoaded(conn, `temp.main.${FILES_TABLE}`, kind, at);
    const { input } = first;
    const seen = { kind, version: first.version, mapping, firstFile: `${input.exchange}/${input.symbol}/${input.sessionDate}`, changes };
    const { newVersion } = await recordLayout(conn, seen, at);
    await conn.run('COMMIT');
    return { rows: inserted.rowsChanged, notes: layoutNotes(seen, newVersion) };
  } catch (error) {
    await conn.run('ROLLBACK');
    throw error;
  }
}
