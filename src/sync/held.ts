// What the sync does around a warehouse another process holds: plan on a copy of the state, put the
// paid files, the listed manifests and the run record in the archive's journal before any wait, wait
// up to --wait-lock for the load, and write the run record wherever it can be written.
import type { DuckDBConnection } from '@duckdb/node-api';
import { LockError } from '../core/errors.js';
import { finishRun, openWarehouse, recordListing, startRun, upsertManifest, type RunCounts, type Warehouse } from '../warehouse/index.js';
import type { VerifiedFile } from './fetch.js';
import { readJournal, runOf, updateJournal, withFiles, type JournaledFile, type JournaledListing } from './journal.js';
import { DEFAULT_WAIT_LOCK_SECONDS, holderPidOf, openWaiting, type AppliedJournal, type HeldDetails } from './load-pending.js';
import type { PlannedFile } from './download-plan.js';
import { archivedCopyRelative } from './versions.js';
import { fallBack, type SyncState } from './state-source.js';
import type { Pair } from '../core/pairs.js';
import type { ManifestRow } from '../core/rows.js';

export interface HeldOptions {
  dbPath: string;
  archiveRoot: string;
  waitLockSeconds?: number;
}

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

/** Phase 3: plans in the warehouse; if it has been taken since the start, on a copy of its state. */
export async function planOnState<T>(
  state: SyncState,
  options: HeldOptions,
  pairs: Pair[],
  warn: (message: string) => void,
  work: (conn: DuckDBConnection) => Promise<T>,
): Promise<{ state: SyncState; plan: T }> {
  if (state.mode !== 'warehouse') return { state, plan: await work(state.copy!.connection) };
  let warehouse: Warehouse;
  try {
    warehouse = await openWarehouse(options.dbPath);
  } catch (error) {
    if (!(error instanceof LockError)) throw error;
    const next = await fallBack({ ...options, pairs }, holderPidOf(error), warn, state.runId);
    return { state: next, plan: await work(next.copy!.connection) };
  }
  try {
    return { state, plan: await work(warehouse.connection) };
  } finally {
    warehouse.close();
  }
}

/** The listed manifests as journal entries (from an archive-only listing, sync.listings is not touched). */
export function journalListings(listed: Map<string, { rows: ManifestRow[]; completeFrom: string | null }>, mode: SyncState['mode'], at: Date = new Date()): JournaledListing[] {
  return [...listed].map(([key, { rows, completeFrom }]) => {
    const [exchange, symbol] = key.split('|') as [string, string];
    return { exchange, symbol, rows, listedAt: at.toISOString(), ...(mode === 'archive' ? {} : { completeFrom }) };
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

export type LoadOpen = { warehouse: Warehouse; held?: undefined } | { held: HeldDetails; warehouse?: undefined };

/**
 * Phase 5's open. Manifests not stored in the warehouse and, when the warehouse is held, the paid
 * files go to the journal first, so a kill during the wait loses nothing; then the open waits up to
 * --wait-lock (a stop signal ends the wait).
 */
export async function openForLoad(options: HeldOptions, signal: AbortSignal, files: readonly VerifiedFile[], pending: PendingManifests): Promise<LoadOpen> {
  if (!pending.stored) await journalFiles(options.archiveRoot, files, pending);
  try {
    return { warehouse: await openWarehouse(options.dbPath) };
  } catch (error) {
    if (!(error instanceof LockError)) throw error;
  }
  if (pending.stored) await journalFiles(options.archiveRoot, files, pending);
  const waitSeconds = options.waitLockSeconds ?? DEFAULT_WAIT_LOCK_SECONDS;
  try {
    return { warehouse: await openWaiting(options.dbPath, waitSeconds, signal) };
  } catch (error) {
    if (!(error instanceof LockError)) throw error;
    const filesWaiting = (await readJournal(options.archiveRoot)).files.length;
    const filesPaid = files.filter((file) => !file.fromArchive).length;
    return { held: { dbPath: options.dbPath, archiveRoot: options.archiveRoot, pid: holderPidOf(error), waitedSeconds: waitSeconds, filesWaiting, filesPaid } };
  }
}

/**
 * Writes a finished run's record: in the warehouse if it can be opened now (with the manifests the
 * run listed), else in the journal, from which the next run copies it into sync.runs.
 */
export async function recordRunAnywhere(options: HeldOptions, state: SyncState, start: RunStartRecord, counts: RunCounts, pending: PendingManifests): Promise<void> {
  let warehouse: Warehouse;
  try {
    warehouse = await openWarehouse(options.dbPath);
  } catch (error) {
    if (!(error instanceof LockError)) throw error;
    await journalFiles(options.archiveRoot, [], pending);
    await journalRun(options.archiveRoot, start, state.runId, counts);
    return;
  }
  try {
    const conn = warehouse.connection;
    if (!pending.stored) {
      for (const listing of pending.listings) {
        await upsertManifest(conn, listing.exchange, listing.symbol, listing.rows, listing.listedAt);
        if (listing.completeFrom !== undefined) await recordListing(conn, listing.exchange, listing.symbol, listing.completeFrom, new Date(listing.listedAt));
      }
    }
    await finishRun(conn, state.runId ?? (await startRun(conn, start)), counts);
  } finally {
    warehouse.close();
  }
}

/** The files an earlier held-out run left, loaded at this run's start, count in this run's totals. */
export function withWaiting<T extends { filesLoaded: number; rowsLoaded: number; loadedFromJournal?: number }>(summary: T, waiting: AppliedJournal): T {
  if (waiting.filesLoaded === 0) return summary;
  return {
    ...summary,
    filesLoaded: summary.filesLoaded + waiting.filesLoaded,
    rowsLoaded: summary.rowsLoaded + waiting.rowsLoaded,
    loadedFromJournal: (summary.loadedFromJournal ?? 0) + waiting.filesLoaded,
  };
}
