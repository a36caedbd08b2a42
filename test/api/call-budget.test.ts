// The time budget of one API call, as a pure rule: whatever the budget, the attempts and the
// pauses, every wait fits in the budget and each retry waits no longer than the one before.
import { fc, test } from '../helpers/property.js';
import { describe, expect, it } from 'vitest';
import { attemptWaitMs, DEFAULT_CALL_BUDGET_MS, MIN_ATTEMPT_MS, pauseFits } from '../../src/api/call-budget.js';
import { DEFAULT_TIMEOUTS } from '../../src/api/http.js';
import { DEFAULT_RETRY_POLICY } from '../../src/api/retry.js';

/** The waits of a call whose every attempt times out, with the given pauses between attempts. */
function unanswered(budgetMs: number, maxAttempts: number, capMs: number, pauses: readonly number[], lastTry = false): { waits: number[]; spent: number } {
  const waits: number[] = [];
  let spent = 0;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const wait = attemptWaitMs(budgetMs - spent, attempt, maxAttempts, capMs, lastTry);
    if (wait === undefined) break;
    waits.push(wait);
    spent += wait;
    const pause = pauses[attempt - 1] ?? 0;
    if (attempt === maxAttempts || lastTry || !pauseFits(budgetMs - spent, pause)) break;
    spent += pause;
  }
  return { waits, spent };
}

describe('the default', () => {
  it('a server that never answers holds a call at most 60 s in all (it was 120 s x 5 attempts)', () => {
    expect(DEFAULT_CALL_BUDGET_MS).toBe(60_000);
    const { waits, spent } = unanswered(DEFAULT_CALL_BUDGET_MS, DEFAULT_RETRY_POLICY.maxAttempts, DEFAULT_TIMEOUTS.headersMs, [500, 1000, 2000, 4000]);
    expect(spent).toBeLessThanOrEqual(60_000);
    expect(waits.length).toBeGreaterThanOrEqual(3);
    expect(waits[0]).toBe(30_000);
  });

  it('a paid request, never retried, may wait for its answer the whole budget', () => {
    expect(attemptWaitMs(60_000, 1, 5, 120_000, true)).toBe(60_000);
  });
});

test.prop([
  fc.integer({ min: 1, max: 600_000 }),
  fc.integer({ min: 1, max: 8 }),
  fc.integer({ min: 1, max: 200_000 }),
  fc.array(fc.integer({ min: 0, max: 60_000 }), { maxLength: 8 }),
  fc.boolean(),
])('every wait and pause fits in the budget; waits never grow', (budgetMs, maxAttempts, capMs, pauses, lastTry) => {
  const { waits, spent } = unanswered(budgetMs, maxAttempts, capMs, pauses, lastTry);
  expect(spent).toBeLessThanOrEqual(budgetMs);
  for (let i = 1; i < waits.length; i++) expect(waits[i]!).toBeLessThanOrEqual(Math.max(waits[i - 1]!, MIN_ATTEMPT_MS));
  for (const wait of waits) expect(wait).toBeLessThanOrEqual(capMs);
});
