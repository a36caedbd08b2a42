// What the sync writes to the archive's journal when the warehouse cannot take it now: the listed
// manifests of a run that planned on a copy, the paid files and the run record of a run whose load
// found the warehouse held (or was stopped), for the next sync or `gexwh load` to load for 0 credits.
import { finishRun, recordListing, startRun, upsertManifest, type RunCounts } from '../warehouse/index.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import { runOf, updateJournal, withFiles, type JournaledFile, type JournaledListing } from './journal.js';
import { archivedCopyRelative } from './versions.js';
import type { ManifestRow, VerifiedFile, PlannedFile } from '../core/rows.js';

export interface RunStartRecord {
  command: string;
  options: Record<string, unknown>;
  startedAt: Date;
}

/** The manifests a run listed, and whether they are already stored in the warehouse. */
export interface PendingManifests {
  listings: JournaledListing[];
  stored: boolean;
}

/**
 * The listed manifests as journal entries. A listing made without the warehouse (`archiveOnly`) keeps
 * no `completeFrom`: it must not tell sync.listings that a window was listed in full.
 */
export function journalListings(
  listed: Map<string, { rows: ManifestRow[]; completeFrom: string | null }>,
  archiveOnly: boolean,
  at: Date = new Date(),
): JournaledListing[] {
  return [...listed].map(([key, { rows, completeFrom }]) => {
    const [exchange, symbol] = key.split('|') as [string, string];
    return { exchange, symbol, rows, listedAt: at.toISOString(), ...(archiveOnly ? {} : { completeFrom }) };
  });
}

export function journaledFileOf(file: VerifiedFile): JournaledFile {
  return {
    exchange: file.exchange,
    symbol: file.symbol,
    sessionDate: file.sessionDate,
    file: file.file,
    sha256: file.sha256,
    bytes: file.bytes,
    rows: file.rows,
    archivePath: archivedCopyRelative(file),
    downloadedAt: file.downloadedAt.toISOString(),
  };
}

export function plannedOf(file: JournaledFile): PlannedFile {
  return { ...file, schemaVersion: 0 };
}

/** Records paid, archived files (and manifests not yet stored) in the journal; a no-op when there is nothing. */
export async function journalFiles(archiveRoot: string, files: readonly VerifiedFile[], pending: PendingManifests): Promise<void> {
  const listings = pending.stored ? [] : pending.listings;
  if (files.length === 0 && listings.length === 0) return;
  await updateJournal(archiveRoot, (journal) => {
    const next = withFiles(journal, files.map(journaledFileOf));
    return { ...next, listings: [...next.listings, ...listings] };
  });
}

export async function journalRun(archiveRoot: string, start: RunStartRecord, runId: number | undefined, counts: RunCounts): Promise<void> {
  await updateJournal(archiveRoot, (journal) => ({
    ...journal,
    runs: [...journal.runs, runOf({ ...start, ...(runId !== undefined ? { runId } : {}) }, counts)],
  }));
}

/** Stores manifests a run listed on a copy (the warehouse became writable), then finishes its run record. */
export async function recordRun(
  conn: DuckDBConnection,
  start: RunStartRecord,
  runId: number | undefined,
  counts: RunCounts,
  pending: PendingManifests,
): Promise<void> {
  if (!pending.stored) {
    for (const listing of pending.listings) {
      await upsertManifest(conn, listing.exchange, listing.symbol, listing.rows, listing.listedAt);
      if (listing.completeFrom !== undefined) await recordListing(conn, listing.exchange, listing.symbol, listing.completeFrom, new Date(listing.listedAt));
    }
  }
  await finishRun(conn, runId ?? (await startRun(conn, start)), counts);
}
