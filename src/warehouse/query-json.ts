// The query's values as JSON (for --format json and jsonl, and the in-process result): DuckDB's own
// converter, but big integers stay exact and timestamps read as ISO 8601.
import type { DuckDBTypeId, DuckDBValueConverter, Json } from '@duckdb/node-api';
import { duckdb } from './duckdb.js';

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
export const jsonFriendly: DuckDBValueConverter<Json> = (value, type, converter) => {
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
