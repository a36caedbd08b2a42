// Loading what the archive's journal holds (src/sync/journal.ts) into the warehouse: the manifests a
// held-out sync listed, its paid files, its run record. No network and no credit. Used first by every
// sync that can write the warehouse, and by `gexwh load`. Idempotent: a file whose version is already
// loaded is skipped by the loader, a run already recorded is not recorded twice, so a crash between
// the commit and the journal's rewrite changes nothing on the next try.
import type { DuckDBConnection } from '@duckdb/node-api';
import { setTimeout as sleep } from 'node:timers/promises';
import { LockError } from '../core/errors.js';
import { DEFAULT_WAIT_LOCK_SECONDS } from './wait-lock.js';
import {
  acquireSyncLock,
  finishRun,
  loadFiles,
  openWarehouse,
  parseLockHolderPid,
  recordListing,
  startRun,
  upsertManifest,
  type LoadInput,
  type Warehouse,
} from '../warehouse/index.js';
import { allJournaledRows, listSnapshots, loadLiveJournal } from './live-journal.js';
import { writeLiveCapture, type LiveTable } from '../warehouse/live.js';
import { hasPendingWork, journalPath, readJournal, withoutApplied, writeJournal, type Journal, type JournaledFile, type JournaledRun } from './journal.js';
import { promoteLoadedVersions } from './versions.js';
import { adoptStoppedRun } from './spend-log.js';

export { DEFAULT_WAIT_LOCK_SECONDS };

export interface AppliedJournal {
  filesLoaded: number;
  rowsLoaded: number;
  /** Journaled files the loader refused (recorded failed_load in the ledger; still archived). */
  failed: { file: JournaledFile; error: string }[];
  runsRecorded: number;
  manifestsStored: number;
  /** Live snapshots `capture` journaled while the warehouse was held, loaded now. */
  snapshotsLoaded: number;
  warnings: string[];
}

export function nothingApplied(): AppliedJournal {
  return { filesLoaded: 0, rowsLoaded: 0, failed: [], runsRecorded: 0, manifestsStored: 0, snapshotsLoaded: 0, warnings: [] };
}

/**
 * Loads the journal's content into an open, writable warehouse, then removes it from the journal. A
 * stop signal ends the file loads early; the files not done stay in the journal.
 */
export async function applyJournal(conn: DuckDBConnection, archiveRoot: string, signal?: AbortSignal): Promise<AppliedJournal> {
  const applied = nothingApplied();
  const live = await loadLiveJournal(conn, archiveRoot);
  applied.snapshotsLoaded = live.snapshots;
  for (const path of live.unreadable) applied.warnings.push(`the journaled snapshot ${path} cannot be read; it is left where it is`);
  const journal = await readJournal(archiveRoot);
  if (!hasPendingWork(journal)) return applied;
  // Manifests first: the plan, status and the row-count checks read them.
  for (const listing of journal.listings) {
    await upsertManifest(conn, listing.exchange, listing.symbol, listing.rows, listing.listedAt);
    if (listing.completeFrom !== undefined) await recordListing(conn, listing.exchange, listing.symbol, listing.completeFrom, new Date(listing.listedAt));
    applied.manifestsStored++;
  }
  const report = await loadFiles(conn, journal.files.map(loadInputOf), signal ? { signal } : {});
  applied.filesLoaded = report.loaded.length;
  applied.rowsLoaded = report.rowsLoaded;
  applied.warnings.push(...report.warnings);
  const byPath = new Map(journal.files.map((f) => [f.archivePath, f]));
  for (const { input, error } of report.failed) {
    const file = byPath.get(input.archivePath);
    if (file) applied.failed.push({ file, error });
  }
  for (const run of journal.runs) if (await recordJournaledRun(conn, run)) applied.runsRecorded++;
  // A journaled newer version waits under its pending name; once loaded it takes the plain name.
  await promoteLoadedVersions(conn, archiveRoot);
  const done = report.stopped ? doneFiles(journal.files, report) : journal.files;
  await writeJournal(archiveRoot, withoutApplied(journal, { files: done, listings: journal.listings.length, runs: journal.runs.length }));
  return applied;
}

