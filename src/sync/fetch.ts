// The download stage: fetch the planned files with bounded concurrency, each to a
// temp file in its archive folder while hashing, check sha256 and size against the manifest (one
// retry on mismatch), then rename it into the archive. A 429, a local write error or a stop signal
// ends the stage cleanly: no new link is paid for, files whose link is paid finish (see fetchFiles),
// the files not started are deferred.
import { promises as fs } from 'node:fs';
import pLimit from 'p-limit';
import { commitToArchive, tempPathFor } from '../core/archive/writes.js';
import { archivedCopyPath, archivedCopyRelative } from '../journal/versions.js';
import type { SpendLog } from '../journal/spend-log.js';
import { folderLeavesArchive } from '../core/archive/confine.js';
import { dirname } from 'node:path';
import { errorMessage } from '../core/errors.js';
import type { PlannedFile, VerifiedFile } from '../core/rows.js';
import type { QuotaStop } from '../api/quota.js';
import { CreditMeter, UNLIMITED } from '../core/credit-meter.js';

export interface DownloadResult {
  bytes: number;
  sha256: string;
  /** Credits this download cost: 1, or more when an expired link had to be renewed. */
  creditsSpent: number;
}

/**
 * The API side of a download: link, storage GET, stream to `tempPath`. `stop` means "pay for no new
 * link": once aborted, no link request is sent and no failed attempt is retried, but a link already
 * paid is downloaded to the end of its attempt.
 */
export type Downloader = (file: PlannedFile, tempPath: string, stop: AbortSignal, links: LinkBudget) => Promise<DownloadResult>;

/**
 * A link request whose answer was lost (the connection reset after the server may have charged the
 * credit) is counted; asking again for the same file costs a credit the plan did not count, so it is
 * done only with a credit the run's meter has left over after every planned file.
 */
export interface LinkBudget {
  /** A link was paid (the server charged it): written down before the download goes on. */
  paid(credits: number): Promise<void>;
  answerLost(): void;
  /**
   * True (and the credit is taken) when the meter has a credit no planned file holds: the only
   * credit a lost answer asked again or an expired link renewed may spend.
   */
  takeExtraCredit(): boolean;
}

/**
 * Thrown by a Downloader when a file needs one more credit than the plan counted (its link expired)
 * and the run's budget (--max-credits, --reserve-credits, the day's remaining credits) has none left
 * over: the file is deferred to the next run, never bought outside the budget.
 */
export class OverBudgetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OverBudgetError';
  }
}

/**
 * Thrown by a Downloader when the storage's body cannot be the manifest's file before it is even
 * written (more bytes announced or sent than the manifest says): handled like a verification
 * mismatch, so it earns the one retry on the same link (no credit).
 */
export class BodyMismatchError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BodyMismatchError';
  }
}

/**
 * Thrown by a Downloader whose link was paid but whose file did not arrive: the credits were spent
 * all the same and must be counted. `cause` is the failure itself.
 */
export class PaidDownloadError extends Error {
  constructor(
    readonly creditsSpent: number,
    override readonly cause: unknown,
  ) {
    super(errorMessage(cause));
    this.name = 'PaidDownloadError';
  }
}

export interface FailedFile extends PlannedFile {
  status: 'failed_verify';
  error: string;
  archivePath: string;
}

export interface FetchReport {
  verified: VerifiedFile[];
  failed: FailedFile[];
  deferred: PlannedFile[];
  creditsSpent: number;
  /** Link requests whose answer was lost: each may have cost a credit on top of creditsSpent. */
  linksLost: number;
  bytesDownloaded: number;
  /** Set when a 429 stopped the stage. */
  quotaStop?: QuotaStop;
  /** Set when the archive could not be written (disk full, read-only, no permission): the stage stopped. */
  localWriteError?: string;
  /** Files deferred because a renewed link would have passed the run's credit budget. */
  overBudget?: number;
  interrupted: boolean;
}

export interface FetchOptions {
  archiveRoot: string;
  concurrency: number;
  download: Downloader;
  /** Returns a QuotaStop when the error is a 429, else undefined. */
  quotaStopOf: (error: unknown) => QuotaStop | undefined;
  signal?: AbortSignal;
  /** The run's credits (the plan's budget); absent: unlimited. Every link paid is taken from it. */
  credits?: CreditMeter;
  onFile?: (event: { file: PlannedFile; outcome: 'verified' | 'failed' | 'deferred'; bytes: number }) => void;
  /** Where credits and paid files are written down as they are spent (src/journal/spend-log.ts). */
  spend?: Spend;
}

/** The journal's record of what a file costs: written before its link is asked for, settled once its bytes are archived or not. */
export type Spend = Pick<SpendLog, 'paying' | 'credit' | 'archived' | 'notArchived'>;

function mismatch(file: PlannedFile, got: { sha256: string; bytes: number }): string | undefined {
  if (got.bytes !== file.bytes) return `size ${got.bytes} bytes, manifest says ${file.bytes}`;
  if (got.sha256 !== file.sha256) return `sha256 ${got.sha256}, manifest says ${file.sha256}`;
  return undefined;
}

