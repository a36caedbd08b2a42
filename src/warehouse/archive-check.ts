// What rebuild and verify need from the raw archive: where a ledger row's file lives under the given
// root (built from the row's parts, never from a recorded path), what is there (read inside the
// archive only: core/archive/pin.ts), and whether it is the version the ledger recorded.
import { relativeArchivePath } from '../core/archive/layout.js';
import { readRecordedPath } from '../core/archive/recorded-path.js';
import { hashArchived } from '../core/archive/pin.js';
import type { LedgerRow } from './ledger.js';
import { fileKey, type FileKeyParts } from '../core/pairs.js';

/** What the archive holds at a path: its digest, or why there is none to read. */
export type ArchiveLook = Awaited<ReturnType<typeof hashArchived>>;

export { hashArchived };

/** The file's plain name relative to the archive root (the root given now, not the one stored at download). */
export function archivedRelativeOf(key: FileKeyParts): string {
  return relativeArchivePath(key);
}

/** Where a ledger version's copy is: its recorded name (plain or pending), read under the root; the plain name when none is recorded. */
export function copyRelativeOf(row: LedgerRow, root: string): { relative: string } | { refused: string } {
  if (row.archivePath === null) return { relative: relativeArchivePath(row) };
  return readRecordedPath(row.archivePath, row, root);
}

export type ArchiveVerdict = 'ok' | 'missing' | 'hash_mismatch' | 'size_mismatch' | 'outside_archive' | 'unreadable';

/** Compares what is in the archive with a ledger version (pure). */
export function judgeArchive(expected: { sha256: string; bytes: number | null }, found: ArchiveLook): ArchiveVerdict {
  if (found.kind === 'missing') return 'missing';
  if (found.kind === 'refused') return 'outside_archive';
  if (found.kind === 'unreadable') return 'unreadable';
  // Larger than recorded: refused unread, and what a read would have found (another sha256).
  if (found.kind === 'oversized') return 'hash_mismatch';
  if (found.sha256 !== expected.sha256) return 'hash_mismatch';
  if (expected.bytes !== null && found.bytes !== expected.bytes) return 'size_mismatch';
  return 'ok';
}

/** The sha256 found, when the archive could be read. */
export function foundSha(found: ArchiveLook): string | undefined {
  return found.kind === 'hashed' ? found.sha256 : undefined;
}

/** One sentence on what is wrong with a copy (not for 'ok'). */
export function describeLook(verdict: ArchiveVerdict, found: ArchiveLook, expected: { sha256: string; bytes: number | null }, whose: string): string {
  if (found.kind === 'oversized') return `${found.path} holds ${found.bytes} bytes, ${whose} says ${expected.bytes ?? `at most ${found.maxBytes}`}: not read`;
  if (found.kind !== 'hashed') return found.kind === 'missing' ? `${found.path} is missing` : found.reason;
  if (verdict === 'hash_mismatch') return `${found.path} has sha256 ${found.sha256}, ${whose} says ${expected.sha256}`;
  return `${found.path} has ${found.bytes} bytes, ${whose} says ${expected.bytes ?? '?'}`;
}

/**
 * The most a file's archived copy may hold: the largest size its versions record, so a larger file is
 * refused unread (pin.ts); undefined when a version records none.
 */
export function largestRecorded(versions: readonly { bytes: number | null }[]): number | undefined {
  let most = 0;
  for (const version of versions) {
    if (version.bytes === null) return undefined;
    most = Math.max(most, version.bytes);
  }
  return versions.length === 0 ? undefined : most;
}

/** Ledger rows grouped per file (exchange, symbol, session, kind), keeping the ledger's order. */
export function groupByFile(ledger: readonly LedgerRow[]): LedgerRow[][] {
  const groups = new Map<string, LedgerRow[]>();
  for (const row of ledger) groups.set(fileKey(row), [...(groups.get(fileKey(row)) ?? []), row]);
  return [...groups.values()];
}
