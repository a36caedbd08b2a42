// The nightly sync's verdicts, pure: the run's outcome, the warnings of the downloads, the reason
// of a partial failure and the counts of a failed run. src/sync/run.ts does the I/O around them.
import { InterruptedError, LockError, PartialFailureError } from '../core/errors.js';
import type { RunCounts, RunOutcome } from '../warehouse/index.js';
import type { FetchReport } from './fetch.js';
import type { Plan } from './download-plan.js';

/** After the load: a stop signal wins, then any failed file makes the run partial. */
export function loadedOutcome(aborted: boolean, filesFailed: number): RunOutcome {
  if (aborted) return 'interrupted';
  return filesFailed > 0 ? 'partial' : 'ok';
}

/** Why the downloads stopped early, as warnings; none when they ran to the end. */
export function downloadWarnings(fetched: Pick<FetchReport, 'localWriteError' | 'quotaStop' | 'deferred'>): string[] {
  const warnings: string[] = [];
  if (fetched.localWriteError) {
    warnings.push(`the archive could not be written (${fetched.localWriteError}); downloads stopped, ${fetched.deferred.length} files deferred to the next run`);
  }
  if (fetched.quotaStop) warnings.push(`file credits exhausted; ${fetched.deferred.length} files deferred until ${fetched.quotaStop.resetAt ?? 'the quota resets'}`);
  return warnings;
}

/** The message of the exit-4 error of a partial run: a failed archive write explains itself first. */
export function partialFailureMessage(localWriteError: string | undefined, filesDeferred: number, filesFailed: number): string {
  const why = localWriteError
    ? `the archive could not be written (${localWriteError}); ${filesDeferred} file(s) deferred to the next run`
    : `${filesFailed} file(s) failed verification or loading`;
  return `${why}; everything else was committed`;
}

/** Errors whose run record is already written (or journaled) where they were thrown. */
export function runAlreadyRecorded(error: unknown): boolean {
  return error instanceof PartialFailureError || error instanceof InterruptedError || error instanceof LockError;
}

/** The run record of a sync that failed: what it had spent and planned when it stopped. */
export function failedRunCounts(error: unknown, requestsSpent: number, fetched: FetchReport | undefined, plan: Plan | undefined): RunCounts {
  return {
    outcome: 'failed',
    requestsSpent,
    creditsSpent: fetched?.creditsSpent ?? 0,
    bytesDownloaded: fetched?.bytesDownloaded ?? 0,
    filesPlanned: plan ? plan.toDownload.length + plan.toReload.length : 0,
    error: error instanceof Error ? error.message : String(error),
  };
}

export function abortSignalName(signal: AbortSignal): 'SIGINT' | 'SIGTERM' {
  return signal.reason === 'SIGTERM' ? 'SIGTERM' : 'SIGINT';
}