/**
 * Downloads, verifies and archives `files`. When the stage stops (the caller's signal, a 429, a local
 * write error), the downloads whose link is already paid are not aborted: each finishes its attempt
 * and is archived if it verifies, so the next run loads it from the archive for no credit. This never
 * wastes a credit and stays bounded (one attempt of one file per concurrency slot); recording the
 * paid links instead would not help, since a presigned link is valid 15 minutes and the next run is
 * a day later. A second signal exits at once (src/cli/main.ts).
 */
export async function fetchFiles(files: readonly PlannedFile[], options: FetchOptions): Promise<FetchReport> {
  const report: FetchReport = { verified: [], failed: [], deferred: [], creditsSpent: 0, linksLost: 0, bytesDownloaded: 0, interrupted: false };
  const meter = options.credits ?? new CreditMeter(UNLIMITED);
  // Each planned file's credit is taken as the stage starts, in the plan's order, so a renewal only
  // ever spends what no planned file holds; a file the meter cannot pay for (a plan file's budget
  // tightened since) is deferred, never bought outside the budget.
  const paidFor = files.filter(() => meter.take());
  for (const file of files.slice(paidFor.length)) deferOverBudget(file, report, options);
  const controller = new AbortController();
  const stop = () => controller.abort();
  options.signal?.addEventListener('abort', stop, { once: true });
  const limit = pLimit(options.concurrency);
  try {
    await Promise.all(paidFor.map((file) => limit(() => fetchMetered(file))));
  } finally {
    options.signal?.removeEventListener('abort', stop);
  }
  report.interrupted = options.signal?.aborted ?? false;
  return report;

  /** One file and its credit: given back when the file paid for no link after all (a stop, a refused folder). */
  async function fetchMetered(file: PlannedFile): Promise<void> {
    const tally: FileTally = { credits: 0, answersLost: 0, paying: false, archived: false, problem: '' };
    const links: LinkBudget = {
      paid: (credits) => options.spend?.credit(credits) ?? Promise.resolve(),
      answerLost: () => void (tally.answersLost++, report.linksLost++),
      takeExtraCredit: () => meter.take(),
    };
    await fetchOne(file, options, report, controller.signal, links, tally);
    const charged = tally.credits > 0 || tally.answersLost > 0;
    // Its bytes never reached the archive: the journal says why, or forgets a link never bought.
    if (tally.paying && !tally.archived) await options.spend?.notArchived(file, tally.problem, charged);
    // A lost answer may have been charged: its credit stays taken.
    if (!charged) meter.refund();
  }

  async function fetchOne(file: PlannedFile, opts: FetchOptions, out: FetchReport, signal: AbortSignal, links: LinkBudget, tally: FileTally): Promise<void> {
    if (signal.aborted) {
      out.deferred.push(file);
      opts.onFile?.({ file, outcome: 'deferred', bytes: 0 });
      return;
    }
    const finalPath = archivedCopyPath(opts.archiveRoot, file);
    if (await refusedFolder(file, finalPath, opts, out)) return;
    if (!(await writtenAsPaid(file, opts, out, tally))) return;
    let lastProblem = '';
    for (let attempt = 1; attempt <= 2; attempt++) {
      let tempPath: string | undefined;
      try {
        tempPath = tempPathFor(finalPath);
        const result = await opts.download(file, tempPath, signal, links);
        out.creditsSpent += result.creditsSpent;
        tally.credits += result.creditsSpent;
        out.bytesDownloaded += result.bytes;
        const problem = mismatch(file, result);
        if (problem === undefined) {
          await commitToArchive(tempPath, finalPath);
          const verified: VerifiedFile = { ...file, archivePath: finalPath, downloadedAt: new Date(), fromArchive: false };
          await opts.spend?.archived(verified);
          tally.archived = true;
          out.verified.push(verified);
          opts.onFile?.({ file, outcome: 'verified', bytes: result.bytes });
          return;
        }
        lastProblem = problem;
      } catch (thrown) {
        if (thrown instanceof PaidDownloadError) {
          out.creditsSpent += thrown.creditsSpent;
          tally.credits += thrown.creditsSpent;
        }
        const failure = downloadFailureOf(thrown, opts.quotaStopOf, signal.aborted);
        if (failure.kind === 'local_write') {
          // The next file would fail the same way after paying for its link: stop asking. This one
          // failed (the run is partial, exit 4); the files not started are deferred.
          noteStop(out, { localWriteError: failure.message });
          controller.abort();
          lastProblem = `the archive could not be written: ${failure.message}`;
          break;
        }
        if (failure.kind === 'stop') {
          tally.problem = `deferred: ${errorMessage(thrown)}`;
          deferredBy(failure, out, controller);
          out.deferred.push(file);
          opts.onFile?.({ file, outcome: 'deferred', bytes: 0 });
          return;
        }
        lastProblem = failure.message;
        if (!failure.retry) attempt = 2;
      } finally {
        if (tempPath !== undefined) await fs.rm(tempPath, { force: true });
      }
    }
    tally.problem = lastProblem;
    out.failed.push({ ...file, status: 'failed_verify', error: lastProblem, archivePath: finalPath });
    opts.onFile?.({ file, outcome: 'failed', bytes: 0 });
  }

  /**
   * The file's record in the journal's `paid/` before its link is asked for; an archive that cannot
   * take it stops the stage as a failed download write would, the file deferred with nothing paid.
   */
  async function writtenAsPaid(file: PlannedFile, opts: FetchOptions, out: FetchReport, tally: FileTally): Promise<boolean> {
    try {
      await opts.spend?.paying(file);
      tally.paying = opts.spend !== undefined;
      return true;
    } catch (error) {
      const local = localWriteErrorOf(error);
      if (local === undefined) throw error;
      noteStop(out, { localWriteError: local });
      controller.abort();
      out.deferred.push(file);
      opts.onFile?.({ file, outcome: 'deferred', bytes: 0 });
      return false;
    }
  }
}

