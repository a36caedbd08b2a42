// sync.files (the ledger of downloaded file versions), sync.manifest and sync.coverage.
import type { DuckDBConnection } from '@duckdb/node-api';
import { duckdb } from './duckdb.js';
import { toIsoTimestamp } from './duckdb-text.js';
import { FILE_KINDS, type FileKind } from '../core/file-kinds.js';
import { fileKey, type FileKeyParts } from '../core/pairs.js';
import { FILE_STATUSES, type FileStatus } from '../core/rows.js';
import { nullable, num, oneOf, readRows, text } from './read-rows.js';

/** One file version as the ledger records it. */
export interface LedgerFile extends FileKeyParts {
  sha256: string;
  bytes?: number | null;
  rows?: number | null;
  archivePath?: string | null;
  downloadedAt?: Date | string | null;
}

/** Another attempt at a version already in the ledger updates its row; unknown sizes keep the old. */
const ON_CONFLICT_UPDATE = `
  ON CONFLICT (exchange, symbol, session_date, file, sha256) DO UPDATE SET
    bytes = coalesce(excluded.bytes, sync.files.bytes),
    rows = coalesce(excluded.rows, sync.files.rows),
    archive_path = coalesce(excluded.archive_path, sync.files.archive_path),
    downloaded_at = coalesce(excluded.downloaded_at, sync.files.downloaded_at),
    loaded_at = excluded.loaded_at,
    status = excluded.status,
    error = excluded.error,
    schema_version = coalesce(excluded.schema_version, sync.files.schema_version),
    updated_at = excluded.updated_at`;

const UPSERT_LEDGER = `
  INSERT INTO sync.files (exchange, symbol, session_date, file, sha256, bytes, rows, archive_path,
                          downloaded_at, loaded_at, status, error, updated_at)
  VALUES ($1, $2, $3::DATE, $4, $5, $6, $7, $8, $9::TIMESTAMPTZ, $10::TIMESTAMPTZ, $11, $12, $13::TIMESTAMPTZ)
  ${ON_CONFLICT_UPDATE}`;

/** A failure never demotes a version that is loaded: its rows are in the tables. */
const KEEP_LOADED = ` WHERE sync.files.status <> 'loaded' OR excluded.status = 'loaded'`;

/** A file version's key, bytes and rows, in the ledger's column order: the first seven parameters of its upserts. */
const versionParams = (file: LedgerFile) => [file.exchange, file.symbol, file.sessionDate, file.file, file.sha256, file.bytes ?? null, file.rows ?? null];

/**
 * Records a file version's status (failed_verify, failed_load; the loader records loaded and
 * superseded itself). A failure status leaves an already loaded version of the same sha alone.
 */
export async function recordFileStatus(conn: DuckDBConnection, file: LedgerFile, status: FileStatus, error?: string, now: Date = new Date()): Promise<void> {
  const loadedAt = status === 'loaded' ? now.toISOString() : null;
  await conn.run(UPSERT_LEDGER + KEEP_LOADED, [
    ...versionParams(file),
    file.archivePath ?? null,
    file.downloadedAt ? toIsoTimestamp(file.downloadedAt) : null,
    loadedAt,
    status,
    error ?? null,
    now.toISOString(),
  ]);
}

/**
 * Marks a batch of file versions loaded, all of one kind, listed in a temp table with the columns
 * exchange, symbol, session_date, sha256, bytes, rows, archive_path, downloaded_at, schema_version (one row per file):
 * older loaded versions become superseded. Two statements for the batch, not two per file.
 */
export async function recordBatchLoaded(conn: DuckDBConnection, filesTable: string, kind: FileKind, now: Date): Promise<void> {
  const at = now.toISOString();
  await conn.run(
    `UPDATE sync.files AS t SET status = 'superseded', updated_at = $2::TIMESTAMPTZ
       FROM ${filesTable} AS f
      WHERE t.exchange = f.exchange AND t.symbol = f.symbol AND t.session_date = f.session_date AND t.file = $1
        AND t.sha256 <> f.sha256 AND t.status = 'loaded'`,
    [kind, at],
  );
  await conn.run(
    `INSERT INTO sync.files (exchange, symbol, session_date, file, sha256, bytes, rows, archive_path,
                             downloaded_at, loaded_at, status, error, updated_at, schema_version)
     SELECT exchange, symbol, session_date, $1, sha256, bytes, rows, archive_path,
            downloaded_at, $2::TIMESTAMPTZ, 'loaded', NULL, $2::TIMESTAMPTZ, schema_version
       FROM ${filesTable}
     ${ON_CONFLICT_UPDATE}`,
    [kind, at],
  );
}

/**
 * A version whose archived copy cannot be loaded (missing, refused, or quarantined for bytes that are
 * not its own): it no longer points at a copy, so the planner downloads it again within a budget.
 * A loaded version is left as it is.
 */
