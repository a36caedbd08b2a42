// What the sync writes to the archive's journal when the warehouse cannot take it now: the listed
// manifests of a run that planned on a copy, the paid files and the run record of a run whose load
// found the warehouse held (or was stopped), for the next sync or `gexwh load` to load for 0 credits.
// The run's own paid files are in its package already (spend-log.ts): they are only kept waiting
// there. What its package does not hold (manifests, archived copies it reused) goes to a new closed
// package, and a run record with no package of its own (a plan, a capture) gets one.
import { finishRun, startRun, storeListings, type RunCounts } from '../warehouse/index.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import { runOf, type JournaledFile, type JournaledListing } from './entries.js';
import { journaledFileOf } from './spend-log.js';
import { openPackageOf } from './open-package.js';
import { newPackageId } from './layout.js';
import { writePackage } from './package-write.js';
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

export { journaledFileOf };

export function plannedOf(file: JournaledFile): PlannedFile {
  return { ...file, schemaVersion: 0 };
}

/** Records paid, archived files (and manifests not yet stored) in the journal; a no-op when there is nothing. */
export async function journalFiles(archiveRoot: string, files: readonly VerifiedFile[], pending: PendingManifests): Promise<void> {
  const listings = pending.stored ? [] : pending.listings;
  const rest = openPackageOf(archiveRoot)?.keep(files) ?? files;
  if (rest.length === 0 && listings.length === 0) return;
  await writePackage(archiveRoot, newPackageId('held', new Date()), { files: rest.map(journaledFileOf), listings });
}

/** Records a run's record in the journal: in the run's own package when it has one open, else in a new one. */
export async function journalRun(archiveRoot: string, start: RunStartRecord, runId: number | undefined, counts: RunCounts): Promise<void> {
  const run = runOf({ ...start, ...(runId !== undefined ? { runId } : {}) }, counts);
  const open = openPackageOf(archiveRoot);
  if (open !== undefined && open.command === start.command && open.startedAt === start.startedAt.getTime()) return open.record(run);
  await writePackage(archiveRoot, newPackageId(start.command, start.startedAt), { record: run });
}

/** Stores manifests a run listed on a copy (the warehouse became writable), then finishes its run record. */
export async function recordRun(
  conn: DuckDBConnection,
  start: RunStartRecord,
  runId: number | undefined,
  counts: RunCounts,
  pending: PendingManifests,
): Promise<void> {
  if (!pending.stored) await storeListings(conn, pending.listings);
  await finishRun(conn, runId ?? (await startRun(conn, start)), counts);
}
