// Which coverage rows the sync can use. One odd row (a venue this version does not know, a symbol
// off the pattern, a row with no file dates) is set aside with its reason, and the other rows are
// synced as usual: a surprise in the free coverage never costs the night.

import type { RejectedCoverageRow } from '../api/schemas.js';
import { ApiError, ApiSchemaError } from '../core/errors.js';
import { EXCHANGES } from '../core/pairs.js';
import type { CoverageRow } from '../core/rows.js';

export interface SkippedCoverageRow {
  exchange: string | null;
  symbol: string | null;
  reason: string;
}

export interface CoverageListing {
  usable: CoverageRow[];
  skipped: SkippedCoverageRow[];
}

/** Splits rows that matched the spec into usable and skipped; rows the schema refused are skipped too. */
export function usableCoverage(rows: readonly CoverageRow[], rejected: readonly RejectedCoverageRow[] = []): CoverageListing {
  const usable: CoverageRow[] = [];
  const skipped: SkippedCoverageRow[] = rejected.map((row) => ({ exchange: row.exchange ?? null, symbol: row.symbol ?? null, reason: row.reason }));
  for (const row of rows) {
    const reason = unusableReason(row);
    if (reason === undefined) usable.push(row);
    else skipped.push({ exchange: row.exchange, symbol: row.symbol, reason });
  }
  return { usable, skipped };
}

function unusableReason(row: CoverageRow): string | undefined {
  if (!(EXCHANGES as readonly string[]).includes(row.exchange)) {
    return `unknown venue "${row.exchange}" (this version knows ${EXCHANGES.join(', ')})`;
  }
  if (row.files_first_date === null || row.files_last_date === null) return 'no file dates (files_first_date/files_last_date are null)';
  return undefined;
}

/** The one warning a skipped row gets. Names are cut to 40 characters: they come from the server. */
export function describeSkipped(row: SkippedCoverageRow): string {
  const cut = (value: string | null) => (value === null ? '?' : value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return `coverage row ${cut(row.exchange)}/${cut(row.symbol)} skipped: ${row.reason}; the other pairs are synced`;
}

/** The reason when an error concerns one pair's answer (a 4xx other than auth and quota, a payload off the spec), else undefined. */
export function pairOnlyFailure(error: unknown): string | undefined {
  if (error instanceof ApiSchemaError) return error.message;
  if (error instanceof ApiError && error.status >= 400 && error.status < 500 && ![401, 403, 429].includes(error.status)) {
    return `HTTP ${error.status} ${error.slug}: ${error.message}`;
  }
  return undefined;
}
