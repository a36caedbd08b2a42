import { describe, expect, it } from 'vitest';
import { deferralCauses } from '../../src/sync/summary.js';
import type { Plan } from '../../src/sync/download-plan.js';
import type { FetchReport } from '../../src/sync/fetch.js';

const file = {
  exchange: 'deribit',
  symbol: 'BTC',
  sessionDate: '2026-03-10',
  file: 'levels' as const,
  sha256: 'a'.repeat(64),
  bytes: 1,
  rows: 1,
  schemaVersion: 1,
};
const planWith = (deferred: number, limitedBy: Plan['budget']['limitedBy']) =>
  ({ deferred: Array(deferred).fill(file), budget: { available: 1, used: 1, limitedBy, remainingUnknown: false } }) as unknown as Plan;
const fetchedWith = (deferred: number, localWriteError?: string) =>
  ({ deferred: Array(deferred).fill(file), ...(localWriteError ? { localWriteError } : {}) }) as unknown as FetchReport;

describe('what deferred the files', () => {
  it("names the run's own stop first, then the plan's bound", () => {
    expect(deferralCauses({ plan: planWith(3, 'max-credits'), fetched: fetchedWith(0), outcome: 'ok', quotaStop: undefined })).toEqual(['max-credits']);
    expect(deferralCauses({ plan: planWith(2, 'reserve-credits'), fetched: fetchedWith(4), outcome: 'ok', quotaStop: { bucket: 'files' } as never })).toEqual([
      'rate-limit',
      'reserve-credits',
    ]);
    expect(deferralCauses({ plan: planWith(0, 'quota'), fetched: fetchedWith(2, 'ENOSPC'), outcome: 'partial', quotaStop: undefined })).toEqual([
      'archive-write',
    ]);
    expect(deferralCauses({ plan: planWith(0, 'quota'), fetched: fetchedWith(2), outcome: 'interrupted', quotaStop: undefined })).toEqual(['interrupted']);
    expect(deferralCauses({ plan: planWith(5, 'quota'), fetched: fetchedWith(0), outcome: 'ok', quotaStop: undefined })).toEqual(['quota']);
  });

  it('names nothing when nothing was deferred', () => {
    expect(deferralCauses({ plan: planWith(0, 'max-credits'), fetched: fetchedWith(0), outcome: 'ok', quotaStop: undefined })).toEqual([]);
  });
});
