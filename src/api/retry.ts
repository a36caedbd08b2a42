// The one place that decides whether a failed HTTP exchange is tried again, and after how long.
// Pure: the randomness and the sleeping are injected, so tests run instantly and deterministically.
import { definedOnly } from '../core/defined.js';

/** What happened on one attempt, reduced to what the policy needs. */
export type AttemptOutcome =
  | { kind: 'network' } // connection refused/reset, timeout, socket closed early
  | { kind: 'truncated' } // fewer body bytes than Content-Length (storage downloads)
  | { kind: 'status'; status: number; slug?: string };

export type RetryDecision = { retry: true; delayMs: number } | { retry: false };

export interface RetryPolicy {
  /** Total attempts, the first one included. */
  maxAttempts: number;
  /** Delay cap of the first retry; doubles per retry up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Uniform in [0, 1); Math.random by default. */
  random: () => number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  random: Math.random,
};

export function retryPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy = { ...DEFAULT_RETRY_POLICY, ...definedOnly(overrides) };
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new RangeError(`retry maxAttempts must be an integer >= 1, got ${policy.maxAttempts}`);
  }
  if (!(policy.baseDelayMs >= 0) || !(policy.maxDelayMs >= 0)) {
    throw new RangeError('retry delays must be >= 0');
  }
  return policy;
}

/**
 * Network errors, truncated bodies and 5xx (503 files_unavailable included) are transient. No 4xx is:
 * a 429 means a daily quota is used up (it resets at midnight UTC, so waiting a few seconds is useless),
 * and the others are answers about the request itself.
 */
export function isRetryable(outcome: AttemptOutcome): boolean {
  if (outcome.kind !== 'status') return true;
  return outcome.status >= 500 && outcome.status <= 599;
}

/** Full jitter: a uniform delay between 0 and the capped exponential step (attempt is 1-based). */
export function backoffDelayMs(policy: RetryPolicy, attempt: number): number {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(policy.random() * step);
}

/** After attempt number `attempt` (1-based) ended with `outcome`: try again (after a delay) or give up. */
export function decide(policy: RetryPolicy, attempt: number, outcome: AttemptOutcome): RetryDecision {
  if (!isRetryable(outcome) || attempt >= policy.maxAttempts) return { retry: false };
  return { retry: true, delayMs: backoffDelayMs(policy, attempt) };
}

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** setTimeout as a promise that rejects with the signal's reason when aborted. */
export const sleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
