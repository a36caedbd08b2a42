// Loading what the archive's journal holds (src/journal/journal.ts) into the warehouse: the manifests a
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
  expectVersion,
  finishRun,
  loadArchived,
  loadFiles,
  loadedFiles,
  manifestRowsOf,
  openWarehouse,
  parseLockHolderPid,
  recordListing,
  recordNotArchived,
  startRun,
  upsertManifest,
  type ArchivedCandidate,
  type ArchivedLoadReport,
  type FoundBytes,
  type LoadInput,
  type SchemaContract,
  type Verdict,
  type Warehouse,
} from '../warehouse/index.js';
import { allJournaledRows, listSnapshots, loadLiveJournal } from './live-journal.js';
import { writeLiveCapture, type LiveTable } from '../warehouse/live.js';
import { hasPendingWork, inspectJournal, journalPath, readJournal, withoutApplied, writeJournal, type JournaledFile, type RejectedEntry } from './journal.js';
import { fileKey } from '../core/pairs.js';
import type { StoredManifestRow, VerifiedFile } from '../core/rows.js';
import { archivedCopyRelative, promoteLoadedVersions } from './versions.js';
import { adoptStoppedRun } from './spend-log.js';
import { dropSpendRecords, recordJournaledRuns } from './journaled-runs.js';
import type { OnProgress } from '../core/progress.js';
import { definedOnly } from '../core/defined.js';

export { DEFAULT_WAIT_LOCK_SECONDS };

export interface AppliedJournal {
  filesLoaded: number;
  rowsLoaded: number;
  /** Journaled files the loader refused (recorded failed_load in the ledger; still archived). */
  failed: { file: JournaledFile; error: string }[];
  /** Journaled files the `freeze` contract holds (a new layout): they stay in the journal. */
  held: { file: JournaledFile; reason: string }[];
  runsRecorded: number;
  manifestsStored: number;
  /** Live snapshots `capture` journaled while the warehouse was held, loaded now. */
  snapshotsLoaded: number;
  warnings: string[];
}

export function nothingApplied(): AppliedJournal {
  return { filesLoaded: 0, rowsLoaded: 0, failed: [], held: [], runsRecorded: 0, manifestsStored: 0, snapshotsLoaded: 0, warnings: [] };
}

/**
 * Loads the journal's content into an open, writable warehouse, then removes it from the journal. A
 * stop signal ends the file loads early; the files not done stay in the journal.
 */
export async function applyJournal(
  conn: DuckDBConnection,
  archiveRoot: string,
  signal?: AbortSignal,
  onProgress?: OnProgress,
  schemaContract?: SchemaContract,
): Promise<AppliedJournal> {
  const applied = nothingApplied();
  const live = await loadLiveJournal(conn, archiveRoot);
  applied.snapshotsLoaded = live.snapshots;
  for (const path of live.unreadable) applied.warnings.push(`the journaled snapshot ${path} cannot be read; it is left where it is`);
  const read = await inspectJournal(archiveRoot);
  applied.warnings.push(...read.warnings);
  const { journal } = read;
  // A refused entry (or a file no read can use) is written back at once, so it warns once.
  if (!hasPendingWork(journal)) {
    if (read.warnings.length > 0) await writeJournal(archiveRoot, journal);
    return applied;
  }
  // Manifests first: the plan, status, the row-count checks and the files' own check read them.
  for (const listing of journal.listings) {
    await upsertManifest(conn, listing.exchange, listing.symbol, listing.rows, listing.listedAt);
    if (listing.completeFrom !== undefined) await recordListing(conn, listing.exchange, listing.symbol, listing.completeFrom, new Date(listing.listedAt));
    applied.manifestsStored++;
  }
  const { refused, notDone } = await loadJournaledFiles(conn, archiveRoot, journal.files, applied, { signal, onProgress, schemaContract });
  applied.runsRecorded = await recordJournaledRuns(conn, archiveRoot, journal.runs, applied.warnings);
  // A journaled newer version waits under its pending name; once loaded it takes the plain name.
  applied.warnings.push(...(await promoteLoadedVersions(conn, archiveRoot)).warnings);
  const done = journal.files.filter((file) => !notDone.has(file));
  const rest = withoutApplied(journal, { files: done, listings: journal.listings.length, runs: journal.runs.length });
  await writeJournal(archiveRoot, { ...rest, rejected: [...rest.rejected, ...refused] });
  await dropSpendRecords(archiveRoot, journal.runs);
  return applied;
}

