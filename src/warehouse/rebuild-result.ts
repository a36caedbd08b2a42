// What a rebuild reports, whichever way it went (from the ledger, or from the archive alone).
import type { ArchiveVerdict } from './archive-check.js';

export interface RebuildProblem {
  kind: ArchiveVerdict | 'unknown_rows' | 'load_failed';
  exchange: string;
  symbol: string;
  session_date: string;
  file: string;
  detail: string;
}

export interface RebuildResult {
  /** 'ledger': the warehouse was readable and its ledger said what to reload; 'archive': recreated from the archive alone. */
  source: 'ledger' | 'archive';
  filesReloaded: number;
  rowsLoaded: number;
  /** Rows of sessions no loaded file explains (file-sourced), deleted before reloading. */
  orphanRowsRemoved: number;
  /** Files that could not be rebuilt; their rows (if any) are as before. */
  problems: RebuildProblem[];
  runId: number;
  /** Where a damaged warehouse file (and its WAL) was kept; empty when none was damaged. */
  damagedCopies: string[];
  /** Set when --force replaced a --db that was not a warehouse of gexwh (kept in damagedCopies). */
  replaced?: boolean;
  /** Archive entries that are not daily files of the layout, left alone (source 'archive' only). */
  skipped: string[];
}
