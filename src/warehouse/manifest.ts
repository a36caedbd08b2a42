// sync.manifest (every manifest row last seen) and sync.coverage (remote coverage last seen).
import type { DuckDBConnection } from '@duckdb/node-api';
import { DATE_PATTERN } from './layouts.js';
import { toIsoTimestamp } from './duckdb-text.js';
import { FILE_KINDS, isFileKind } from '../core/file-kinds.js';
import type { CoverageRow, ManifestRow, StoredManifestRow } from '../core/rows.js';
import { fileKey, pairKey, type FileKeyParts, type Pair } from '../core/pairs.js';
import { duckdb } from './duckdb.js';
import { nullable, num, oneOf, readRow, readRows, text } from './read-rows.js';

const STAGE = 'gexwh_manifest_stage';

/** A manifest row whose file kind is still to be checked (one read back from the journal): upsert checks it. */
export type UncheckedManifestRow = Omit<ManifestRow, 'file'> & { file: string };

/**
 * Upserts manifest rows of one (exchange, symbol). Fast for a whole history (100k+ rows): an
 * appender fills a temp table, then one INSERT OR REPLACE merges it. Rows seen twice (page
 * overlap) are merged, the last one winning. Rows of a file kind gexwh does not know, or with a
 * malformed date, are skipped (never trusted); returns the number of rows upserted.
 */
export async function upsertManifest(
  conn: DuckDBConnection,
  exchange: string,
  symbol: string,
  rows: readonly UncheckedManifestRow[],
  listedAt: Date | string,
): Promise<number> {
  const unique = new Map<string, UncheckedManifestRow>();
  for (const row of rows) {
    if (!isFileKind(row.file) || !DATE_PATTERN.test(row.session_date)) continue;
    unique.set(`${row.session_date}|${row.file}`, row);
  }
  if (unique.size === 0) return 0;

  await conn.run(
    `CREATE OR REPLACE TEMP TABLE ${STAGE} (
       session_date VARCHAR, file VARCHAR, rows BIGINT, bytes BIGINT, sha256 VARCHAR, schema_version INTEGER)`,
  );
  try {
    const appender = await conn.createAppender(STAGE, 'main', 'temp');
    for (const row of unique.values()) {
      appender.appendVarchar(row.session_date);
      appender.appendVarchar(row.file);
      appender.appendBigInt(BigInt(row.rows));
      appender.appendBigInt(BigInt(row.bytes));
      appender.appendVarchar(row.sha256);
      appender.appendInteger(row.schema_version);
      appender.endRow();
    }
    appender.flushSync();
    appender.closeSync();
    await conn.run(
      `INSERT OR REPLACE INTO sync.manifest
         (exchange, symbol, session_date, file, rows, bytes, sha256, schema_version, listed_at)
       SELECT $1, $2, session_date::DATE, file, rows, bytes, sha256, schema_version, $3::TIMESTAMPTZ
         FROM temp.main.${STAGE}`,
      [exchange, symbol, toIsoTimestamp(listedAt)],
    );
  } finally {
    await conn.run(`DROP TABLE IF EXISTS temp.main.${STAGE}`);
  }
  return unique.size;
}

/** How much of a pair's manifest is stored (sql/011). */
export interface ListingState {
  /** Newest session date in sync.manifest, or null when nothing is stored. */
  newestStored: string | null;
  /** Every row from this session date to newestStored has been listed; null: from the first file. */
  completeFrom: string | null;
}

export async function readListingState(conn: DuckDBConnection, exchange: string, symbol: string): Promise<ListingState> {
  const row = await readRow(
    conn,
    `SELECT (SELECT max(session_date)::VARCHAR FROM sync.manifest WHERE exchange = $1 AND symbol = $2) AS newest,
            (SELECT complete_from::VARCHAR FROM sync.listings WHERE exchange = $1 AND symbol = $2) AS complete_from`,
    [exchange, symbol],
    { newest: nullable(text), complete_from: nullable(text) },
  );
  return { newestStored: row?.newest ?? null, completeFrom: row?.complete_from ?? null };
}

/** Each pair's listing state, by `exchange|symbol`. */
export async function readListingStates(conn: DuckDBConnection, pairs: readonly Pair[]): Promise<Map<string, ListingState>> {
  const states = new Map<string, ListingState>();
  for (const pair of pairs) states.set(pairKey(pair), await readListingState(conn, pair.exchange, pair.symbol));
  return states;
}

/** A manifest listing a run made: its rows, when, and from which date it is whole (absent: sync.listings is left as it is). */
export interface Listed {
  exchange: string;
  symbol: string;
  rows: readonly UncheckedManifestRow[];
  listedAt: string;
  completeFrom?: string | null;
}

/** Stores listings a run made away from the warehouse (the journal's): their rows, and how much of each manifest they hold whole. */
export async function storeListings(conn: DuckDBConnection, listings: readonly Listed[]): Promise<void> {
  for (const listing of listings) {
    await upsertManifest(conn, listing.exchange, listing.symbol, listing.rows, listing.listedAt);
    if (listing.completeFrom !== undefined) await recordListing(conn, listing.exchange, listing.symbol, listing.completeFrom, new Date(listing.listedAt));
  }
}

