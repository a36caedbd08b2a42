// What rebuild and verify need from the raw archive: where a ledger row's file lives
// under the given root, and whether the file there is the version the ledger recorded.
import { archivePath } from '../core/archive/layout.js';
import type { FileDigest } from '../core/archive/hash.js';
import type { LedgerRow } from './ledger.js';
import type { LoadInput } from './loader.js';
import { fileKey, type FileKeyParts } from '../core/pairs.js';

/** The file's canonical place under `root` (the root given now, not the one stored at download). */
export function archivedPathOf(root: string, key: FileKeyParts): string {
  return archivePath(root, key.exchange, key.symbol, key.sessionDate, key.file);
}

export type ArchiveVerdict = 'ok' | 'missing' | 'hash_mismatch' | 'size_mismatch';

/** Compares what is on disk with a ledger version (pure). */
export function judgeArchive(expected: { sha256: string; bytes: number | null }, found: FileDigest | undefined): ArchiveVerdict {
  if (!found) return 'missing';
  if (found.sha256 !== expected.sha256) return 'hash_mismatch';
  if (expected.bytes !== null && found.bytes !== expected.bytes) return 'size_mismatch';
  return 'ok';
}

/** The loader's input for re-loading a ledger version from its archived file. */
export function loadInputOf(row: LedgerRow, path: string, rows: number): LoadInput {
  return {
    exchange: row.exchange,
    symbol: row.symbol,
    sessionDate: row.sessionDate,
    file: row.file,
    sha256: row.sha256,
    path,
    bytes: row.bytes ?? 0,
    rows,
    archivePath: path,
    downloadedAt: row.downloadedAt ?? new Date(),
  };
}

/** Ledger rows grouped per file (exchange, symbol, session, kind), keeping the ledger's order. */
export function groupByFile(ledger: readonly LedgerRow[]): LedgerRow[][] {
  const groups = new Map<string, LedgerRow[]>();
  for (const row of ledger) groups.set(fileKey(row), [...(groups.get(fileKey(row)) ?? []), row]);
  return [...groups.values()];
}
