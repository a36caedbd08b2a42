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
import { journalViewOf, refuseFolderLinkOut, type JournalView } from './journal.js';
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

/** What closing the stopped runs came to: their paid files and credits, and what was noted on the way. */
export interface Adopted {
  files: number;
  credits: number;
  note?: string;
}

/**
 * Closes what runs stopped hard left (the caller holds the sync lock, so no run is writing): each open
 * package gets its record. A start that cannot be read closes without a record (its files still wait;
 * its credits are not claimed), with a note.
 */
export async function adoptStoppedRun(archiveRoot: string, quotaNow?: QuotaSeen): Promise<Adopted> {
  return (await adoptAndRead(archiveRoot, quotaNow)).adopted;
}

/**
 * adoptStoppedRun, and the journal as it stands after it, from the one read of its packages that
 * both use: a run that goes on to load or plan from the journal reads it no second time.
 */
export async function adoptAndRead(archiveRoot: string, quotaNow?: QuotaSeen): Promise<{ adopted: Adopted; journal: JournalView }> {
  await refuseFolderLinkOut(archiveRoot, JOURNAL_FOLDER);
  const notes = await migrateLegacy(archiveRoot);
  const own = openPackageOf(archiveRoot)?.folder;
  // Files a run paid for and was killed before archiving: archived after all, or lost (named).
  const first = await readPackages(archiveRoot);
  const paid = await settlePaid(archiveRoot, first.packages, own);
  if (paid.lost.length > 0)
    notes.push(
      `${paid.lost.length} file(s) paid by a run that stopped before their bytes were archived (${paid.lost.join(', ')}): bought again when the plan picks them`,
    );
  const read = paid.settled > 0 ? await readPackages(archiveRoot) : first;
  let files = 0;
  let credits = 0;
  const closed = new Map<PackageRead, PackageRead>();
  for (const pkg of read.packages.filter((p) => isOpen(p) && p.folder !== own)) {
    const closing = closingOf(pkg, quotaNow);
    closed.set(pkg, closing.closed);
    files += pkg.files.archived.length;
    if (closing.run === undefined) {
      await writeNew(join(pkg.folder, RUN_RECORDED), { recordedAt: new Date().toISOString() });
      notes.push(`the start of a stopped run (${join(pkg.folder, 'run.json')}) cannot be read: its files wait to load, its credits are not recorded`);
      continue;
    }
    if (closing.lost > 0) {
      await makeFolder(archiveRoot, join(pkg.folder, CREDITS_FOLDER));
      await writeNew(join(pkg.folder, CREDITS_FOLDER, freshName('lost')), { lost: closing.lost, at: new Date().toISOString() });
    }
    await writeOver(join(pkg.folder, RUN_RECORD), closing.run);
    credits += closing.run.creditsSpent;
  }
  const adopted = { files, credits, ...(notes.length > 0 ? { note: notes.join('; ') } : {}) };
  const packages = read.packages.map((pkg) => closed.get(pkg) ?? pkg);
  return { adopted, journal: await journalViewOf(archiveRoot, { packages, refused: read.refused }) };
}

/**
 * Pure: what closing a stopped run's package writes (its record, and the links `/me` says were lost;
 * no record when its start cannot be read), and the package as a read after those writes finds it.
 */
function closingOf(pkg: PackageRead, quotaNow: QuotaSeen | undefined): { run?: JournaledRun; lost: number; closed: PackageRead } {
  const log = stoppedLogOf(pkg);
  if (log === undefined) return { lost: 0, closed: { ...pkg, recorded: true } };
  const left = reconciled(log, quotaNow);
  const lost = (left.run.linksLost ?? 0) - (log.run.linksLost ?? 0);
  const record = { value: JSON.parse(JSON.stringify(left.run)) as unknown };
  return { run: left.run, lost, closed: { ...pkg, record, spent: { ...pkg.spent, linksLost: pkg.spent.linksLost + Math.max(lost, 0) } } };
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
