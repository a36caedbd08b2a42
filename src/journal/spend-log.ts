// What a running sync spends, written down as it is spent, in its own load package (layout.ts): the
// run's start in `run.json` before any link is paid; each file, before its link is asked for, as one
// new small file in `paid/` (so a kill at any later moment leaves its name on record); each credit as
// one new small file in `credits/` (a credit per link bought, renewals and lost answers included: the
// spend record, apart from the state of each file); and each paid file, once its bytes are verified
// and in the archive, moved `paid/` → `archived/` by one rename (its record was complete from the
// start: the manifest's name, sha256, size and rows, the archive path built from them). A file whose
// bytes never reached the archive ends in `failed/` with the reason when a credit may have been spent
// on it, else its `paid/` record goes (nothing was paid). Every write is O(1) and durable (temp,
// fsync, link to a new name, folder fsync) before its promise resolves, so a credit is on disk, even
// through a power cut, before the download it paid for starts; no file is rewritten and concurrent
// downloads write side by side. A run that ends normally closes
// its package: the files it loaded move to `loaded/` (or the package goes, when nothing in it waits);
// a run whose record went to the journal leaves it with `record.json`. One stopped hard (a second
// Ctrl-C, kill -9, a crash) leaves it open, and the next sync or `gexwh load` adopts it
// (stopped-runs.ts): its paid files wait to be loaded for 0 credits, its credits are on record.
import { join } from 'node:path';
import { redactSecrets, type RunCounts } from '../warehouse/index.js';
import type { PlannedFile, VerifiedFile } from '../core/rows.js';
import type { JournaledFile } from './entries.js';
import { archivedCopyRelative } from './versions.js';
import { CREDITS_FOLDER, creditName, jobName, newPackageId, PAID_STATE, packagesFolder, RUN_RECORD, RUN_RECORDED, RUN_START } from './layout.js';
import { makeFolder, move, removeFile, removePackage, writeNew, writeOver } from './package-io.js';
import type { QuotaSeen } from './legacy-read.js';
import { registerOpenPackage, STOPPED_HARD, unregisterOpenPackage, type OpenPackage } from './open-package.js';

export type { QuotaSeen } from './legacy-read.js';
export { STOPPED_HARD } from './open-package.js';
// The sync adopts stopped runs where it opens its log: the adoption lives beside it, in stopped-runs.ts.
export { adoptAndRead, adoptStoppedRun } from './stopped-runs.js';

/** The start of a run, as its record keeps it. */
interface RunStart {
  command: string;
  options: Record<string, unknown>;
  startedAt: Date;
  /** The file credits `/me` said were left when the run started, and when they reset. */
  quotaAtStart?: QuotaSeen;
}

export interface SpendLog {
  /** A file's link is about to be asked for: its record in `paid/`, on disk when this resolves. */
  paying(file: PlannedFile): Promise<void>;
  /** A file link was paid; resolves once that is written down. */
  credit(credits: number): Promise<void>;
  /** A paid file is in the archive: `paid/` → `archived/` (a file never written as paid: a new `archived/` file). */
  archived(file: VerifiedFile): Promise<void>;
  /**
   * A file written as paid whose bytes did not reach the archive: to `failed/` with `reason` when a
   * credit may have been spent on it (`charged`), else its `paid/` record goes (its link was never bought).
   */
  notArchived(file: PlannedFile, reason: string, charged: boolean): Promise<void>;
  /** Counts of the run record besides credits (requests, planned files), written with the next credit. */
  note(counts: Partial<RunCounts>): void;
  readonly creditsSpent: number;
  /** The run record as written down so far (outcome interrupted: what a hard stop leaves). */
  counts(): RunCounts;
  /** The paid files written down so far, in the order they arrived. */
  files(): VerifiedFile[];
  /** Writes the run's start before any link is paid: an archive that cannot take it fails here, for free. */
  ready(): Promise<void>;
  /**
   * The run is recorded and its files are loaded or journaled. Recorded in the warehouse: the files
   * it loaded move to `loaded/` and the package goes once nothing in it waits. Recorded in the journal
   * (`journaled`): the package keeps its record, and its credits are what that record is checked against.
   */
  close(options?: { journaled?: boolean }): Promise<void>;
}

