// What the archive holds on record that the warehouse may not have yet: the journal's paid files and
// run records, and the open package of a sync that stopped hard (a second signal, kill -9) or is
// running now (or the log an older version left). `status` and `report` both read it, so right after an abort every paid file shows as waiting
// and every credit as spent, before the next load puts them in the warehouse. Readable whoever holds
// the warehouse; a log that cannot be read is named, never fatal.
import { inspectJournal, type JournaledRun } from './journal.js';
import { listSnapshots } from './live-journal.js';
import { legacyInflightPath, readLegacyInflight, type StoppedLog } from './legacy-read.js';
import { stoppedRunsOf, type StoppedRun } from './stopped-runs.js';
import { waitingOf, type WaitingSummary } from './waiting.js';
import { paidNotArchived, type PaidNotArchived } from './paid-files.js';
import { setAsideNames } from './set-aside.js';

export type { StoppedRun } from './stopped-runs.js';
export type { PaidNotArchived } from './paid-files.js';

export interface OnRecord {
  /** The journal's run records, not in the warehouse yet. */
  runs: JournaledRun[];
  waiting: WaitingSummary;
  stopped: StoppedRun | undefined;
  /** Files a run wrote down as paid whose bytes are not archived (a download going on, or cut by a kill). */
  paidNotArchived: PaidNotArchived[];
  /** Journal names a load set aside unread (a link, a FIFO, too big, not gexwh's), kept for a person to look at. */
  setAside: string[];
}

export async function readOnRecord(archive: string): Promise<OnRecord> {
  const snapshots = (await listSnapshots(archive, 'pending')).length;
  const read = await inspectJournal(archive);
  const waiting = waitingOf(read, archive, snapshots);
  const inflight = await readLegacyInflight(archive);
  const older = 'log' in inflight ? [legacyStoppedRun(inflight.log, legacyInflightPath(archive))] : [];
  const stopped = combined([...stoppedRunsOf(read.packages), ...older]);
  if ('problem' in inflight) waiting.problem = [waiting.problem, `the log of a stopped run: ${inflight.problem}`].filter((p) => p !== null).join('; ');
  return { runs: read.journal.runs, waiting, stopped, paidNotArchived: paidNotArchived(read.packages), setAside: await setAsideNames(archive) };
}

function legacyStoppedRun(left: StoppedLog, log: string): StoppedRun {
  const bytes = left.files.reduce((sum, file) => sum + file.bytes, 0);
  return { files: left.files.length, bytes, credits: left.run.creditsSpent, startedAt: left.run.startedAt, runId: left.run.runId ?? null, log };
}

/** Pure: the runs stopped hard as one (the first's start and row; one at a time is the rule, the sync lock). */
function combined(runs: readonly StoppedRun[]): StoppedRun | undefined {
  const [first, ...rest] = runs;
  if (first === undefined) return undefined;
  return rest.reduce((all, run) => ({ ...all, files: all.files + run.files, bytes: all.bytes + run.bytes, credits: all.credits + run.credits }), first);
}

/** Every paid file not loaded: the journal's and those the log of a stopped run holds. */
export function filesWaiting(record: OnRecord): number {
  return record.waiting.files + (record.stopped?.files ?? 0);
}

export interface CreditsOnRecord {
  /** Spent since midnight UTC by the warehouse's runs (null: no warehouse read). */
  sinceMidnightUtc: number | null;
  /** Spent by every run of the warehouse, a stopped run's open row counted with what its log wrote down. */
  allRuns: number | null;
  /** Spent by runs the warehouse has no record of yet (the journal's, a stopped run without a row). */
  inJournal: number;
}

/**
 * Pure: credits from the warehouse's run records and those still in the archive. A run stopped hard
 * whose row the warehouse holds (still open, its credits not written) counts with what its log wrote
 * down, so the records show every credit spent at every moment.
 */
export function creditsOnRecord(
  recorded: { sinceMidnightUtc: number; allRuns: number } | undefined,
  record: Pick<OnRecord, 'runs' | 'stopped'>,
  today: string = new Date().toISOString().slice(0, 10),
): CreditsOnRecord {
  const { stopped } = record;
  const inRow = stopped !== undefined && stopped.runId !== null && recorded !== undefined;
  const inJournal = record.runs.reduce((sum, run) => sum + run.creditsSpent, 0) + (stopped !== undefined && !inRow ? stopped.credits : 0);
  const openRow = inRow ? stopped.credits : 0;
  const allRuns = recorded === undefined ? null : recorded.allRuns + openRow;
  const sinceMidnightUtc = recorded === undefined ? null : recorded.sinceMidnightUtc + (inRow && stopped.startedAt >= `${today}T` ? stopped.credits : 0);
  return { sinceMidnightUtc, allRuns, inJournal };
}