/**
 * The journal's files, each loaded only if its bytes are the manifest's version of that file (the
 * journal's own sha256 is a claim, like its path): the bytes are hashed as they are loaded
 * (warehouse/archived-load.ts). A copy that is not the manifest's is quarantined and recorded so
 * the planner downloads the file again; an entry no manifest row explains is refused.
 */
async function loadJournaledFiles(
  conn: DuckDBConnection,
  archiveRoot: string,
  files: readonly JournaledFile[],
  applied: AppliedJournal,
  { signal, onProgress, schemaContract }: { signal: AbortSignal | undefined; onProgress: OnProgress | undefined; schemaContract: SchemaContract | undefined },
): Promise<{ refused: RejectedEntry[]; notDone: Set<JournaledFile> }> {
  if (files.length === 0) return { refused: [], notDone: new Set() };
  const manifest = await manifestRowsOf(conn, files);
  const loaded = await loadedFiles(conn, files);
  const refused: RejectedEntry[] = [];
  const candidates: (ArchivedCandidate & { entry: JournaledFile; expected: StoredManifestRow })[] = [];
  for (const entry of files) {
    const expected = manifest.get(fileKey(entry));
    if (expected === undefined) {
      const reason =
        'no manifest row lists this file, so its bytes cannot be checked; it stays in the archive, where a sync that lists it uses it for 0 credits';
      refused.push({ kind: 'file', reason, rejectedAt: new Date().toISOString(), entry });
      applied.warnings.push(`journal file ${describeEntry(entry)} refused: ${reason}`);
    } else if (loaded.get(fileKey(entry)) !== expected.sha256) {
      if (entry.sha256 !== expected.sha256)
        applied.warnings.push(`journal file ${describeEntry(entry)} says sha256 ${entry.sha256}; the manifest's version ${expected.sha256} is what may load`);
      candidates.push({ ...entry, relativePath: entry.archivePath, entry, expected });
    }
  }
  const report = await loadArchived(conn, archiveRoot, candidates, judgeJournaled, {
    command: "the journal's load (gexwh load, or the start of gexwh sync)",
    ...definedOnly({ signal, schemaContract, onProgress: onProgress && ((done: number) => onProgress(done, candidates.length)) }),
  });
  applied.filesLoaded = report.loaded.length;
  applied.rowsLoaded = report.rowsLoaded;
  applied.warnings.push(...report.warnings);
  for (const { input, error } of report.failed) {
    const candidate = report.candidateOf.get(input);
    if (candidate) applied.failed.push({ file: candidate.entry, error });
  }
  const held = heldEntries(report, applied);
  for (const missed of report.notLoaded) {
    if (missed.kind === 'refused') {
      applied.warnings.push(`journal file ${describeEntry(missed.candidate.entry)} not loaded: ${missed.detail}`);
      continue;
    }
    await recordNotArchived(conn, { ...missed.candidate.entry, sha256: missed.candidate.expected.sha256, archivePath: null }, missed.detail);
    applied.failed.push({ file: missed.candidate.entry, error: missed.detail });
  }
  return { refused, notDone: new Set([...unfinished(report, candidates).map((candidate) => candidate.entry), ...held]) };
}

/** Held by the freeze contract: still paid and archived, still waiting in the journal. */
function heldEntries(report: ArchivedLoadReport<{ entry: JournaledFile } & ArchivedCandidate>, applied: AppliedJournal): Set<JournaledFile> {
  const held = new Set<JournaledFile>();
  for (const { input, reason } of report.held) {
    const candidate = report.candidateOf.get(input);
    if (candidate === undefined) continue;
    applied.held.push({ file: candidate.entry, reason });
    applied.warnings.push(reason);
    held.add(candidate.entry);
  }
  return held;
}

