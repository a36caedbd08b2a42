// What the sync planner needs from the warehouse, computed in SQL. A nightly run on a long history
// holds ~100k manifest rows that are all loaded; turning them and the ledger into JS objects cost
// seconds and hundreds of MB. Here DuckDB does the anti-join (manifest rows with no `loaded` ledger
// row of the same sha256) and counts the loaded ones per pair, so only the few pending rows and
// their ledger versions cross into JS. planSync (src/sync/download-plan.ts) makes every decision from them.
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { duckdb } from './duckdb.js';
import type { FileKind } from '../core/file-kinds.js';
import { pairKey } from '../core/pairs.js';
import { FILE_STATUSES, type LedgerEntry, type StoredManifestRow } from '../core/rows.js';
import { STORED_MANIFEST_ROW } from './manifest.js';
import { nullable, num, oneOf, readRows, text } from './read-rows.js';

export interface PlanStateFilter {
  pairs: readonly { exchange: string; symbol: string }[];
  files: readonly FileKind[];
  /** Inclusive session-date bounds, YYYY-MM-DD. */
  since?: string;
  until?: string;
}

/** A ledger version of a pending file (the fields planSync reads), its archive path always read. */
export type PendingLedgerRow = LedgerEntry & { archivePath: string | null };

export interface PlanState {
  /** Selected manifest rows whose version is not loaded. */
  pending: StoredManifestRow[];
  /** Every ledger version of the pending rows' files (older loaded ones, failed attempts). */
  ledger: PendingLedgerRow[];
  /** Selected manifest rows already loaded, per `exchange|symbol`. */
  loadedByPair: Map<string, number>;
}

const SELECTED = `
  SELECT m.exchange, m.symbol, m.session_date, m.file, m.rows, m.bytes, m.sha256, m.schema_version
    FROM sync.manifest m
   WHERE list_contains($1::VARCHAR[], m.exchange || '|' || m.symbol)
     AND list_contains($2::VARCHAR[], m.file)
     AND ($3::DATE IS NULL OR m.session_date >= $3::DATE)
     AND ($4::DATE IS NULL OR m.session_date <= $4::DATE)`;

const LOADED_VERSIONS = `SELECT exchange, symbol, session_date, file, sha256 FROM sync.files WHERE status = 'loaded'`;

const PENDING = `
  SELECT s.* FROM (${SELECTED}) s
  ANTI JOIN (${LOADED_VERSIONS}) f USING (exchange, symbol, session_date, file, sha256)`;

export async function readPlanState(conn: DuckDBConnection, filter: PlanStateFilter): Promise<PlanState> {
  if (filter.pairs.length === 0 || filter.files.length === 0) return { pending: [], ledger: [], loadedByPair: new Map() };
  const params: DuckDBValue[] = [
    duckdb.listValue(filter.pairs.map((p) => pairKey(p))),
    duckdb.listValue([...filter.files]),
    filter.since ?? null,
    filter.until ?? null,
  ];
  return {
    pending: await readPending(conn, params),
    ledger: await readPendingLedger(conn, params),
    loadedByPair: await countLoaded(conn, params),
  };
}

async function readPending(conn: DuckDBConnection, params: DuckDBValue[]): Promise<StoredManifestRow[]> {
  return readRows(
    conn,
    `SELECT exchange, symbol, session_date::VARCHAR AS session_date, file, rows, bytes, sha256, schema_version
       FROM (${PENDING}) ORDER BY exchange, symbol, session_date DESC, file`,
    params,
    STORED_MANIFEST_ROW,
  );
}

async function readPendingLedger(conn: DuckDBConnection, params: DuckDBValue[]): Promise<PendingLedgerRow[]> {
  return readRows(
    conn,
    `SELECT f.exchange, f.symbol, f.session_date::VARCHAR AS "sessionDate", f.file, f.sha256, f.status, f.archive_path AS "archivePath"
       FROM sync.files f
       SEMI JOIN (${PENDING}) p USING (exchange, symbol, session_date, file)
      ORDER BY f.exchange, f.symbol, f.session_date, f.file, f.updated_at`,
    params,
    { exchange: text, symbol: text, sessionDate: text, file: text, sha256: text, status: oneOf(FILE_STATUSES), archivePath: nullable(text) },
  );
}

async function countLoaded(conn: DuckDBConnection, params: DuckDBValue[]): Promise<Map<string, number>> {
  const rows = await readRows(
    conn,
    `SELECT s.exchange, s.symbol, count(*) AS loaded
       FROM (${SELECTED}) s
       SEMI JOIN (${LOADED_VERSIONS}) f USING (exchange, symbol, session_date, file, sha256)
      GROUP BY s.exchange, s.symbol`,
    params,
    { exchange: text, symbol: text, loaded: num },
  );
  return new Map(rows.map((row) => [pairKey(row), row.loaded]));
}
