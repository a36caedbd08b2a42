// The rows api, sync and warehouse hand each other. Manifest and coverage rows keep the API's
// snake_case field names, so a row parsed from the API is stored and planned from without mapping.
import type { FileKind } from './file-kinds.js';

/** One daily file of a pair's manifest, as the API lists it. */
export interface ManifestRow {
  session_date: string;
  file: FileKind;
  rows: number;
  bytes: number;
  sha256: string;
  schema_version: number;
}

/** A manifest row with its (exchange, symbol), as sync.manifest stores it. */
export interface StoredManifestRow extends ManifestRow {
  exchange: string;
  symbol: string;
}

/** What the history holds of a pair, as /history/coverage says. */
export interface CoverageRow {
  exchange: string;
  symbol: string;
  first_ts: string | null;
  last_ts: string | null;
  sessions: number | null;
  files_first_date: string | null;
  files_last_date: string | null;
}

/** What became of a downloaded file version (sync.files.status). */
export const FILE_STATUSES = ['loaded', 'failed_verify', 'failed_load', 'superseded'] as const;
export type FileStatus = (typeof FILE_STATUSES)[number];

/** One downloaded file version in the ledger (sync.files), the fields the planner reads. */
export interface LedgerEntry {
  exchange: string;
  symbol: string;
  sessionDate: string;
  file: string;
  sha256: string;
  status: FileStatus;
  archivePath?: string | null;
}

/** One file version to fetch (or reload); shaped like the warehouse's LedgerFile. */
export interface PlannedFile {
  exchange: string;
  symbol: string;
  sessionDate: string;
  file: FileKind;
  sha256: string;
  bytes: number;
  rows: number;
  schemaVersion: number;
  /** sha256 of the loaded older version this file supersedes (a rebuilt file). */
  replaces?: string;
  /** The status of an earlier failed attempt at this very version. */
  retryOf?: 'failed_verify' | 'failed_load';
}

export interface VerifiedFile extends PlannedFile {
  archivePath: string;
  downloadedAt: Date;
  /** True when the archive already held this exact version: no credit spent. */
  fromArchive: boolean;
}