export async function recordNotArchived(conn: DuckDBConnection, file: LedgerFile, error: string, now: Date = new Date()): Promise<void> {
  await conn.run(
    `INSERT INTO sync.files (exchange, symbol, session_date, file, sha256, bytes, rows, archive_path, downloaded_at, loaded_at, status, error, updated_at)
     VALUES ($1, $2, $3::DATE, $4, $5, $6, $7, NULL, $8::TIMESTAMPTZ, NULL, 'failed_verify', $9, $10::TIMESTAMPTZ)
     ON CONFLICT (exchange, symbol, session_date, file, sha256) DO UPDATE SET
       archive_path = NULL, status = 'failed_verify', error = excluded.error, updated_at = excluded.updated_at
     WHERE sync.files.status <> 'loaded'`,
    [...versionParams(file), file.downloadedAt ? toIsoTimestamp(file.downloadedAt) : null, error, now.toISOString()],
  );
}

/** Forgets a recorded archive path the tool refuses to follow (outside the archive, not the version's name). */
export async function forgetArchivePath(
  conn: DuckDBConnection,
  version: { exchange: string; symbol: string; sessionDate: string; file: string; sha256: string },
): Promise<void> {
  await conn.run(`UPDATE sync.files SET archive_path = NULL WHERE exchange = $1 AND symbol = $2 AND session_date = $3::DATE AND file = $4 AND sha256 = $5`, [
    version.exchange,
    version.symbol,
    version.sessionDate,
    version.file,
    version.sha256,
  ]);
}

const PENDING_NAME = /_[a-z_]+\.[0-9a-f]{12}\.csv\.gz$/;

/**
 * Loaded versions whose archive path is a pending name `<date>_<file>.<12 hex>.csv.gz`: loaded
 * beside an older version and not yet moved to the plain name (this run's loads, or a crash between
 * a load's commit and the move).
 */
export async function loadedPendingCopies(
  conn: DuckDBConnection,
): Promise<{ exchange: string; symbol: string; sessionDate: string; file: string; sha256: string; archivePath: string }[]> {
  return readRows(
    conn,
    `SELECT exchange, symbol, session_date::VARCHAR AS "sessionDate", file, sha256, archive_path AS "archivePath" FROM sync.files
      WHERE status = 'loaded' AND regexp_matches(archive_path, $1)`,
    [PENDING_NAME.source],
    { exchange: text, symbol: text, sessionDate: text, file: text, sha256: text, archivePath: text },
  );
}

/**
 * A loaded version took the plain archive name (it waited under a pending name beside the older
 * version): its row points there, and the older versions' rows point nowhere, their copy being gone.
 */
export async function recordArchiveMove(
  conn: DuckDBConnection,
  version: { exchange: string; symbol: string; sessionDate: string; file: string; sha256: string },
  plainPath: string,
): Promise<void> {
  const key = [version.exchange, version.symbol, version.sessionDate, version.file];
  await conn.run(
    `UPDATE sync.files SET archive_path = CASE WHEN sha256 = $5 THEN $6 ELSE NULL END
      WHERE exchange = $1 AND symbol = $2 AND session_date = $3::DATE AND file = $4 AND (sha256 = $5 OR status = 'superseded')`,
    [...key, version.sha256, plainPath],
  );
}

/** The loaded sha256 per file key (fileKey()), of the files given or of every file. */
export async function loadedFiles(conn: DuckDBConnection, only?: readonly FileKeyParts[]): Promise<Map<string, string>> {
  // Only the files asked about cross into JS: a long history holds 100k+ loaded rows.
  const rows = await readRows(
    conn,
    `SELECT exchange, symbol, session_date::VARCHAR AS "sessionDate", file, sha256
       FROM sync.files
      WHERE status = 'loaded'
        AND ($1::VARCHAR[] IS NULL OR list_contains($1::VARCHAR[], concat_ws('|', exchange, symbol, session_date, file)))`,
    [only === undefined ? null : duckdb.listValue(only.map(fileKey))],
    { exchange: text, symbol: text, sessionDate: text, file: oneOf(FILE_KINDS), sha256: text },
  );
  return new Map(rows.map((row) => [fileKey(row), row.sha256]));
}

export interface LedgerRow extends FileKeyParts {
  sha256: string;
  bytes: number | null;
  rows: number | null;
  archivePath: string | null;
  downloadedAt: string | null;
  loadedAt: string | null;
  status: FileStatus;
  error: string | null;
}

/** Every ledger row, optionally of one status (verify, status, repair read this). */
export async function listLedger(conn: DuckDBConnection, status?: FileStatus): Promise<LedgerRow[]> {
  return readRows(
    conn,
    `SELECT exchange, symbol, session_date::VARCHAR AS "sessionDate", file, sha256, bytes, rows, archive_path AS "archivePath",
            strftime(downloaded_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS "downloadedAt",
            strftime(loaded_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS "loadedAt", status, error
       FROM sync.files WHERE $1::VARCHAR IS NULL OR status = $1::VARCHAR
      ORDER BY exchange, symbol, session_date, file, updated_at`,
    [status ?? null],
    {
      exchange: text,
      symbol: text,
      sessionDate: text,
      file: oneOf(FILE_KINDS),
      sha256: text,
      bytes: nullable(num),
      rows: nullable(num),
      archivePath: nullable(text),
      downloadedAt: nullable(text),
      loadedAt: nullable(text),
      status: oneOf(FILE_STATUSES),
      error: nullable(text),
    },
  );
}