/** What one file spent: the credits its links cost, and the link answers lost (each maybe charged); where its journal record is. */
interface FileTally {
  credits: number;
  answersLost: number;
  /** Written in the journal's paid/ (its link about to be asked for), then archived, or not (why). */
  paying: boolean;
  archived: boolean;
  problem: string;
}

/** A planned file the run's meter had no credit for: deferred before anything is asked. */
function deferOverBudget(file: PlannedFile, out: FetchReport, opts: FetchOptions): void {
  out.deferred.push(file);
  out.overBudget = (out.overBudget ?? 0) + 1;
  opts.onFile?.({ file, outcome: 'deferred', bytes: 0 });
}

/** Before any credit: a folder that is a link out of the archive is never written through (the file fails). */
async function refusedFolder(file: PlannedFile, finalPath: string, opts: FetchOptions, out: FetchReport): Promise<boolean> {
  const refused = await folderLeavesArchive(opts.archiveRoot, dirname(archivedCopyRelative(file)));
  if (refused === undefined) return false;
  out.failed.push({ ...file, status: 'failed_verify', error: `${refused}; no link paid`, archivePath: finalPath });
  opts.onFile?.({ file, outcome: 'failed', bytes: 0 });
  return true;
}

/**
 * A file deferred: by a stop of the whole stage (a 429, a signal), which keeps every later file from
 * being paid for, or by the budget alone (a renewal it could not pay), which stops nothing else.
 */
function deferredBy(failure: Extract<DownloadFailure, { kind: 'stop' }>, out: FetchReport, controller: AbortController): void {
  if (failure.overBudget) {
    out.overBudget = (out.overBudget ?? 0) + 1;
    return;
  }
  noteStop(out, failure.quotaStop === undefined ? {} : { quotaStop: failure.quotaStop });
  controller.abort();
}

/** The first stop of the run is the one reported. */
function noteStop(out: FetchReport, stop: Pick<FetchReport, 'localWriteError' | 'quotaStop'>): void {
  if (stop.localWriteError !== undefined) out.localWriteError ??= stop.localWriteError;
  if (stop.quotaStop !== undefined) out.quotaStop ??= stop.quotaStop;
}

export type DownloadFailure =
  | { kind: 'local_write'; message: string }
  | { kind: 'stop'; quotaStop?: QuotaStop; overBudget?: true }
  | { kind: 'failed'; message: string; retry: boolean };

/**
 * What a failed download means, first match wins: a local write failure stops every download; a
 * quota stop or a stop signal defers the file; anything else fails it. A download that failed after
 * every retry of the client is not tried a second time: only a verification mismatch (or a body
 * announced too large) earns the one extra attempt.
 */
export function downloadFailureOf(thrown: unknown, quotaStopOf: (error: unknown) => QuotaStop | undefined, aborted: boolean): DownloadFailure {
  const error = thrown instanceof PaidDownloadError ? thrown.cause : thrown;
  const localWrite = localWriteErrorOf(error);
  if (localWrite !== undefined) return { kind: 'local_write', message: localWrite };
  const quotaStop = quotaStopOf(error);
  if (quotaStop !== undefined) return { kind: 'stop', quotaStop };
  if (aborted) return { kind: 'stop' };
  if (error instanceof OverBudgetError) return { kind: 'stop', overBudget: true };
  return { kind: 'failed', message: error instanceof Error ? error.message : String(error), retry: error instanceof BodyMismatchError };
}

const LOCAL_WRITE_CODES = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM']);

/** A local write failure (disk full, read-only or forbidden archive) anywhere in the cause chain. */
export function localWriteErrorOf(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== undefined && LOCAL_WRITE_CODES.has(code)) return e.message.startsWith(code) ? e.message : `${code}: ${e.message}`;
  }
  return undefined;
}
