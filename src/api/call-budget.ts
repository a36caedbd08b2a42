// How long one API call may wait in all, its retries and pauses included. A server that accepts the
// connection and never answers would otherwise hold a run for the header timeout times the attempts
// (minutes). Pure: the caller passes the time left.

/** The whole wait of one call by default: a minute, whatever the retries. */
export const DEFAULT_CALL_BUDGET_MS = 60_000;

/** Less time than this left: another attempt could not get an answer anyway. */
export const MIN_ATTEMPT_MS = 200;

/**
 * How long attempt `attempt` (1-based) may wait for the answer's headers, with `leftMs` of the
 * budget left: half of it while retries remain, so each retry waits less than the one before and
 * all of them fit; all of it for the last attempt, or for one never retried (a paid file link).
 * Never more than `capMs`. Undefined when too little is left to try.
 */
export function attemptWaitMs(leftMs: number, attempt: number, maxAttempts: number, capMs: number, lastTry: boolean): number | undefined {
  if (leftMs < MIN_ATTEMPT_MS) return undefined;
  const share = lastTry || attempt >= maxAttempts ? leftMs : Math.max(MIN_ATTEMPT_MS, Math.ceil(leftMs / 2));
  return Math.floor(Math.min(capMs, share));
}

/** Whether a pause of `delayMs` still leaves an attempt worth making. */
export function pauseFits(leftMs: number, delayMs: number): boolean {
  return leftMs - delayMs >= MIN_ATTEMPT_MS;
}

/** The attempt's wait ran out before the headers came: a network failure, retried while the budget allows. */
export class AnswerWaitError extends Error {
  readonly code = 'GEXWH_HEADERS_TIMEOUT';
  constructor(waitMs: number) {
    super(`no answer within ${formatSeconds(waitMs)} s`);
  }
}

export function formatSeconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}
