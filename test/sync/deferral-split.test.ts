// Each deferred file is put down to the bound that deferred it: of 49 deferred with 5 credits held
// back by --reserve-credits, 44 are the quota's and 5 the reserve's, never 49 of either.
import { describe, expect, it } from 'vitest';
import { fc, test } from '../helpers/property.js';
import { creditBudget, deferredByBound } from '../../src/sync/download-plan.js';
import { formatSummary } from '../../src/cli/summary.js';
import type { SyncSummary } from '../../src/sync/summary.js';

describe('deferredByBound', () => {
  it('244 wanted, 200 credits left, 5 reserved: 44 quota, 5 reserve', () => {
    const budget = { creditsRemaining: 200, creditsLimit: 200, reserve: 5 };
    const { available } = creditBudget(budget);
    expect(available).toBe(195);
    expect(deferredByBound(budget, available, 244)).toEqual({ quota: 44, 'reserve-credits': 5 });
  });

  it('--max-credits below the reserve line takes the rest', () => {
    const budget = { creditsRemaining: 200, creditsLimit: 200, reserve: 5, maxCredits: 100 };
    expect(deferredByBound(budget, creditBudget(budget).available, 244)).toEqual({ quota: 44, 'reserve-credits': 5, 'max-credits': 95 });
    expect(deferredByBound(budget, creditBudget(budget).available, 100)).toEqual({});
  });

  test.prop([
    fc.integer({ min: 0, max: 500 }),
    fc.integer({ min: 1, max: 500 }),
    fc.integer({ min: 0, max: 50 }),
    fc.option(fc.integer({ min: 0, max: 500 })),
    fc.integer({ min: 0, max: 1000 }),
  ])('the counts add up to the files deferred', (remaining, limit, reserve, maxCredits, wanted) => {
    const budget = { creditsRemaining: remaining, creditsLimit: limit, reserve, ...(maxCredits === null ? {} : { maxCredits }) };
    const { available } = creditBudget(budget);
    const split = deferredByBound(budget, available, wanted);
    const deferred = available === null ? 0 : Math.max(0, wanted - available);
    expect(Object.values(split).reduce((a, b) => a + b, 0)).toBe(deferred);
  });
});

describe('the summary', () => {
  it('names each cause with its own count', () => {
    const summary = {
      dryRun: false,
      outcome: 'ok',
      filesLoaded: 195,
      rowsLoaded: 1,
      bytesDownloaded: 1,
      filesFailed: [],
      filesDeferred: 49,
      deferredBy: ['quota', 'reserve-credits'],
      deferredCounts: { quota: 44, 'reserve-credits': 5 },
      creditsReset: '2026-03-12T00:00:00.000Z',
      creditsSpent: 195,
      linksLost: 0,
      requestsSpent: 1,
      creditsRemaining: 5,
      venueSpread: [],
      notBought: [],
      warnings: [],
      plan: { toDownload: 195, toReload: 0, deferred: 49, alreadyLoaded: 0, creditsAvailable: 195, limitedBy: 'reserve-credits', pairs: [], files: [] },
    } as unknown as SyncSummary;
    expect(formatSummary(summary)).toContain(
      "49 deferred: 44 until the credits reset at 2026-03-12 00:00:00Z (today's file credits are used up); 5 by --reserve-credits (the credits it keeps stay unspent until the reset at 2026-03-12 00:00:00Z);",
    );
  });
});
