// `gexwh query SQL`: runs the user's SQL on a read-only warehouse and returns JSON-friendly rows
// (the CLI prints them as a table, CSV or JSON). Read-only is DuckDB's own access mode, so a write
// statement fails inside DuckDB whatever the SQL looks like.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DuckDBConnection, DuckDBTypeId, DuckDBValueConverter, Json } from '@duckdb/node-api';
import { UsageError } from '../errors.js';
import { duckdb } from './duckdb.js';
import { openWarehouse } from './open.js';
import { errorMessage } from './values.js';

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

/** Opens the warehouse read-only, runs `sql`, closes. Bad SQL or a write → UsageError (exit 2). */
export async function runQuery(dbPath: string, sql: string): Promise<QueryResult> {
  if (sql.trim() === '') throw new UsageError('query: the SQL text is empty');
  if (!existsSync(resolve(dbPath))) {
    throw new UsageError(`query: no warehouse at ${dbPath} (run gexwh sync first, or pass --db)`, { db: dbPath });
  }
  const warehouse = await openWarehouse(dbPath, { readOnly: true });
  try {
    return await runQueryOn(warehouse.connection, sql);
  } finally {
    warehouse.close();
  }
}

/** Runs `sql` on an open connection (the demo reuses its own); DuckDB errors become UsageError. */
export async function runQueryOn(connection: DuckDBConnection, sql: string): Promise<QueryResult> {
  let reader;
  try {
    reader = await connection.runAndReadAll(sql);
  } catch (error) {
    throw new UsageError(`query failed: ${errorMessage(error)}`, {}, { cause: error });
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
