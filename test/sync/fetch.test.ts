// The download stage with a fake downloader: a local write error (disk full) stops the stage, a stop
// never throws away a paid download, and a body announced too large earns the one retry.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BodyMismatchError, PaidDownloadError, fetchFiles, localWriteErrorOf, type Downloader } from '../../src/sync/fetch.js';
import { CreditMeter } from '../../src/core/credit-meter.js';
import type { PlannedFile } from '../../src/core/rows.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gexwh-fetch-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const BODY = Buffer.from('timestamp_utc,level\n2026-03-01T00:00:00Z,1\n');
const SHA = createHash('sha256').update(BODY).digest('hex');

function planned(day: number): PlannedFile {
  return {
    exchange: 'deribit',
    symbol: 'BTC',
    sessionDate: `2026-03-${String(day).padStart(2, '0')}`,
    file: 'levels',
    sha256: SHA,
    bytes: BODY.length,
    rows: 1,
    schemaVersion: 1,
  };
}

function archived(day: number): string {
  return join(root, 'deribit', 'BTC', `2026-03-${String(day).padStart(2, '0')}_levels.csv.gz`);
}

function diskFull(): Error {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
}

/** Writes the good body, as a real download of a paid link would. */
function writeBody(tempPath: string): { bytes: number; sha256: string; creditsSpent: number } {
  writeFileSync(tempPath, BODY);
  return { bytes: BODY.length, sha256: SHA, creditsSpent: 1 };
}

