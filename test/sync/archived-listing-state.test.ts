// With the warehouse held read-write, the archive alone says how much of a manifest to list: from the
// newest archived session on, and before the oldest (the oldest again when one of its files is missing).
import { describe, expect, it } from 'vitest';
import { archivedListingState } from '../../src/sync/state-source.js';
import { planListing } from '../../src/sync/manifest.js';
import type { CoverageRow } from '../../src/core/rows.js';

const whole = (date: string) => ['levels', 'strikes_total', 'strikes_by_expiry'].map((file) => ({ sessionDate: date, file }));
const coverage = { exchange: 'deribit', symbol: 'BTC', files_first_date: '2026-03-01', files_last_date: '2026-03-10' } as CoverageRow;

describe('archivedListingState', () => {
  it('nothing archived: the whole manifest', () => {
    expect(archivedListingState([])).toEqual({ newestStored: null, completeFrom: null });
  });

  it('whole sessions archived: the newer sessions and everything before the oldest are listed', () => {
    const state = archivedListingState([...whole('2026-03-07'), ...whole('2026-03-05'), ...whole('2026-03-06')]);
    expect(state).toEqual({ newestStored: '2026-03-07', completeFrom: '2026-03-05' });
    expect(planListing({ coverage, ...state, fullRescan: false })?.windows).toEqual([
      { part: 'newer', start: '2026-03-07' },
      { part: 'older', end: '2026-03-05' },
    ]);
  });

  it('a budget cut inside the oldest session: that session is listed again', () => {
    const state = archivedListingState([...whole('2026-03-07'), { sessionDate: '2026-03-06', file: 'levels' }]);
    expect(state).toEqual({ newestStored: '2026-03-07', completeFrom: '2026-03-07' });
    expect(planListing({ coverage, ...state, since: '2026-03-03', fullRescan: false })?.windows).toEqual([
      { part: 'newer', start: '2026-03-07' },
      { part: 'older', start: '2026-03-03', end: '2026-03-07' },
    ]);
  });

  it('the archive reaches the first file: only the newer sessions', () => {
    const state = archivedListingState([...whole('2026-03-01'), ...whole('2026-03-04')]);
    expect(planListing({ coverage, ...state, fullRescan: false })?.windows).toEqual([{ part: 'newer', start: '2026-03-04' }]);
  });
});
