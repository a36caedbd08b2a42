// The loads of waiting, paid files: the sync's own load (files it downloaded, archived copies it reuses),
// `gexwh load` (the journal, src/journal/apply-journal.ts, with the lock and the wait for the
// warehouse), the held-out messages, and `rebuild`'s restore of the live tables. No credit.
import type { DuckDBConnection } from '@duckdb/node-api';
import { LockError } from '../core/errors.js';
import { DEFAULT_WAIT_LOCK_SECONDS } from './wait-lock.js';
import {
  acquireSyncLock,
  expectVersion,
  finishRun,
  loadArchived,
  loadFiles,
  recordNotArchived,
  startRun,
  type FoundBytes,
  type LoadInput,
  type SchemaContract,
  type Verdict,
  type Warehouse,
} from '../warehouse/index.js';
import { allJournaledRows, listSnapshots } from './live-journal.js';
import { writeLiveCapture, type LiveTable } from '../warehouse/live.js';
import { inspectJournal } from './journal.js';
import type { VerifiedFile } from '../core/rows.js';
import { archivedCopyRelative } from './versions.js';
import { adoptAndRead } from './spend-log.js';
import type { OnProgress } from '../core/progress.js';
import { definedOnly } from '../core/defined.js';
import { applyJournal, unfinished } from './apply-journal.js';
import { NO_CHECK, type JournalCheck } from './confirm.js';
import { heldError, holderPidOf, openWaiting } from './held-out.js';

export { applyJournal, nothingApplied, type AppliedJournal } from './apply-journal.js';
export { NO_CHECK, type JournalCheck, type ManifestLister } from './confirm.js';
export { heldError, heldMessage, holderPidOf, openWaiting, type HeldDetails } from './held-out.js';
export { DEFAULT_WAIT_LOCK_SECONDS };

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
  const copies = files
    .filter((file) => file.fromArchive)
    .map((file) => ({ ...file, relativePath: archivedCopyRelative(file), maxBytes: file.bytes, verified: file }));
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

export interface LoadCommandOptions {
  dbPath: string;
  archiveRoot: string;
  waitSeconds: number;
  signal?: AbortSignal;
  /** Told as the journal's files are loaded. */
  onProgress?: OnProgress;
  /** `freeze` keeps a file with a new layout waiting; `gexwh load --accept-layout` passes `evolve`. */
  schemaContract?: SchemaContract;
  /** How the journal's claims are checked (the API when a key is configured, --trust-journal). */
  check?: JournalCheck;
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
    // A journal file that is not read (a link, a FIFO, too big) is named once everything else is loaded
    // (read before the migration sets a refused journal of the older layout aside).
    const { refused } = await inspectJournal(options.archiveRoot);
    // What a sync stopped hard left (src/journal/spend-log.ts) joins the journal first; the load applies that read.
    const { adopted, journal: read } = await adoptAndRead(options.archiveRoot);
    const { journal } = read;
    let warehouse: Warehouse;
    try {
      warehouse = await openWaiting(options, options.waitSeconds, options.signal);
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
      const applied = await applyJournal(conn, options.archiveRoot, {
        check: options.check ?? NO_CHECK,
        read,
        ...definedOnly({ signal: options.signal, onProgress: options.onProgress, schemaContract: options.schemaContract }),
      });
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
        warnings: [...(adopted.note !== undefined ? [adopted.note] : []), ...applied.warnings],
        ...(refused !== undefined ? { journalRefused: `${refused}; it was set aside beside itself (named .unreadable), never opened` } : {}),
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
    const warehouse = await openWaiting(options, options.waitSeconds, options.signal);
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