/** The candidates a stop signal kept the loader from: neither loaded, failed, skipped nor set aside. */
function unfinished<C extends ArchivedCandidate>(report: ArchivedLoadReport<C>, candidates: readonly C[]): C[] {
  if (!report.stopped) return [];
  const finished = new Set<C>(report.notLoaded.map((missed) => missed.candidate));
  for (const input of [...report.loaded, ...report.skipped, ...report.failed.map((f) => f.input)]) {
    const candidate = report.candidateOf.get(input);
    if (candidate !== undefined) finished.add(candidate);
  }
  return candidates.filter((candidate) => !finished.has(candidate));
}

/**
 * The manifest's version loads; the version the entry names, when the manifest has moved on from it,
 * is left where it is (a genuine older copy, not a bad one); any other bytes are quarantined.
 */
function judgeJournaled(candidate: { entry: JournaledFile; expected: StoredManifestRow }, found: FoundBytes): Verdict {
  const { entry, expected } = candidate;
  if (found.sha256 === entry.sha256 && entry.sha256 !== expected.sha256) {
    return { refuse: `it is the version ${entry.sha256}, and the manifest now lists ${expected.sha256}: the file is planned again` };
  }
  return expectVersion(expected, found, { rows: expected.rows, downloadedAt: entry.downloadedAt }, 'the manifest');
}

function describeEntry(entry: JournaledFile): string {
  return `${entry.exchange}/${entry.symbol} ${entry.sessionDate} ${entry.file}`;
}

/** What a sync's load did: files and rows loaded, the files that did not load and why, those a stop left. */
export interface SyncLoad {
  loaded: number;
  rows: number;
  failed: { file: VerifiedFile; error: string }[];
  /** Files a stop signal kept from loading: they go to the journal. */
  notLoaded: VerifiedFile[];
  /** Files the `freeze` contract holds (a new layout): they go to the journal too. */
  held: VerifiedFile[];
  warnings: string[];
}

/**
 * A sync's load. Files this run downloaded were hashed on the wire and load as they are; archived
 * copies (a failed_load reloaded, a copy the plan reused) are hashed again as they load, against the
 * manifest's sha256: one that is not the manifest's is quarantined, recorded with no archived copy,
 * and downloaded again by a later sync within its budget.
 */
