// The nightly sync's verdicts, pure: the run's outcome, the warnings of the downloads, the reason
// of a partial failure, and how a run that ended on an error is recorded. src/sync/run.ts does the I/O around them.
import { InterruptedError } from '../core/errors.js';
import type { RunOutcome } from '../warehouse/index.js';
import type { FetchReport } from './fetch.js';

/** After the load: a stop signal wins, then any failed file, or an archive that could not be written, makes the run partial. */
export function loadedOutcome(aborted: boolean, filesFailed: number, archiveUnwritable = false): RunOutcome {
  if (aborted) return 'interrupted';
  return filesFailed > 0 || archiveUnwritable ? 'partial' : 'ok';
}

/** Why the downloads stopped early, as warnings; none when they ran to the end. */
export function downloadWarnings(fetched: Pick<FetchReport, 'localWriteError' | 'quotaStop' | 'deferred'>): string[] {
  const warnings: string[] = [];
  if (fetched.localWriteError) {
    warnings.push(
      `the archive could not be written (${fetched.localWriteError}); downloads stopped, ${fetched.deferred.length} files deferred to the next run`,
    );
  }
  if (fetched.quotaStop)
    warnings.push(`file credits exhausted; ${fetched.deferred.length} files deferred until ${fetched.quotaStop.resetAt ?? 'the quota resets'}`);
  return warnings;
}

/** The message of the exit-4 error of a partial run: a failed archive write explains itself first. */
export function partialFailureMessage(localWriteError: string | undefined, filesDeferred: number, filesFailed: number): string {
  const why = localWriteError
    ? `the archive could not be written (${localWriteError}); ${filesDeferred} file(s) deferred to the next run`
    : `${filesFailed} file(s) failed verification or loading`;
  return `${why}; everything else was committed`;
}

/** Errors whose run record was written where they were thrown: they carry the run's summary. */
export function runAlreadyRecorded(error: unknown): boolean {
  const cause = error instanceof Error ? error.cause : undefined;
  return typeof cause === 'object' && cause !== null && 'outcome' in cause && 'plan' in cause;
}

/** The outcome of a run that ended on `error` before its record was written: a stop signal, or a failure. */
export function failureOutcome(error: unknown): RunOutcome {
  return error instanceof InterruptedError ? 'interrupted' : 'failed';
}

export function abortSignalName(signal: AbortSignal): 'SIGINT' | 'SIGTERM' {
  return signal.reason === 'SIGTERM' ? 'SIGTERM' : 'SIGINT';
}
