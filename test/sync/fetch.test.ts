// The download stage with a fake downloader: a local write error (disk full) stops the stage.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PaidDownloadError, fetchFiles, localWriteErrorOf, type Downloader } from '../../src/sync/fetch.js';
import type { PlannedFile } from '../../src/sync/plan.js';

const root = mkdtempSync(join(tmpdir(), 'gexwh-fetch-'));
afterEach(() => rmSync(root, { recursive: true, force: true }));

function planned(day: number): PlannedFile {
  return { exchange: 'deribit', symbol: 'BTC', sessionDate: `2026-03-${String(day).padStart(2, '0')}`, file: 'levels', sha256: 'a'.repeat(64), bytes: 10, rows: 1, schemaVersion: 1 };
}

function diskFull(): Error {
  return Object.assign(new Error('no space left on device, write'), { code: 'ENOSPC' });
}

describe('fetchFiles', () => {
  it('stops asking for links after a local write error: one credit spent, the rest deferred', async () => {
    let calls = 0;
    const download: Downloader = async () => {
      calls++;
      throw new PaidDownloadError(1, new Error('download failed after retries', { cause: diskFull() }));
    };
    const files = [1, 2, 3, 4, 5].map(planned);
    const report = await fetchFiles(files, { archiveRoot: root, concurrency: 1, download, quotaStopOf: () => undefined });
    expect(calls).toBe(1);
    expect(report.creditsSpent).toBe(1);
    expect(report.failed).toEqual([]);
    expect(report.deferred).toHaveLength(5);
    expect(report.localWriteError).toMatch(/^ENOSPC/);
  });

  it('finds the errno code anywhere in the cause chain, and only for local write failures', () => {
    expect(localWriteErrorOf(new Error('x', { cause: new Error('y', { cause: diskFull() }) }))).toMatch(/ENOSPC/);
    expect(localWriteErrorOf(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))).toBeUndefined();
    expect(localWriteErrorOf('not an error')).toBeUndefined();
  });
});
