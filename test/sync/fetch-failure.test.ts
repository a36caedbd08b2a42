import { describe, expect, it } from 'vitest';
import { BodyMismatchError, downloadFailureOf, PaidDownloadError } from '../../src/sync/fetch.js';
import type { QuotaStop } from '../../src/api/quota.js';

class QuotaHit extends Error {}
const quotaStopOf = (error: unknown): QuotaStop | undefined => (error instanceof QuotaHit ? { bucket: 'files', resetAt: '2026-01-02T00:00:00Z' } : undefined);
const diskFull = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });

describe('what a failed download means', () => {
  it('a local write failure stops every download, even behind a paid link', () => {
    expect(downloadFailureOf(new PaidDownloadError(1, diskFull), quotaStopOf, false)).toEqual({
      kind: 'local_write',
      message: 'ENOSPC: no space left on device',
    });
  });
  it('a local write failure wins over a stop signal', () => {
    expect(downloadFailureOf(diskFull, quotaStopOf, true).kind).toBe('local_write');
  });
  it('a quota stop defers the file and says until when', () => {
    expect(downloadFailureOf(new QuotaHit(), quotaStopOf, false)).toEqual({ kind: 'stop', quotaStop: { bucket: 'files', resetAt: '2026-01-02T00:00:00Z' } });
  });
  it('a stop signal defers the file', () => {
    expect(downloadFailureOf(new Error('aborted'), quotaStopOf, true)).toEqual({ kind: 'stop' });
  });
  it('a body mismatch earns one more attempt; any other failure none', () => {
    expect(downloadFailureOf(new BodyMismatchError('sha256 differs'), quotaStopOf, false)).toEqual({ kind: 'failed', message: 'sha256 differs', retry: true });
    expect(downloadFailureOf(new PaidDownloadError(1, new Error('reset')), quotaStopOf, false)).toEqual({ kind: 'failed', message: 'reset', retry: false });
    expect(downloadFailureOf('odd', quotaStopOf, false)).toEqual({ kind: 'failed', message: 'odd', retry: false });
  });
});