/** A promise and its resolver, to hold a fake download in flight until the test releases it. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

const noQuota = () => undefined;

describe('fetchFiles: a local write error', () => {
  it('stops asking for links: the file in flight fails (one credit), the rest are deferred', async () => {
    let calls = 0;
    const download: Downloader = async () => {
      calls++;
      throw new PaidDownloadError(1, new Error('the downloaded file could not be written to disk', { cause: diskFull() }));
    };
    const files = [1, 2, 3, 4, 5].map(planned);
    const report = await fetchFiles(files, { archiveRoot: root, concurrency: 1, download, quotaStopOf: noQuota });
    expect(calls).toBe(1);
    expect(report.creditsSpent).toBe(1);
    expect(report.failed).toEqual([
      expect.objectContaining({ sessionDate: '2026-03-01', error: 'the archive could not be written: ENOSPC: no space left on device, write' }),
    ]);
    expect(report.deferred.map((f) => f.sessionDate)).toEqual(['2026-03-02', '2026-03-03', '2026-03-04', '2026-03-05']);
    expect(report.localWriteError).toBe('ENOSPC: no space left on device, write');
    expect(report.interrupted).toBe(false);
  });

  it('lets a download whose link is paid finish: it is archived, no credit thrown away', async () => {
    const slow = gate();
    let stopSeen: AbortSignal | undefined;
    const download: Downloader = async (file, tempPath, stop) => {
      if (file.sessionDate === '2026-03-01') {
        stopSeen = stop;
        await slow.opened; // still in flight when the other slot hits the full disk
        return writeBody(tempPath);
      }
      slow.open();
      throw new PaidDownloadError(1, diskFull());
    };
    const report = await fetchFiles([1, 2, 3].map(planned), { archiveRoot: root, concurrency: 2, download, quotaStopOf: noQuota });
    expect(stopSeen?.aborted).toBe(true); // it was told to pay for nothing new, and it finished
    expect(report.verified.map((f) => f.sessionDate)).toEqual(['2026-03-01']);
    expect(readFileSync(archived(1))).toEqual(BODY);
    expect(report.failed.map((f) => f.sessionDate)).toEqual(['2026-03-02']);
    expect(report.deferred.map((f) => f.sessionDate)).toEqual(['2026-03-03']);
    expect(report.creditsSpent).toBe(2);
  });

  it('finds the errno code anywhere in the cause chain, and only for local write failures', () => {
    expect(localWriteErrorOf(new Error('x', { cause: new Error('y', { cause: diskFull() }) }))).toMatch(/^ENOSPC: no space/);
    expect(localWriteErrorOf(Object.assign(new Error('read-only file system'), { code: 'EROFS' }))).toBe('EROFS: read-only file system');
    expect(localWriteErrorOf(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))).toBeUndefined();
    expect(localWriteErrorOf('not an error')).toBeUndefined();
  });
});

describe('fetchFiles: a stop signal while downloads are in flight', () => {
  it('finishes and archives the paid downloads, defers the files not started, reports interrupted', async () => {
    const user = new AbortController();
    const inFlight = gate();
    let started = 0;
    const download: Downloader = async (_file, tempPath) => {
      if (++started === 2) inFlight.open();
      await new Promise((resolve) => setTimeout(resolve, 20)); // the body is still arriving when the stop lands
      return writeBody(tempPath);
    };
    const running = fetchFiles([1, 2, 3, 4].map(planned), { archiveRoot: root, concurrency: 2, download, quotaStopOf: noQuota, signal: user.signal });
    await inFlight.opened;
    user.abort('SIGINT');
    const report = await running;
    expect(report.interrupted).toBe(true);
    expect(report.verified.map((f) => f.sessionDate).sort()).toEqual(['2026-03-01', '2026-03-02']);
    expect(existsSync(archived(1)) && existsSync(archived(2))).toBe(true);
    expect(report.deferred.map((f) => f.sessionDate).sort()).toEqual(['2026-03-03', '2026-03-04']);
    expect(report.creditsSpent).toBe(2);
    expect(started).toBe(2);
  });
});

describe('fetchFiles: a body announced larger than the manifest', () => {
  it('is tried once more (the downloader reuses its link) and verifies', async () => {
    let calls = 0;
    const download: Downloader = async (_file, tempPath) => {
      calls++;
      if (calls === 1) throw new PaidDownloadError(1, new BodyMismatchError('the file is 10000000 bytes, more than the 43 bytes allowed'));
      return { ...writeBody(tempPath), creditsSpent: 0 };
    };
    const report = await fetchFiles([planned(1)], { archiveRoot: root, concurrency: 1, download, quotaStopOf: noQuota });
    expect(calls).toBe(2);
    expect(report.verified).toHaveLength(1);
    expect(report.creditsSpent).toBe(1);
  });

  it('always: fails after the second attempt with the reason', async () => {
    let calls = 0;
    const download: Downloader = async () => {
      calls++;
      throw new BodyMismatchError('the file is 10000000 bytes, more than the 43 bytes allowed');
    };
    const report = await fetchFiles([planned(1)], { archiveRoot: root, concurrency: 1, download, quotaStopOf: noQuota });
    expect(calls).toBe(2);
    expect(report.failed[0]?.error).toMatch(/more than the 43 bytes allowed/);
  });

  it('any other download failure is not tried a second time by the stage', async () => {
    let calls = 0;
    const download: Downloader = async () => {
      calls++;
      throw new PaidDownloadError(1, new Error('download failed after 5 attempt(s): HTTP 503'));
    };
    const report = await fetchFiles([planned(1)], { archiveRoot: root, concurrency: 1, download, quotaStopOf: noQuota });
    expect(calls).toBe(1);
    expect(report.failed[0]?.error).toMatch(/503/);
  });
});

describe('fetchFiles: extra credits for a lost link answer', () => {
  it('hands out only the credits no planned file needs, and counts every lost answer', async () => {
    const granted: boolean[] = [];
    const download: Downloader = async (_file, tempPath, _stop, links) => {
      links.answerLost();
      granted.push(links.takeExtraCredit());
      return writeBody(tempPath);
    };
    const report = await fetchFiles([planned(1), planned(2), planned(3)], {
      archiveRoot: root,
      concurrency: 1,
      download,
      quotaStopOf: noQuota,
      credits: new CreditMeter(4),
    });
    expect(granted).toEqual([true, false, false]);
    expect(report.linksLost).toBe(3);
    expect(report.verified).toHaveLength(3);
  });
});
