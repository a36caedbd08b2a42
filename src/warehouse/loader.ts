// Loads verified daily files into the tables (DESIGN §4.5, §6). Each batch of files is read by one
// read_csv into a temp staging table, checked (row counts against the manifest, the file's own
// exchange/symbol/session), then its rows, the removal of older versions and the ledger rows commit
// in ONE transaction. A failing batch is retried file by file so one bad file blocks no other.
import type { DuckDBConnection } from '@duckdb/node-api';
import { headerSignature, mapHeader, parseHeaderLine, readGzipHeaderLine, type CsvColumn } from './csv-header.js';
import { DATE_PATTERN, SYMBOL_PATTERN, isExchange, isFileKind, type FileKind } from './layouts.js';
import { fileKey, loadedFiles, recordFileStatus, type LedgerFile } from './ledger.js';
import { targetSelect } from './load-sql.js';
import { conciseDbError, errorMessage, toIsoTimestamp } from './values.js';

export interface LoadInput extends LedgerFile {
  /** The verified .csv.gz to read (in the archive). */
  path: string;
  bytes: number;
  /** Row count from the manifest. */
  rows: number;
  archivePath: string;
  downloadedAt: Date | string;
}

export interface LoadOptions {
  /** Most files read by one statement (default 32). */
  maxFilesPerBatch?: number;
  /** Most manifest rows per batch, bounding the staging table's memory (default 2,000,000). */
  maxRowsPerBatch?: number;
  /** Load even when the same sha256 is already loaded (verify --repair, rebuild). */
  reload?: boolean;
  now?: () => Date;
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
  /** Unknown columns, once per (file kind, column). */
  warnings: string[];
  rowsLoaded: number;
}

interface Prepared {
  input: LoadInput;
  columns: CsvColumn[];
}

const SHA256 = /^[0-9a-f]{64}$/i;

/** Describes a file for messages: kind, market, session and where it is. */
export function describeFile(input: LoadInput): string {
  return `${input.file} file ${input.exchange}/${input.symbol}/${input.sessionDate} (${input.path})`;
}

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
  const report: LoadReport = { loaded: [], skipped: [], failed: [], warnings: [], rowsLoaded: 0 };
  const now = options.now ?? (() => new Date());
  const warned = new Set<string>();
  for (const round of splitRounds(files)) {
    const loaded = await loadedFiles(conn);
    const prepared: Prepared[] = [];
    for (const input of round) {
      const invalid = invalidInputReason(input);
      if (invalid) {
        report.failed.push({ input, error: `${describeFile(input)}: ${invalid}` });
        continue;
      }
      if (!options.reload && loaded.get(fileKey(input)) === input.sha256) {
        report.skipped.push(input);
        continue;
      }
      const header = await prepareHeader(input, warned, report.warnings);
      if ('error' in header) await fail(conn, report, input, header.error, now());
      else prepared.push(header);
    }
    for (const batch of makeBatches(prepared, options)) await loadBatchWithFallback(conn, batch, report, now);
  }
  return report;
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

async function prepareHeader(input: LoadInput, warned: Set<string>, warnings: string[]): Promise<Prepared | { error: string }> {
  try {
    const mapping = mapHeader(input.file, parseHeaderLine(await readGzipHeaderLine(input.path)));
    if (mapping.missing.length > 0) {
      const names = mapping.missing.map((name) => `"${name}"`).join(', ');
      return { error: `${describeFile(input)}: missing required column ${names}` };
    }
    for (const name of mapping.unknown) {
      const key = `${input.file}|${name}`;
      if (warned.has(key)) continue;
      warned.add(key);
      warnings.push(`${input.file} files carry an unknown column "${name}" (ignored); first seen in ${input.path}`);
    }
    return { input, columns: mapping.columns };
  } catch (error) {
    return { error: `${describeFile(input)}: cannot read the header: ${errorMessage(error)}` };
  }
}