export function journaledFileOf(file: PlannedFile & { downloadedAt: Date }): JournaledFile {
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

/** Starts the log of one run (the caller holds the sync lock: one open package at a time). */
export function openSpendLog(archiveRoot: string, start: RunStart & { runId?: number }, requestsSpent: () => number = () => 0): SpendLog {
  const folder = join(packagesFolder(archiveRoot), newPackageId(start.command, start.startedAt));
  const files: VerifiedFile[] = [];
  const jobs = new Set<string>();
  const kept = new Set<string>();
  /** Files written in `paid/` and not moved on yet. */
  const paying = new Map<string, JournaledFile>();
  let counts: RunCounts = { outcome: 'interrupted', creditsSpent: 0, error: STOPPED_HARD };
  let credits = 0;
  let begun: Promise<void> | undefined;
  let recorded = false;
  const noted = () => ({ requestsSpent: requestsSpent(), filesPlanned: counts.filesPlanned ?? 0, filesDeferred: counts.filesDeferred ?? 0 });
  const begin = (): Promise<void> =>
    (begun ??= (async () => {
      await makeFolder(archiveRoot, join(folder, CREDITS_FOLDER));
      await makeFolder(archiveRoot, join(folder, PAID_STATE));
      await makeFolder(archiveRoot, join(folder, 'archived'));
      await writeNew(join(folder, RUN_START), {
        version: 1,
        command: start.command,
        options: redactSecrets(start.options),
        startedAt: start.startedAt.toISOString(),
        ...(start.runId !== undefined ? { runId: start.runId } : {}),
        ...(start.quotaAtStart !== undefined ? { quotaAtStart: start.quotaAtStart } : {}),
      });
    })());
  const open: OpenPackage = {
    folder,
    command: start.command,
    startedAt: start.startedAt.getTime(),
    keep(some) {
      const rest: VerifiedFile[] = [];
      for (const file of some) {
        const name = jobName(file);
        if (jobs.has(name)) kept.add(name);
        else rest.push(file);
      }
      return rest;
    },
    async record(run) {
      await begin();
      await writeOver(join(folder, RUN_RECORD), run);
      recorded = true;
    },
  };
  registerOpenPackage(archiveRoot, open);
  return {
    async paying(file) {
      const name = jobName(file);
      await begin();
      // The download begins now: the record is renamed unchanged once its bytes are archived.
      const record = journaledFileOf({ ...file, downloadedAt: new Date() });
      await writeNew(join(folder, PAID_STATE, name), record);
      paying.set(name, record);
    },
    async notArchived(file, reason, charged) {
      const name = jobName(file);
      const record = paying.get(name);
      if (record === undefined) return;
      paying.delete(name);
      if (charged) {
        // A new file, then the removal: a crash between leaves both, and failed/ wins (paid-files.ts).
        await makeFolder(archiveRoot, join(folder, 'failed'));
        await writeNew(join(folder, 'failed', name), { ...record, reason, failedAt: new Date().toISOString() });
      }
      await removeFile(join(folder, PAID_STATE, name));
    },
    async credit(spent) {
      counts = { ...counts, creditsSpent: (counts.creditsSpent ?? 0) + spent };
      const seq = credits++;
      await begin();
      await writeNew(join(folder, CREDITS_FOLDER, creditName(seq)), { credits: spent, at: new Date().toISOString(), counts: noted() });
    },
    async archived(file) {
      files.push(file);
      counts = { ...counts, bytesDownloaded: (counts.bytesDownloaded ?? 0) + file.bytes };
      const name = jobName(file);
      jobs.add(name);
      await begin();
      if (paying.delete(name)) await move(join(folder, PAID_STATE, name), join(folder, 'archived', name));
      else await writeNew(join(folder, 'archived', name), journaledFileOf(file));
    },
    note(more) {
      counts = { ...counts, ...more };
    },
    get creditsSpent() {
      return counts.creditsSpent ?? 0;
    },
    counts: () => ({ ...counts, requestsSpent: requestsSpent() }),
    ready: () => begin(),
    files: () => [...files],
    async close({ journaled = false } = {}) {
      unregisterOpenPackage(archiveRoot, open);
      if (begun === undefined || !(await begun.then(() => true).catch(() => false))) return;
      if (journaled) {
        // The record went elsewhere (none was written here): the package is closed all the same.
        if (!recorded) await writeNew(join(folder, RUN_RECORDED), { recordedAt: new Date().toISOString() });
        return;
      }
      if (kept.size === 0) {
        await removePackage(folder);
        return;
      }
      await makeFolder(archiveRoot, join(folder, 'loaded'));
      for (const name of jobs) if (!kept.has(name)) await move(join(folder, 'archived', name), join(folder, 'loaded', name));
      await writeNew(join(folder, RUN_RECORDED), { recordedAt: new Date().toISOString() });
    },
  };
}
