import { describe, expect, it } from 'vitest';
import { InterruptedError, LockError, PartialFailureError } from '../../src/core/errors.js';
import type { FetchReport } from '../../src/sync/fetch.js';
import { abortSignalName, downloadWarnings, failureOutcome, loadedOutcome, partialFailureMessage, runAlreadyRecorded } from '../../src/sync/run-outcome.js';

describe('the outcome after the load', () => {
  it.each([
    [true, 0, 'interrupted'],
    [true, 3, 'interrupted'],
    [false, 1, 'partial'],
    [false, 0, 'ok'],
  ] as const)('aborted %s, %i failed → %s', (aborted, failed, outcome) => {
    expect(loadedOutcome(aborted, failed)).toBe(outcome);
  });
});

describe('warnings of the downloads', () => {
  const deferred = [{}, {}] as FetchReport['deferred'];
  it('none when the downloads ran to the end', () => {
    expect(downloadWarnings({ deferred: [] })).toEqual([]);
  });
  it('a failed archive write and a quota stop each say how many files wait', () => {
    expect(downloadWarnings({ deferred, localWriteError: 'ENOSPC', quotaStop: { bucket: 'files', resetAt: '2026-01-02T00:00:00Z' } })).toEqual([
      'the archive could not be written (ENOSPC); downloads stopped, 2 files deferred to the next run',
      'file credits exhausted; 2 files deferred until 2026-01-02T00:00:00Z',
    ]);
  });
  it('a quota stop without a reset time says so', () => {
    expect(downloadWarnings({ deferred, quotaStop: { bucket: 'files' } })).toEqual(['file credits exhausted; 2 files deferred until the quota resets']);
  });
});

describe('the message of a partial run', () => {
  it('names the archive write error first', () => {
    expect(partialFailureMessage('EROFS', 4, 0)).toBe(
      'the archive could not be written (EROFS); 4 file(s) deferred to the next run; everything else was committed',
    );
  });
  it('otherwise counts the failed files', () => {
    expect(partialFailureMessage(undefined, 0, 2)).toBe('2 file(s) failed verification or loading; everything else was committed');
  });
});

describe('a failed run', () => {
  const summary = { outcome: 'partial', plan: {} };

  it('is recorded unless the error carries the summary of the record already written', () => {
    expect(runAlreadyRecorded(new PartialFailureError('x', {}, { cause: summary }))).toBe(true);
    expect(runAlreadyRecorded(new InterruptedError('SIGINT', { cause: summary }))).toBe(true);
    expect(runAlreadyRecorded(new LockError('held', {}, { cause: summary }))).toBe(true);
    // A stop during the listing, a lock error from elsewhere, anything else: not recorded yet.
    expect(runAlreadyRecorded(new InterruptedError('SIGINT'))).toBe(false);
    expect(runAlreadyRecorded(new LockError('held'))).toBe(false);
    expect(runAlreadyRecorded(new Error('boom', { cause: 'x' }))).toBe(false);
    expect(runAlreadyRecorded('a string')).toBe(false);
  });

  it('is recorded interrupted when a stop signal ended it, else failed', () => {
    expect(failureOutcome(new InterruptedError('SIGTERM'))).toBe('interrupted');
    expect(failureOutcome(new Error('disk'))).toBe('failed');
  });
});

it('a SIGTERM reason names SIGTERM; anything else is SIGINT', () => {
  const term = new AbortController();
  term.abort('SIGTERM');
  expect(abortSignalName(term.signal)).toBe('SIGTERM');
  expect(abortSignalName(new AbortController().signal)).toBe('SIGINT');
});