/** Files of one kind and one header shape, cut to the batch limits. */
function makeBatches(prepared: readonly Prepared[], options: LoadOptions): Prepared[][] {
  const maxFiles = Math.max(1, options.maxFilesPerBatch ?? 32);
  const maxRows = Math.max(1, options.maxRowsPerBatch ?? 2_000_000);
  const groups = new Map<string, Prepared[]>();
  for (const item of prepared) {
    const key = `${item.input.file}|${headerSignature(item.columns)}`;
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

async function loadBatchWithFallback(conn: DuckDBConnection, batch: Prepared[], report: LoadReport, now: () => Date): Promise<void> {
  try {
    report.rowsLoaded += await loadBatch(conn, batch, now());
    report.loaded.push(...batch.map((item) => item.input));
    return;
  } catch (error) {
    if (batch.length === 1 && batch[0]) {
      await fail(conn, report, batch[0].input, messageFor(batch[0].input, error), now());
      return;
    }
  }
  for (const item of batch) await loadBatchWithFallback(conn, [item], report, now);
}

function messageFor(input: LoadInput, error: unknown): string {
  const message = conciseDbError(errorMessage(error));
  return message.includes(input.path) ? message : `${describeFile(input)}: ${message}`;
}

async function fail(conn: DuckDBConnection, report: LoadReport, input: LoadInput, error: string, at: Date): Promise<void> {
  report.failed.push({ input, error });
  await recordFileStatus(conn, input, 'failed_load', error, at);
}

const FILES_TABLE = 'gexwh_load_files';
const STAGE_TABLE = 'gexwh_load_stage';

/** Loads one batch; returns the rows inserted. Throws (having written nothing) on any problem. */
async function loadBatch(conn: DuckDBConnection, batch: Prepared[], at: Date): Promise<number> {
  const first = batch[0];
  if (!first) return 0;
  const kind = first.input.file;
  try {
    await stageFiles(conn, batch);
    await stageRows(conn, batch.map((item) => item.input.path), first.columns);
    await checkStaged(conn, batch);
    return await commitBatch(conn, kind, batch, at);
  } finally {
    await conn.run(`DROP TABLE IF EXISTS temp.main.${STAGE_TABLE}`);
    await conn.run(`DROP TABLE IF EXISTS temp.main.${FILES_TABLE}`);
  }
}

async function stageFiles(conn: DuckDBConnection, batch: Prepared[]): Promise<void> {
  await conn.run(
    `CREATE OR REPLACE TEMP TABLE ${FILES_TABLE} (
       path VARCHAR, exchange VARCHAR, symbol VARCHAR, session_date DATE, expected_rows BIGINT)`,
  );
  for (const { input } of batch) {
    await conn.run(`INSERT INTO temp.main.${FILES_TABLE} VALUES ($1, $2, $3, $4::DATE, $5)`, [
      input.path,
      input.exchange,
      input.symbol,
      input.sessionDate,
      input.rows,
    ]);
  }
}

/**
 * One read_csv over every file of the batch: explicit positional columns (auto-detection guesses
 * wrong and is slow), never ignore_errors (a broken file must fail, not load partly).
 */
async function stageRows(conn: DuckDBConnection, paths: string[], columns: CsvColumn[]): Promise<void> {
  const placeholders = paths.map((_, i) => `$${i + 1}`).join(', ');
  // Aliases and types come from the fixed layouts (csv-header.ts), never from file text.
  const columnSpec = columns.map((c) => `'${c.alias}': '${c.type}'`).join(', ');
  await conn.run(
    `CREATE OR REPLACE TEMP TABLE ${STAGE_TABLE} AS
       SELECT * FROM read_csv([${placeholders}], header = true, auto_detect = false, delim = ',', quote = '"',
                              escape = '"', columns = {${columnSpec}}, compression = 'gzip', filename = true)`,
    paths,
  );
}

/** Row counts must equal the manifest's, and every row must belong to the file's own market and session. */
async function checkStaged(conn: DuckDBConnection, batch: Prepared[]): Promise<void> {
  const reader = await conn.runAndReadAll(
    `SELECT f.path, f.expected_rows::BIGINT AS expected, count(s.filename)::BIGINT AS actual,
            count(s.filename) FILTER (WHERE lower(s.exchange) IS DISTINCT FROM f.exchange
                                         OR upper(s.symbol) IS DISTINCT FROM f.symbol
                                         OR s.session_date IS DISTINCT FROM f.session_date)::BIGINT AS foreign_rows,
            any_value(s.exchange) FILTER (WHERE lower(s.exchange) IS DISTINCT FROM f.exchange) AS other_exchange,
            any_value(s.symbol) FILTER (WHERE upper(s.symbol) IS DISTINCT FROM f.symbol) AS other_symbol,
            any_value(s.session_date::VARCHAR) FILTER (WHERE s.session_date IS DISTINCT FROM f.session_date) AS other_date
       FROM temp.main.${FILES_TABLE} f LEFT JOIN temp.main.${STAGE_TABLE} s ON s.filename = f.path
      GROUP BY f.path, f.expected_rows`,
  );
  const problems: string[] = [];
  const byPath = new Map(batch.map((item) => [item.input.path, item.input]));
  for (const row of reader.getRowObjectsJS()) {
    const input = byPath.get(String(row.path));
    if (!input) continue;
    const expected = Number(row.expected);
    const actual = Number(row.actual);
    if (actual !== expected) problems.push(`${describeFile(input)}: read ${actual} rows, the manifest says ${expected}`);
    if (Number(row.foreign_rows) > 0) {
      const seen = [row.other_exchange, row.other_symbol, row.other_date].filter((v) => v !== null && v !== undefined);
      problems.push(`${describeFile(input)}: ${row.foreign_rows} rows belong to another market or session (${seen.join(', ') || 'empty'})`);
    }
  }
  if (problems.length > 0) throw new Error(problems.join('; '));
}

/** Replaces older versions, inserts the rows and writes the ledger rows: all or nothing. */
async function commitBatch(conn: DuckDBConnection, kind: FileKind, batch: Prepared[], at: Date): Promise<number> {
  const expected = batch.reduce((sum, item) => sum + item.input.rows, 0);
  await conn.run('BEGIN TRANSACTION');
  try {
    // The session's rows come from exactly one file (plus api fills for levels): clear them all.
    await conn.run(
      `DELETE FROM ${kind} AS t USING temp.main.${FILES_TABLE} AS f
        WHERE t.exchange = f.exchange AND t.symbol = f.symbol AND t.session_date = f.session_date`,
    );
    const inserted = await conn.run(
      `INSERT INTO ${kind} ${targetSelect(kind)}
         FROM temp.main.${STAGE_TABLE} AS s JOIN temp.main.${FILES_TABLE} AS f ON s.filename = f.path`,
    );
    if (inserted.rowsChanged !== expected) {
      throw new Error(`inserted ${inserted.rowsChanged} rows where the manifests say ${expected}`);
    }
    for (const { input } of batch) await writeLoadedLedger(conn, input, at);
    await conn.run('COMMIT');
    return inserted.rowsChanged;
  } catch (error) {
    await conn.run('ROLLBACK');
    throw error;
  }
}

async function writeLoadedLedger(conn: DuckDBConnection, input: LoadInput, at: Date): Promise<void> {
  await conn.run(
    `UPDATE sync.files SET status = 'superseded', updated_at = $6::TIMESTAMPTZ
      WHERE exchange = $1 AND symbol = $2 AND session_date = $3::DATE AND file = $4 AND sha256 <> $5 AND status = 'loaded'`,
    [input.exchange, input.symbol, input.sessionDate, input.file, input.sha256, toIsoTimestamp(at)],
  );
  await recordFileStatus(conn, input, 'loaded', undefined, at);
}
