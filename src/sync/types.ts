import type { FileKind } from '../core/file-kinds.js';
// Plain structural inputs of the pure sync modules. They mirror the API's manifest and coverage rows
// (snake_case, as the spec sends them; src/api/schemas.ts) and the warehouse's rows
// (src/warehouse/manifest.ts, ledger.ts), so either side's values pass without mapping.


/** A file manifest row (spec: File manifest row). */
export interface ManifestRow {
  session_date: string;
  file: FileKind;
  rows: number;
  bytes: number;
  sha256: string;
  schema_version: number;
}

/** A manifest row as sync.manifest stores it, with its (exchange, symbol). */
export interface StoredManifestRow extends ManifestRow {
  exchange: string;
  symbol: string;
}

/** A coverage row (spec: Coverage row). */
export interface CoverageRow {
  exchange: string;
  symbol: string;
  first_ts: string | null;
  last_ts: string | null;
  sessions: number | null;
  files_first_date: string | null;
  files_last_date: string | null;
}

export type LedgerStatus = 'loaded' | 'failed_verify' | 'failed_load' | 'superseded';

/** One downloaded file version in the ledger (sync.files); same shape as warehouse LedgerRow. */
export interface LedgerEntry {
  exchange: string;
  symbol: string;
  sessionDate: string;
  file: string;
  sha256: string;
  status: LedgerStatus;
  archivePath?: string | null;
}