export async function loadSyncFiles(
  conn: DuckDBConnection,
  archiveRoot: string,
  files: readonly VerifiedFile[],
  onProgress: (filesDone: number) => void,
  signal?: AbortSignal,
  schemaContract?: SchemaContract,
): Promise<SyncLoad> {
  const result: SyncLoad = { loaded: 0, rows: 0, failed: [], notLoaded: [], held: [], warnings: [] };
  if (files.length === 0) return result;
  const stop = definedOnly({ signal, schemaContract });
  const copies = files.filter((file) => file.fromArchive).map((file) => ({ ...file, relativePath: archivedCopyRelative(file), verified: file }));
  const fresh = files.filter((file) => !file.fromArchive);
  const judge = (c: (typeof copies)[number], found: FoundBytes): Verdict =>
    expectVersion({ sha256: c.sha256, bytes: c.bytes }, found, { rows: c.rows, downloadedAt: c.downloadedAt }, 'the manifest');
  const reloaded = await loadArchived(conn, archiveRoot, copies, judge, { command: 'gexwh sync (an archived copy reused)', onProgress, ...stop });
  for (const missed of reloaded.notLoaded) {
    await recordNotArchived(conn, { ...missed.candidate.verified, archivePath: null }, missed.detail);
    result.failed.push({ file: missed.candidate.verified, error: `${missed.detail}; the next sync downloads it again (1 credit, within its budget)` });
  }
  for (const { input, error } of reloaded.failed) {
    const copy = reloaded.candidateOf.get(input);
    if (copy) result.failed.push({ file: copy.verified, error });
  }
  const inputs: LoadInput[] = fresh.map((file) => ({ ...file, path: file.archivePath, archivePath: archivedCopyRelative(file) }));
  const downloaded = await loadFiles(conn, inputs, { onProgress: (done) => onProgress(copies.length + done), ...stop });
  for (const { input, error } of downloaded.failed) result.failed.push({ file: fresh[inputs.indexOf(input)]!, error });
  const freshDone = new Set([...downloaded.loaded, ...downloaded.skipped, ...downloaded.failed.map((f) => f.input)]);
  result.notLoaded = [...unfinished(reloaded, copies).map((copy) => copy.verified), ...fresh.filter((_, i) => !freshDone.has(inputs[i]!))];
  for (const { input } of reloaded.held) {
    const copy = reloaded.candidateOf.get(input);
    if (copy) result.held.push(copy.verified);
  }
  for (const { input } of downloaded.held) result.held.push(fresh[inputs.indexOf(input)]!);
  result.loaded = reloaded.loaded.length + downloaded.loaded.length;
  result.rows = reloaded.rowsLoaded + downloaded.rowsLoaded;
  const held = [...reloaded.held, ...downloaded.held].map((h) => h.reason);
  result.warnings = [...reloaded.warnings, ...downloaded.warnings.filter((w) => !reloaded.warnings.includes(w)), ...held];
  return result;
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
  /** Told as the journal's files are loaded. */
  onProgress?: OnProgress;
  /** `freeze` keeps a file with a new layout waiting; `gexwh load --accept-layout` passes `evolve`. */
  schemaContract?: SchemaContract;
}

export interface LoadCommandResult {
  filesLoaded: number;
  rowsLoaded: number;
  filesFailed: { exchange: string; symbol: string; sessionDate: string; file: string; error: string }[];
  /** Files the `freeze` contract keeps waiting (a new layout): `gexwh load --accept-layout` loads them. */
  filesHeld: { exchange: string; symbol: string; sessionDate: string; file: string; reason: string }[];
  runsRecorded: number;
  manifestsStored: number;
  snapshotsLoaded: number;
  creditsSpent: 0;
  warnings: string[];
  /** Why the journal file itself was not read (a link, a FIFO, too big), naming it: the command exits 2 once the rest is loaded. */
  journalRefused?: string;
}

/** `gexwh load`: the journal into the warehouse; no network, no credit. */
export async function loadWaiting(options: LoadCommandOptions): Promise<LoadCommandResult> {
  const lock = await acquireSyncLock(options.dbPath, { waitSeconds: options.waitSeconds });
  try {
    // A journal file that is not read (a link, a FIFO, too big) is named once everything else is loaded.
    const { refused } = await inspectJournal(options.archiveRoot);
    // What a sync stopped hard left (src/journal/spend-log.ts) joins the journal first.
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
      const applied = await applyJournal(conn, options.archiveRoot, options.signal, options.onProgress, options.schemaContract);
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
        filesFailed: applied.failed.map(({ file, error }) => ({
          exchange: file.exchange,
          symbol: file.symbol,
          sessionDate: file.sessionDate,
          file: file.file,
          error,
        })),
        filesHeld: applied.held.map(({ file, reason }) => ({
          exchange: file.exchange,
          symbol: file.symbol,
          sessionDate: file.sessionDate,
          file: file.file,
          reason,
        })),
        runsRecorded: applied.runsRecorded,
        manifestsStored: applied.manifestsStored,
        snapshotsLoaded: applied.snapshotsLoaded,
        creditsSpent: 0,
        warnings: applied.warnings,
        ...(refused !== undefined ? { journalRefused: `${refused}; it was set aside as ${journalPath(options.archiveRoot)}.unreadable-<time>` } : {}),
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
export async function restoreLiveTables(
  options: LoadCommandOptions,
): Promise<{ snapshots: number; inserted: Record<LiveTable, number>; unreadable: string[] }> {
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

export { waitingOf, type WaitingSummary } from './waiting.js';
