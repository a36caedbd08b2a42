// `gexwh query SQL`: runs the user's SQL in a DuckDB sandbox and returns JSON-friendly rows (the CLI
// prints them as a table, CSV or JSON). Two locks, either enough alone for most attacks: the
// sandbox (read-only file, no file or network access, no extensions, configuration locked) and a
// statement check by DuckDB's own parser (exactly one statement, of the SELECT kind).
import { existsSync, statSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import type { DuckDBConnection, DuckDBPreparedStatement, DuckDBTypeId, DuckDBValueConverter, Json } from '@duckdb/node-api';
import { errorMessage, RefusedQueryError, UsageError } from '../core/errors.js';
import { duckdb } from './duckdb.js';
import { openWarehouse } from './open.js';
import { conciseDbError } from './duckdb-text.js';

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
}

/** What `query` runs, for the messages: the statement kinds DuckDB classes as SELECT. */
export const READ_STATEMENTS = 'SELECT, WITH, FROM, VALUES, TABLE, DESCRIBE, SHOW, SUMMARIZE, PRAGMA table_info';

/**
 * Opens the warehouse in the sandbox, runs `sql` if it is one read, closes. Bad SQL → UsageError,
 * anything else than one read → RefusedQueryError (both exit 2), before any of it runs.
 */
export async function runQuery(dbPath: string, sql: string, options: QueryOptions = {}): Promise<QueryResult> {
  if (sql.trim() === '') throw new UsageError('query: the SQL text is empty');
  if (!existsSync(resolve(dbPath))) {
    throw new UsageError(`query: no warehouse at ${dbPath} (run gexwh sync first, or pass --db)`, { db: dbPath });
  }
  const readDirectories = (options.readDirectories ?? []).map(readableFolder);
  const warehouse = await openWarehouse(dbPath, { sandbox: { readDirectories } });
  try {
    return await runQueryOn(warehouse.connection, sql);
  } finally {
    warehouse.close();
  }
}

/** An existing folder, absolute and ending in the separator (DuckDB compares path prefixes). */
function readableFolder(folder: string): string {
  const absolute = resolve(folder);
  let isFolder = false;
  try {
    isFolder = statSync(absolute).isDirectory();
  } catch {
    isFolder = false;
  }
  if (!isFolder) throw new UsageError(`--read-dir: ${folder} is not an existing folder`, { folder: absolute });
  return absolute.endsWith(sep) ? absolute : `${absolute}${sep}`;
}

/** Runs `sql` on an open connection if it is exactly one read; DuckDB errors become UsageError. */
export async function runQueryOn(connection: DuckDBConnection, sql: string): Promise<QueryResult> {
  const statement = await prepareOneRead(connection, sql);
  let reader;
  try {
    reader = await statement.runAndReadAll();
  } catch (error) {
    throw dbFailure(error);
  }
  const names = reader.deduplicatedColumnNames();
  const types = reader.columnTypes();
  const columns = names.map((name, i) => ({ name, type: types[i]?.toString() ?? 'UNKNOWN' }));
  const rows = reader.convertRows(jsonFriendly).map((values) => {
    const row: Record<string, unknown> = {};
    names.forEach((name, i) => {
      row[name] = values[i] ?? null;
    });
    return row;
  });
  return { columns, rows };
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
  return prepared;
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

const BIG_INTEGER_TYPES = new Set<DuckDBTypeId>([
  duckdb.DuckDBTypeId.BIGINT,
  duckdb.DuckDBTypeId.UBIGINT,
  duckdb.DuckDBTypeId.HUGEINT,
  duckdb.DuckDBTypeId.UHUGEINT,
  duckdb.DuckDBTypeId.BIGNUM,
]);

const NAIVE_TIMESTAMP_TYPES = new Set<DuckDBTypeId>([
  duckdb.DuckDBTypeId.TIMESTAMP,
  duckdb.DuckDBTypeId.TIMESTAMP_S,
  duckdb.DuckDBTypeId.TIMESTAMP_MS,
  duckdb.DuckDBTypeId.TIMESTAMP_NS,
]);

/** A bigint as a number when no precision is lost, else as its exact decimal text. */
export function bigintToJson(value: bigint): number | string {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
}

/** Microseconds since the epoch → ISO 8601 with milliseconds; undefined outside JS Date's range. */
function isoFromMicros(micros: bigint): string | undefined {
  const date = new Date(Number(micros / 1000n));
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/**
 * DuckDB's JSON converter, except: big integers become numbers when safe, TIMESTAMPTZ becomes ISO
 * with Z and naive timestamps ISO without Z. Dates stay YYYY-MM-DD. Nested values recurse here.
 */
const jsonFriendly: DuckDBValueConverter<Json> = (value, type, converter) => {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint' && BIG_INTEGER_TYPES.has(type.typeId)) return bigintToJson(value);
  if (value instanceof duckdb.DuckDBTimestampTZValue) return isoFromMicros(value.micros) ?? value.toString();
  if (NAIVE_TIMESTAMP_TYPES.has(type.typeId)) {
    const micros = timestampMicros(value, type.typeId);
    const iso = micros === undefined ? undefined : isoFromMicros(micros);
    return iso ? iso.slice(0, -1) : String(value);
  }
  return duckdb.JsonDuckDBValueConverter(value, type, converter);
};

function timestampMicros(value: unknown, typeId: DuckDBTypeId): bigint | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as { micros?: unknown; seconds?: unknown; millis?: unknown; nanos?: unknown };
  if (typeId === duckdb.DuckDBTypeId.TIMESTAMP && typeof record.micros === 'bigint') return record.micros;
  if (typeId === duckdb.DuckDBTypeId.TIMESTAMP_S && typeof record.seconds === 'bigint') return record.seconds * 1_000_000n;
  if (typeId === duckdb.DuckDBTypeId.TIMESTAMP_MS && typeof record.millis === 'bigint') return record.millis * 1000n;
  if (typeId === duckdb.DuckDBTypeId.TIMESTAMP_NS && typeof record.nanos === 'bigint') return record.nanos / 1000n;
  return undefined;
}
