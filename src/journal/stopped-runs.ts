// A run stopped hard (a second signal, kill -9, a crash) leaves its package open: a start, credits,
// archived files, no record. The next run that holds the sync lock (a sync's start, `gexwh load`)
// first migrates a journal of the older layout (migrate.ts), settles the files it left in `paid/`
// (paid-files.ts: archived after all, or lost), then closes each open package with the
// record the run would have written: outcome interrupted, the credits its files hold, and the links
// `/me` says were charged but never received. Its files then wait like any journaled file, for 0 credits.
import { join } from 'node:path';
import { z } from 'zod';
import { runOf, type JournaledRun } from './entries.js';
import { countOf, isOpen, readPackages, type PackageRead } from './packages.js';
import { CREDITS_FOLDER, freshName, JOURNAL_FOLDER, RUN_RECORD, RUN_RECORDED } from './layout.js';
import { makeFolder, writeNew, writeOver } from './package-io.js';
import { migrateLegacy } from './migrate.js';
import { settlePaid } from './paid-files.js';
import { openPackageOf, STOPPED_HARD } from './open-package.js';
import { refuseFolderLinkOut } from './journal.js';
import type { QuotaSeen, StoppedLog } from './legacy-read.js';

export type { StoppedLog } from './legacy-read.js';

const startSchema = z.object({
  command: z.string().regex(/^[a-z]{1,20}$/),
  options: z.record(z.string(), z.unknown()),
  startedAt: z.iso.datetime({ offset: true }),
  runId: z.number().int().positive().optional(),
  quotaAtStart: z.object({ remaining: z.number().int().nullable(), reset: z.string().optional() }).optional(),
});

/** A sync that stopped hard (second signal, kill -9) or is running now: what its package holds. */
export interface StoppedRun {
  files: number;
  bytes: number;
  credits: number;
  startedAt: string;
  runId: number | null;
  log: string;
}

/** Pure: the open packages as status shows them (a start that cannot be read still counts its files and credits). */
export function stoppedRunsOf(packages: readonly PackageRead[]): StoppedRun[] {
  return packages.filter(isOpen).map((pkg) => {
    const start = startSchema.safeParse('value' in pkg.start ? pkg.start.value : undefined);
    return {
      files: pkg.files.archived.length,
      bytes: bytesOf(pkg),
      credits: pkg.spent.credits,
      startedAt: start.success ? start.data.startedAt : '',
      runId: start.success ? (start.data.runId ?? null) : null,
      log: pkg.folder,
    };
  });
}

/**
 * Closes what runs stopped hard left (the caller holds the sync lock, so no run is writing): each open
 * package gets its record. A start that cannot be read closes without a record (its files still wait;
 * its credits are not claimed), with a note.
 */
export async function adoptStoppedRun(archiveRoot: string, quotaNow?: QuotaSeen): Promise<{ files: number; credits: number; note?: string }> {
  await refuseFolderLinkOut(archiveRoot, JOURNAL_FOLDER);
  const notes = await migrateLegacy(archiveRoot);
  const own = openPackageOf(archiveRoot)?.folder;
  // Files a run paid for and was killed before archiving: archived after all, or lost (named).
  const read = await readPackages(archiveRoot);
  const paid = await settlePaid(archiveRoot, read.packages, own);
  if (paid.lost.length > 0)
    notes.push(
      `${paid.lost.length} file(s) paid by a run that stopped before their bytes were archived (${paid.lost.join(', ')}): bought again when the plan picks them`,
    );
  const { packages } = paid.settled > 0 ? await readPackages(archiveRoot) : read;
  let files = 0;
  let credits = 0;
  for (const pkg of packages.filter((p) => isOpen(p) && p.folder !== own)) {
    const log = stoppedLogOf(pkg);
    if (log === undefined) {
      await writeNew(join(pkg.folder, RUN_RECORDED), { recordedAt: new Date().toISOString() });
      notes.push(`the start of a stopped run (${join(pkg.folder, 'run.json')}) cannot be read: its files wait to load, its credits are not recorded`);
      files += pkg.files.archived.length;
      continue;
    }
    const left = reconciled(log, quotaNow);
    const lost = (left.run.linksLost ?? 0) - (log.run.linksLost ?? 0);
    if (lost > 0) {
      await makeFolder(archiveRoot, join(pkg.folder, CREDITS_FOLDER));
      await writeNew(join(pkg.folder, CREDITS_FOLDER, freshName('lost')), { lost, at: new Date().toISOString() });
    }
    await writeOver(join(pkg.folder, RUN_RECORD), left.run);
    files += pkg.files.archived.length;
    credits += left.run.creditsSpent;
  }
  return { files, credits, ...(notes.length > 0 ? { note: notes.join('; ') } : {}) };
}

function stoppedLogOf(pkg: PackageRead): StoppedLog | undefined {
  const start = startSchema.safeParse('value' in pkg.start ? pkg.start.value : undefined);
  if (!start.success) return undefined;
  const { command, options, startedAt, runId, quotaAtStart } = start.data;
  const counts = pkg.spent.counts;
  const run: JournaledRun = runOf(
    { command, options, startedAt: new Date(startedAt), ...(runId !== undefined ? { runId } : {}) },
    {
      outcome: 'interrupted',
      error: STOPPED_HARD,
      creditsSpent: pkg.spent.credits,
      linksLost: pkg.spent.linksLost,
      requestsSpent: countOf(counts.requestsSpent),
      filesPlanned: countOf(counts.filesPlanned),
      filesDeferred: countOf(counts.filesDeferred),
      bytesDownloaded: bytesOf(pkg),
    },
  );
  return { version: 1, run, files: [], ...(quotaAtStart !== undefined ? { quotaAtStart } : {}) };
}

function bytesOf(pkg: PackageRead): number {
  return pkg.files.archived.reduce((sum, job) => sum + countOf('value' in job.read ? (job.read.value as { bytes?: unknown } | null)?.bytes : 0), 0);
}

/**
 * Pure: the stopped run with the credits the API charged beyond what its log wrote down (a link the
 * API answered as the process died, never read), from `/me` then and now within the same quota
 * window, recorded as charged, not received (links lost). Unchanged when `/me` cannot tell.
 */
export function reconciled(log: StoppedLog, quotaNow: QuotaSeen | undefined): StoppedLog {
  const then = log.quotaAtStart;
  if (then?.remaining == null || quotaNow?.remaining == null || then.reset === undefined || then.reset !== quotaNow.reset) return log;
  const unreceived = then.remaining - quotaNow.remaining - log.run.creditsSpent - (log.run.linksLost ?? 0);
  if (unreceived <= 0) return log;
  const note = `${unreceived} credit(s) charged by the API, not received (link answers lost as the process stopped; from /me)`;
  return { ...log, run: { ...log.run, linksLost: (log.run.linksLost ?? 0) + unreceived, error: log.run.error === null ? note : `${log.run.error}; ${note}` } };
}