/** Records from which session date the pair's stored manifest is complete (null: the first file). */
export async function recordListing(conn: DuckDBConnection, exchange: string, symbol: string, completeFrom: string | null, at: Date): Promise<void> {
  await conn.run(`INSERT OR REPLACE INTO sync.listings (exchange, symbol, complete_from, listed_at) VALUES ($1, $2, $3::DATE, $4::TIMESTAMPTZ)`, [
    exchange,
    symbol,
    completeFrom,
    at.toISOString(),
  ]);
}

/** Manifest rows held locally, optionally for one (exchange, symbol); newest first. */
export async function listManifest(conn: DuckDBConnection, exchange?: string, symbol?: string): Promise<StoredManifestRow[]> {
  return readRows(
    conn,
    `SELECT exchange, symbol, session_date::VARCHAR AS session_date, file, rows, bytes, sha256, schema_version
       FROM sync.manifest
      WHERE ($1::VARCHAR IS NULL OR exchange = $1::VARCHAR) AND ($2::VARCHAR IS NULL OR symbol = $2::VARCHAR)
      ORDER BY exchange, symbol, session_date DESC, file`,
    [exchange ?? null, symbol ?? null],
    STORED_MANIFEST_ROW,
  );
}

/** The manifest row of each file asked about, by fileKey(): the version a load of it must match. */
export async function manifestRowsOf(conn: DuckDBConnection, files: readonly FileKeyParts[]): Promise<Map<string, StoredManifestRow>> {
  const found = await readRows(
    conn,
    `SELECT exchange, symbol, session_date::VARCHAR AS session_date, file, rows, bytes, sha256, schema_version
       FROM sync.manifest
      WHERE list_contains($1::VARCHAR[], concat_ws('|', exchange, symbol, session_date, file))`,
    [duckdb.listValue(files.map(fileKey))],
    STORED_MANIFEST_ROW,
  );
  const rows = new Map<string, StoredManifestRow>();
  for (const row of found) rows.set(fileKey({ ...row, sessionDate: row.session_date }), row);
  return rows;
}

/** A sync.manifest row (session_date read as text). */
export const STORED_MANIFEST_ROW = {
  exchange: text,
  symbol: text,
  session_date: text,
  file: oneOf(FILE_KINDS),
  rows: num,
  bytes: num,
  sha256: text,
  schema_version: num,
};

/**
 * Replaces the stored coverage of the (exchange, symbol) pairs given, in one statement (a sync's
 * start writes every pair: one statement is ~5 ms, one per pair was ~5 ms each). A pair the answer
 * repeats is stored as its last row says, as one statement per row did; DuckDB refuses to update
 * one row twice in a statement, so the repeats go first.
 */
export async function upsertCoverage(conn: DuckDBConnection, rows: readonly CoverageRow[], fetchedAt: Date | string): Promise<void> {
  const lastOfEachPair = [...new Map(rows.map((row) => [pairKey(row), row])).values()];
  if (lastOfEachPair.length === 0) return;
  const at = toIsoTimestamp(fetchedAt);
  const values = lastOfEachPair.map((_, index) => {
    const p = index * COVERAGE_PARAMS;
    return `($${p + 1}, $${p + 2}, $${p + 3}::TIMESTAMPTZ, $${p + 4}::TIMESTAMPTZ, $${p + 5}, $${p + 6}::DATE, $${p + 7}::DATE, $${p + 8}::TIMESTAMPTZ)`;
  });
  await conn.run(
    `INSERT OR REPLACE INTO sync.coverage
       (exchange, symbol, first_ts, last_ts, sessions, files_first_date, files_last_date, fetched_at)
     VALUES ${values.join(', ')}`,
    lastOfEachPair.flatMap((row) => [
      row.exchange,
      row.symbol,
      row.first_ts ?? null,
      row.last_ts ?? null,
      row.sessions ?? null,
      row.files_first_date,
      row.files_last_date,
      at,
    ]),
  );
}

const COVERAGE_PARAMS = 8;

/** Coverage rows held locally, as the API shapes them. */
export async function listCoverage(conn: DuckDBConnection): Promise<CoverageRow[]> {
  return readRows(
    conn,
    `SELECT exchange, symbol,
            strftime(first_ts, '%Y-%m-%dT%H:%M:%SZ') AS first_ts, strftime(last_ts, '%Y-%m-%dT%H:%M:%SZ') AS last_ts,
            sessions, files_first_date::VARCHAR AS files_first_date, files_last_date::VARCHAR AS files_last_date
       FROM sync.coverage ORDER BY exchange, symbol`,
    [],
    {
      exchange: text,
      symbol: text,
      first_ts: nullable(text),
      last_ts: nullable(text),
      sessions: nullable(num),
      files_first_date: nullable(text),
      files_last_date: nullable(text),
    },
  );
}
