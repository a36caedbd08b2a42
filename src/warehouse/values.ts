// Small conversions between JS values and what DuckDB parameters and results carry.

/** ISO text for a TIMESTAMPTZ parameter (bound as `$n::TIMESTAMPTZ`). */
export function toIsoTimestamp(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : value;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