/** The journal's files the loader finished with (loaded, skipped as loaded, or failed). */
function doneFiles(files: readonly JournaledFile[], report: { loaded: LoadInput[]; skipped: LoadInput[]; failed: { input: LoadInput }[] }): JournaledFile[] {
  const paths = new Set([...report.loaded, ...report.skipped, ...report.failed.map((f) => f.input)].map((input) => input.archivePath));
  return files.filter((file) => paths.has(file.archivePath));
}

function loadInputOf(file: JournaledFile): LoadInput {
  return { ...file, path: file.archivePath };
}

/** Inserts (or completes) a run record from the journal; false when it is already there. */
async function recordJournaledRun(conn: DuckDBConnection, run: JournaledRun): Promise<boolean> {
  const counts = { ...run, finishedAt: new Date(run.finishedAt), error: run.error ?? undefined };
  if (run.runId !== undefined) {
    await finishRun(conn, run.runId, counts);
    return true;
  }
  const seen = await conn.runAndReadAll(`SELECT 1 FROM sync.runs WHERE command = $1 AND started_at = $2::TIMESTAMPTZ`, [run.command, run.startedAt]);
  if (seen.currentRowCount > 0) return false;
  const runId = await startRun(conn, { command: run.command, options: run.options, startedAt: new Date(run.startedAt) });
  await finishRun(conn, runId, counts);
  return true;
}

export interface HeldDetails {
  dbPath: string;
  archiveRoot: string;
  pid: number | undefined;
  waitedSeconds: number;
  /** Files in the journal, waiting to load. */
  filesWaiting: number;
  /** Of those, the files this run paid for (a sync; undefined for `load`). */
  filesPaid?: number;
}

/** Pure: the exit-5 message of a run whose load found the warehouse held. */
export function heldMessage(details: HeldDetails): string {
  const holder = details.pid === undefined ? 'another process' : `process ${details.pid}`;
  const waited = details.waitedSeconds > 0 ? ` (waited ${details.waitedSeconds} s)` : '';
  const paid = details.filesPaid === undefined ? '' : `${details.filesPaid} file(s) paid by this run are verified and archived; `;
  const files =
    details.filesWaiting > 0
      ? `${paid}${details.filesWaiting} file(s) wait in ${journalPath(details.archiveRoot)}; ` +
        `the next gexwh sync, or gexwh load (no network), loads them for 0 credits`
      : 'no paid file is waiting; nothing was lost';
  return `the warehouse ${details.dbPath} is held by ${holder}${waited}: ${files}`;
}

export function heldError(details: HeldDetails, cause?: unknown): LockError {
  return new LockError(
    heldMessage(details),
    {
      db: details.dbPath,
      ...(details.pid !== undefined ? { pid: details.pid } : {}),
      files_waiting: details.filesWaiting,
      ...(details.filesPaid !== undefined ? { files_paid: details.filesPaid } : {}),
      journal: journalPath(details.archiveRoot),
      hint: 'close the other program (a notebook, DBeaver, the duckdb CLI), or give gexwh sync a longer --wait-lock',
    },
    cause === undefined ? undefined : { cause },
  );
}

/** The pid DuckDB names in a lock error, if any. */
export function holderPidOf(error: unknown): number | undefined {
  if (error instanceof LockError && typeof error.hints.pid === 'number') return error.hints.pid;
  const cause = error instanceof Error ? error.cause : undefined;
  return cause instanceof Error ? parseLockHolderPid(cause.message) : undefined;
}

/**
 * Opens the warehouse for writing, retrying while another process holds it, up to `waitSeconds`.
 * A stop signal ends the wait at once (the caller records the run and exits).
 */
export async function openWaiting(dbPath: string, waitSeconds: number, signal?: AbortSignal, pollMs = 250): Promise<Warehouse> {
  const deadline = Date.now() + Math.max(0, waitSeconds) * 1000;
  for (;;) {
    try {
      return await openWarehouse(dbPath);
    } catch (error) {
      if (!(error instanceof LockError) || Date.now() >= deadline || signal?.aborted) throw error;
      await sleep(Math.min(pollMs, Math.max(1, deadline - Date.now()))).catch(() => undefined);
    }
  }
}

export interface LoadCommandOptions {
  dbPath: string;
  archiveRoot: string;
  waitSeconds: number;
  signal?: AbortSignal;
}

