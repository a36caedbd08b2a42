// Which bound a run's credit budget names: --max-credits only when the cap is strictly below what the
// quota (less the reserve) allows. A cap equal to the quota cut nothing the quota did not cut already:
// the deferred files then wait for the reset, and blaming --max-credits would send the user to raise
// a flag that changes nothing.
import { fc, test } from '../helpers/property.js';
import { describe, expect, it } from 'vitest';
import { creditBudget } from '../../src/sync/download-plan.js';

describe('the bound a budget names', () => {
  it('a --max-credits equal to the remaining quota: the quota bounds the run, not the cap', () => {
    expect(creditBudget({ creditsRemaining: 5, creditsLimit: 20, reserve: 0, maxCredits: 5 })).toEqual({
      available: 5,
      limitedBy: 'quota',
      remainingUnknown: false,
    });
  });

  it('a --max-credits equal to what the reserve leaves: the reserve bounds the run', () => {
    expect(creditBudget({ creditsRemaining: 10, creditsLimit: 20, reserve: 4, maxCredits: 6 })).toMatchObject({ available: 6, limitedBy: 'reserve-credits' });
  });

  it('a --max-credits one below: the cap bounds the run', () => {
    expect(creditBudget({ creditsRemaining: 5, creditsLimit: 20, reserve: 0, maxCredits: 4 })).toMatchObject({ available: 4, limitedBy: 'max-credits' });
  });

  test.prop({
    remaining: fc.integer({ min: 0, max: 30 }),
    limit: fc.integer({ min: 1, max: 30 }),
    reserve: fc.integer({ min: 0, max: 30 }),
    cap: fc.integer({ min: 0, max: 40 }),
  })('max-credits is named exactly when the cap is below the quota less the reserve', ({ remaining, limit, reserve, cap }) => {
    const quota = Math.max(0, remaining - reserve);
    const budget = creditBudget({ creditsRemaining: remaining, creditsLimit: limit, reserve, maxCredits: cap });
    expect(budget.available).toBe(Math.min(cap, quota));
    expect(budget.limitedBy === 'max-credits').toBe(cap < quota);
  });
});
