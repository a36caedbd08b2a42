// `gexwh query SQL`: runs the user's SQL in a DuckDB sandbox and hands its rows over chunk by chunk
// (the CLI prints them as a table, CSV or JSON, or writes a file). Two locks, either enough alone
// for most attacks: the sandbox (read-only file, no file or network access, no extensions,
// configuration locked) and a statement check by DuckDB's own parser (exactly one statement, of the
// SELECT kind). A statement stops at once on a signal or a timeout, through DuckDB's interrupt.
import { statSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import type { DuckDBConnection, DuckDBPreparedStatement, DuckDBResult } from '@duckdb/node-api';
import { errorMessage, GexwhError, InterruptedError, NoWarehouseError, QueryTimeoutError, RefusedQueryError, UsageError } from '../core/errors.js';
import { duckdb } from './duckdb.js';
import { openReader } from './open.js';
import { conciseDbError } from './duckdb-text.js';
import { quoteString } from '../core/sql-quote.js';
import { jsonFriendly } from './query-json.js';

export { bigintToJson } from './query-json.js';

export interface QueryColumn {
  name: string;
  /** DuckDB's type name, e.g. DOUBLE, TIMESTAMP WITH TIME ZONE, DATE. */
  type: string;
}

export interface QueryResult {
  columns: QueryColumn[];
  /** Keyed by column name (duplicates get DuckDB's deduplicated names: a, a:1 ...). */
  rows: Array<Record<string, unknown>>;
}

export interface QueryOptions {
  /** Folders whose files (Parquet, CSV ...) the SQL may read; nothing may be written anywhere. */
  readDirectories?: readonly string[];
  /** Aborting it (reason 'SIGINT' or 'SIGTERM') stops the statement. */
  signal?: AbortSignal;
  /** Stops the statement once it has run this many seconds. */
  timeoutSeconds?: number;
  /** Told when the checked statement starts to run (--verbose says so; tests wait for it). */
  onStart?(): void;
}

/** A running read, handed to the consumer of withQuery. */
export interface QueryRows {
  /** Deduplicated names (a, a:1 ...) and DuckDB's types. */
  columns: QueryColumn[];
  /** Aborted when the statement is cancelled, so a writer waiting on a full pipe stops waiting. */
  cancelled: AbortSignal;
  /** The rows, one batch per DuckDB chunk (2,048 rows at most), each row its JSON-friendly values in column order. */
  batches(): AsyncGenerator<unknown[][]>;
  /** Reads the rest of the result without converting it; resolves to how many rows that was. */
  countRest(): Promise<number>;
}

/** What `query` runs, for the messages: the statement kinds DuckDB classes as SELECT. */
export const READ_STATEMENTS = 'SELECT, WITH, FROM, VALUES, TABLE, DESCRIBE, SHOW, SUMMARIZE, PRAGMA table_info';

/**
 * Opens the warehouse in the sandbox, runs `sql` if it is one read and hands its rows to `consume`
 * as they come, closes. Bad SQL → UsageError, anything else than one read → RefusedQueryError (both
 * exit 2), before any of it runs; a signal → InterruptedError, the timeout → QueryTimeoutError.
 */
export async function withQuery<T>(dbPath: string, sql: string, options: QueryOptions, consume: (rows: QueryRows) => Promise<T>): Promise<T> {
  if (sql.trim() === '') throw new UsageError('query: the SQL text is empty');
  const readDirectories = (options.readDirectories ?? []).map(readableFolder);
  const warehouse = await openQueryReader(dbPath, { readDirectories });
  const cancel = watchCancel(warehouse.connection, options);
  try {
    const statement = await prepareOneRead(warehouse.connection, sql);
    options.onStart?.();
    const result = await statement.stream().catch((error: unknown) => Promise.reject(dbFailure(error)));
    cancel.throwIfCancelled();
    return await consume(rowsOf(result, cancel));
  } catch (error) {
    // A statement DuckDB interrupted fails with its own words; the user asked for the stop.
    throw cancel.error() ?? error;
  } finally {
    cancel.dispose();
    warehouse.close();
  }
}

/** Every row of one read, in memory: for small results. */
export async function runQuery(dbPath: string, sql: string, options: QueryOptions = {}): Promise<QueryResult> {
  return withQuery(dbPath, sql, options, collect);
}

/** Runs `sql` on an open connection if it is exactly one read; DuckDB errors become UsageError. */
export async function runQueryOn(connection: DuckDBConnection, sql: string): Promise<QueryResult> {
  const statement = await prepareOneRead(connection, sql);
  const result = await statement.stream().catch((error: unknown) => Promise.reject(dbFailure(error)));
  const cancel = watchCancel(connection, {});
  try {
    return await collect(rowsOf(result, cancel));
  } finally {
    cancel.dispose();
  }
}

async function collect(rows: QueryRows): Promise<QueryResult> {
  const names = rows.columns.map((c) => c.name);
  const objects: Array<Record<string, unknown>> = [];
  for await (const batch of rows.batches()) {
    for (const values of batch) objects.push(Object.fromEntries(names.map((name, i) => [name, values[i] ?? null])));
  }
  return { columns: rows.columns, rows: objects };
}

/**
 * Writes the result of one read as Parquet to `target` with DuckDB's own writer, on a sandbox whose
 * only writable path is `target`: the statement run is the user's SELECT, checked as for any query,
 * inside a COPY this code writes. Resolves to the rows written.
 */
export async function copyQueryToParquet(
  dbPath: string,
  sql: string,
  target: string,
  options: QueryOptions,
): Promise<{ rows: number; columns: QueryColumn[] }> {
  if (sql.trim() === '') throw new UsageError('query: the SQL text is empty');
  const readDirectories = (options.readDirectories ?? []).map(readableFolder);
  const warehouse = await openQueryReader(dbPath, { readDirectories, writeFiles: [target] });
  const cancel = watchCancel(warehouse.connection, options);
  try {
    const statement = await prepareOneRead(warehouse.connection, sql);
    const columns = preparedColumns(statement);
    const copy = await prepareCopy(warehouse.connection, sql, target);
    options.onStart?.();
    const result = await copy.run().catch((error: unknown) => Promise.reject(dbFailure(error)));
    cancel.throwIfCancelled();
    return { rows: result.rowsChanged, columns };
  } catch (error) {
    throw cancel.error() ?? error;
  } finally {
    cancel.dispose();
    warehouse.close();
  }
}

/** The user's SQL inside a COPY, checked again as a whole: one statement, a COPY, and nothing else. */
async function prepareCopy(connection: DuckDBConnection, sql: string, target: string): Promise<DuckDBPreparedStatement> {
  // The newline ends a trailing -- comment; a trailing ; would end the statement inside the parentheses.
  const text = `COPY (${sql.replace(/[\s;]+$/, '')}\n) TO ${quoteString(target)} (FORMAT parquet)`;
  const extracted = await connection.extractStatements(text).catch((error: unknown) => Promise.reject(dbFailure(error)));
  if (extracted.count !== 1) throw new RefusedQueryError('query refused: the SQL does not fit inside COPY (...) TO as one SELECT');
  const prepared = await extracted.prepare(0).catch((error: unknown) => Promise.reject(dbFailure(error)));
  if (prepared.statementType !== duckdb.StatementType.COPY)
    throw new RefusedQueryError('query refused: the SQL does not fit inside COPY (...) TO as one SELECT');
  return prepared;
}

function preparedColumns(statement: DuckDBPreparedStatement): QueryColumn[] {
  return Array.from({ length: statement.columnCount }, (_, i) => ({ name: statement.columnName(i), type: statement.columnType(i).toString() }));
}

async function openQueryReader(dbPath: string, sandbox: { readDirectories: string[]; writeFiles?: string[] }) {
  try {
    return await openReader(dbPath, sandbox);
  } catch (error) {
    if (error instanceof NoWarehouseError) throw new NoWarehouseError(error.dbPath, 'query');
    throw error;
  }
}

/** An existing folder, absolute and ending in the separator (DuckDB compares path prefixes). */
function readableFolder(folder: string): string {
  const absolute = resolve(folder);
  let isFolder: boolean;
  try {
    isFolder = statSync(absolute).isDirectory();
  } catch {
    isFolder = false;
  }
  if (!isFolder) throw new UsageError(`--read-dir: ${folder} is not an existing folder`, { folder: absolute });
  return absolute.endsWith(sep) ? absolute : `${absolute}${sep}`;
}

interface Cancel {
  signal: AbortSignal;
  /** The error that says why the statement was stopped, once it was. */
  error(): GexwhError | undefined;
  throwIfCancelled(): void;
  dispose(): void;
}

/**
 * Interrupts the statement on the first signal or at the timeout. DuckDB checks its interrupt flag
 * between chunks of work, so even a long aggregate stops within milliseconds; but a statement that
 * starts just after the interrupt clears the flag and runs on (measured: an interrupt before a
 * 3-billion-row count was lost), so the interrupt is repeated until the statement settles.
 */
function watchCancel(connection: DuckDBConnection, options: QueryOptions): Cancel {
  const controller = new AbortController();
  let reason: GexwhError | undefined;
  let repeat: NodeJS.Timeout | undefined;
  const stop = (error: GexwhError) => {
    if (reason) return;
    reason = error;
    connection.interrupt();
    repeat = setInterval(() => connection.interrupt(), INTERRUPT_REPEAT_MS);
    controller.abort(error);
  };
  const onSignal = () => stop(new InterruptedError(signalName(options.signal?.reason), { message: `query cancelled (${signalName(options.signal?.reason)})` }));
  if (options.signal?.aborted) onSignal();
  else options.signal?.addEventListener('abort', onSignal, { once: true });
  const seconds = options.timeoutSeconds;
  const timer =
    seconds === undefined || seconds <= 0
      ? undefined
      : setTimeout(() => stop(new QueryTimeoutError(`query cancelled: it ran past --timeout ${seconds} s`, { timeout_seconds: seconds })), seconds * 1000);
  return {
    signal: controller.signal,
    error: () => reason,
    throwIfCancelled() {
      if (reason) throw reason;
    },
    dispose() {
      if (timer) clearTimeout(timer);
      if (repeat) clearInterval(repeat);
      options.signal?.removeEventListener('abort', onSignal);
    },
  };
}

const INTERRUPT_REPEAT_MS = 100;

function signalName(reason: unknown): 'SIGINT' | 'SIGTERM' {
  return reason === 'SIGTERM' ? 'SIGTERM' : 'SIGINT';
}

function rowsOf(result: DuckDBResult, cancel: Cancel): QueryRows {
  const names = result.deduplicatedColumnNames();
  const types = result.columnTypes();
  return {
    columns: names.map((name, i) => ({ name, type: types[i]?.toString() ?? 'UNKNOWN' })),
    cancelled: cancel.signal,
    async *batches() {
      for (;;) {
        const chunk = await nextChunk(result, cancel);
        if (chunk === null) return;
        yield convertChunk(chunk);
      }
    },
    async countRest() {
      let count = 0;
      for (;;) {
        const chunk = await nextChunk(result, cancel);
        if (chunk === null) return count;
        count += chunk.rowCount;
      }
    },
  };
}

type Chunk = NonNullable<Awaited<ReturnType<DuckDBResult['fetchChunk']>>>;

/** The next chunk, or null at the end. An interrupted stream ends like a finished one: the cancel tells them apart. */
async function nextChunk(result: DuckDBResult, cancel: Cancel): Promise<Chunk | null> {
  cancel.throwIfCancelled();
  let chunk;
  try {
    chunk = await result.fetchChunk();
  } catch (error) {
    throw cancel.error() ?? dbFailure(error);
  }
  cancel.throwIfCancelled();
  return chunk === null || chunk.rowCount === 0 ? null : chunk;
}

function convertChunk(chunk: Chunk): unknown[][] {
  let columns;
  try {
    columns = chunk.convertColumns(jsonFriendly);
  } catch (error) {
    throw conversionFailure(error);
  }
  const rows: unknown[][] = new Array<unknown[]>(chunk.rowCount);
  for (let r = 0; r < chunk.rowCount; r++) rows[r] = columns.map((column) => column[r] ?? null);
  return rows;
}

/** A value Node cannot hold as one string (over 2^29 − 24 characters): say so, not "unexpected failure". */
function conversionFailure(error: unknown): Error {
  const message = errorMessage(error);
  if (error instanceof RangeError || /Cannot create a string longer than/i.test(message)) {
    return new UsageError(
      `query failed: a value of the result is too long to print (${message}); shorten it in the SQL, e.g. left(column, 1000)`,
      {},
      { cause: error },
    );
  }
  return error instanceof Error ? error : new Error(message);
}

/**
 * DuckDB's parser splits the text and the binder names each statement's kind, so no spelling
 * (comments, case, quoting, a second statement after a string) slips past a pattern. Preparing
 * binds but runs nothing; a file outside the sandbox already fails here.
 */
async function prepareOneRead(connection: DuckDBConnection, sql: string): Promise<DuckDBPreparedStatement> {
  let extracted;
  try {
    extracted = await connection.extractStatements(sql);
  } catch (error) {
    throw dbFailure(error);
  }
  if (extracted.count === 0) throw new UsageError('query: the SQL text holds no statement');
  if (extracted.count > 1) {
    throw new RefusedQueryError(`query refused: ${extracted.count} statements in one argument; query runs exactly one read (${READ_STATEMENTS})`);
  }
  let prepared;
  try {
    prepared = await extracted.prepare(0);
  } catch (error) {
    throw dbFailure(error);
  }
  if (prepared.statementType !== duckdb.StatementType.SELECT) {
    const kind = duckdb.StatementType[prepared.statementType];
    throw new RefusedQueryError(`query refused: ${kind} is not a read; query runs only reads (${READ_STATEMENTS})`);
  }
  await refuseSideEffects(connection, sql);
  return prepared;
}

/**
 * Table functions DuckDB runs inside a SELECT that change something: a checkpoint writes the
 * database file, the others switch logging, profiling or the parser, or run serialized SQL.
 */
const SIDE_EFFECT_FUNCTIONS = new Set([
  'checkpoint',
  'force_checkpoint',
  'enable_logging',
  'disable_logging',
  'truncate_duckdb_logs',
  'enable_profiling',
  'disable_profiling',
  'enable_peg_parser',
  'disable_peg_parser',
  'json_execute_serialized_sql',
]);

/**
 * A SELECT can still call a table function that acts (`SELECT * FROM checkpoint()`), directly or
 * through a view: the physical plan names every function it will run, however the SQL spelled it.
 * A read DuckDB cannot explain (PRAGMA table_info) has no table function of the user's to run.
 */
async function refuseSideEffects(connection: DuckDBConnection, sql: string): Promise<void> {
  // The newline ends a trailing -- comment; a trailing ; would end the statement early.
  const extracted = await connection.extractStatements(`EXPLAIN (FORMAT json) ${sql.replace(/[\s;]+$/, '')}\n`).catch(() => undefined);
  if (extracted === undefined || extracted.count !== 1) return;
  const plan = await extracted
    .prepare(0)
    .then((statement) => statement.runAndReadAll())
    .catch(() => undefined);
  const text = plan?.getRowObjectsJS().find((row) => row.explain_key === 'physical_plan')?.explain_value;
  if (typeof text !== 'string') return;
  const acting = planFunctions(JSON.parse(text) as unknown).filter((name) => SIDE_EFFECT_FUNCTIONS.has(name));
  if (acting.length > 0) {
    throw new RefusedQueryError(
      `query refused: ${[...new Set(acting)].join(', ')}() changes the database or the session; query runs only reads (${READ_STATEMENTS})`,
    );
  }
}

/** Every operator and function name of an EXPLAIN (FORMAT json) plan, lower case. */
function planFunctions(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(planFunctions);
  if (typeof node !== 'object' || node === null) return [];
  const { name, extra_info: info, children } = node as { name?: unknown; extra_info?: { Function?: unknown }; children?: unknown };
  const own = [name, info?.Function].filter((v): v is string => typeof v === 'string').map((v) => v.toLowerCase());
  return [...own, ...planFunctions(children ?? [])];
}

/** A sandbox refusal (a file or extension outside it, a locked setting) or plain bad SQL. */
function dbFailure(error: unknown): UsageError {
  const message = conciseDbError(errorMessage(error));
  if (/^Permission Error:/i.test(message)) {
    return new RefusedQueryError(
      `query refused: file and network access outside the warehouse is off (${message}); pass --read-dir FOLDER to read files under a folder`,
      {},
      { cause: error },
    );
  }
  if (/the configuration has been locked/i.test(message)) {
    return new RefusedQueryError(`query refused: settings cannot be changed (${message})`, {}, { cause: error });
  }
  return new UsageError(`query failed: ${message}`, {}, { cause: error });
}