export interface LoadCommandResult {
  filesLoaded: number;
  rowsLoaded: number;
  filesFailed: { exchange: string; symbol: string; sessionDate: string; file: string; error: string }[];
  runsRecorded: number;
  manifestsStored: number;
  snapshotsLoaded: number;
  creditsSpent: 0;
  warnings: string[];
}

/** `gexwh load`: the journal into the warehouse; no network, no credit. */
export async function loadWaiting(options: LoadCommandOptions): Promise<LoadCommandResult> {
  const lock = await acquireSyncLock(options.dbPath, { waitSeconds: options.waitSeconds });
  try {
    // What a sync stopped hard left (src/sync/spend-log.ts) joins the journal first.
    await adoptStoppedRun(options.archiveRoot);
    const journal = await readJournal(options.archiveRoot);
    let warehouse: Warehouse;
    try {
      warehouse = await openWaiting(options.dbPath, options.waitSeconds, options.signal);
    } catch (error) {
      if (!(error instanceof LockError)) throw error;
      const snapshots = (await listSnapshots(options.archiveRoot, 'pending')).length;
      const held = heldError({ ...options, pid: holderPidOf(error), waitedSeconds: options.waitSeconds, filesWaiting: journal.files.length }, error);
      if (snapshots > 0) held.message += `; ${snapshots} live snapshot(s) wait in ${options.archiveRoot}/_live/pending`;
      throw held;
    }
    try {
      const conn = warehouse.connection;
      const runId = await startRun(conn, { command: 'load', options: { db: options.dbPath, archive: options.archiveRoot } });
      const applied = await applyJournal(conn, options.archiveRoot);
      await finishRun(conn, runId, {
        outcome: applied.failed.length > 0 ? 'partial' : 'ok',
        filesPlanned: journal.files.length,
        filesLoaded: applied.filesLoaded,
        filesFailed: applied.failed.length,
        rowsLoaded: applied.rowsLoaded,
      });
      return {
        filesLoaded: applied.filesLoaded,
        rowsLoaded: applied.rowsLoaded,
        filesFailed: applied.failed.map(({ file, error }) => ({ exchange: file.exchange, symbol: file.symbol, sessionDate: file.sessionDate, file: file.file, error })),
        runsRecorded: applied.runsRecorded,
        manifestsStored: applied.manifestsStored,
        snapshotsLoaded: applied.snapshotsLoaded,
        creditsSpent: 0,
        warnings: applied.warnings,
      };
    } finally {
      warehouse.close();
    }
  } finally {
    await lock.release();
  }
}

/**
 * `rebuild`'s last step: the live tables get back every journaled snapshot's rows (a row already
 * there is kept; rows of snapshots never journaled or pruned stay as they are).
 */
export async function restoreLiveTables(options: LoadCommandOptions): Promise<{ snapshots: number; inserted: Record<LiveTable, number>; unreadable: string[] }> {
  const journaled = await allJournaledRows(options.archiveRoot);
  const none = { live_levels: 0, term_structure: 0, live_strikes: 0 };
  if (journaled.snapshots === 0) return { snapshots: 0, inserted: none, unreadable: journaled.unreadable };
  const lock = await acquireSyncLock(options.dbPath, { waitSeconds: options.waitSeconds });
  try {
    const warehouse = await openWaiting(options.dbPath, options.waitSeconds, options.signal);
    try {
      return { snapshots: journaled.snapshots, inserted: await writeLiveCapture(warehouse.connection, journaled.rows), unreadable: journaled.unreadable };
    } finally {
      warehouse.close();
    }
  } finally {
    await lock.release();
  }
}

/** What the journal holds, for `status` (readable whoever holds the warehouse). */
export interface WaitingSummary {
  /** Live snapshots journaled by `capture`, not loaded yet. */
  snapshots: number;
  files: number;
  bytes: number;
  runs: number;
  journal: string;
  oldest: string | null;
}

export function waitingOf(journal: Journal, archiveRoot: string, snapshots: number): WaitingSummary {
  const dates = journal.files.map((f) => f.downloadedAt).sort();
  return {
    snapshots,
    files: journal.files.length,
    bytes: journal.files.reduce((sum, f) => sum + f.bytes, 0),
    runs: journal.runs.length,
    journal: journalPath(archiveRoot),
    oldest: dates[0] ?? null,
  };
}
