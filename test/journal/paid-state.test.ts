// A paid file's first state: its record in its package's `paid/` is on disk before its link is asked
// for, moves to `archived/` by one rename once its bytes are in the archive, ends in `failed/` with
// the reason when a credit was spent on bytes that never arrived, and goes when no link was bought.
// A kill between the credit and the archive leaves it in `paid/`: `status` names it, and the next run
// moves it to `archived/` (bytes there: loaded for 0 credits) or `failed/` (bytes lost: named).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fetchFiles, PaidDownloadError, type Downloader } from '../../src/sync/fetch.js';
import { openSpendLog } from '../../src/journal/spend-log.js';
import { adoptStoppedRun } from '../../src/journal/stopped-runs.js';
import { readOnRecord } from '../../src/journal/on-record.js';
import { readJournal } from '../../src/journal/journal.js';
import { jobName, packagesFolder } from '../../src/journal/layout.js';
import { openPackageOf, unregisterOpenPackage } from '../../src/journal/open-package.js';
import type { PlannedFile } from '../../src/core/rows.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gexwh-paid-'));
});
afterEach(() => {
  const open = openPackageOf(root);
  if (open !== undefined) unregisterOpenPackage(root, open);
  rmSync(root, { recursive: true, force: true });
});

const BODY = Buffer.from('timestamp_utc,expiration\n2026-03-01T00:00:00Z,TOTAL\n');
const SHA = createHash('sha256').update(BODY).digest('hex');
const start = { command: 'sync', options: {}, startedAt: new Date('2026-03-11T00:30:00Z') };
const noQuota = () => undefined;

function planned(day: number): PlannedFile {
  return { exchange: 'deribit', symbol: 'BTC', sessionDate: `2026-03-0${day}`, file: 'levels', sha256: SHA, bytes: BODY.length, rows: 1, schemaVersion: 1 };
}

const onlyPackage = () => join(packagesFolder(root), readdirSync(packagesFolder(root))[0]!);
const namesIn = (state: string) => (existsSync(join(onlyPackage(), state)) ? readdirSync(join(onlyPackage(), state)).sort() : []);

/** A kill: nothing graceful runs, the package stays open, this process no longer runs it. */
function kill(): void {
  unregisterOpenPackage(root, openPackageOf(root)!);
}

describe('the paid state, through the download stage', () => {
  it('writes the record in paid/ before the link is asked for, and renames it to archived/ once the bytes are in the archive', async () => {
    const log = openSpendLog(root, start);
    const seen: string[][] = [];
    const download: Downloader = async (_file, tempPath, _stop, links) => {
      seen.push(namesIn('paid'));
      await links.paid(1);
      writeFileSync(tempPath, BODY);
      return { bytes: BODY.length, sha256: SHA, creditsSpent: 1 };
    };
    const report = await fetchFiles([planned(1)], { archiveRoot: root, concurrency: 1, download, quotaStopOf: noQuota, spend: log });
    expect(report.verified).toHaveLength(1);
    // On disk before the link: the downloader saw it.
    expect(seen).toEqual([[jobName(planned(1))]]);
    expect(namesIn('paid')).toEqual([]);
    expect(namesIn('archived')).toEqual([jobName(planned(1))]);
    const record = JSON.parse(readFileSync(join(onlyPackage(), 'archived', jobName(planned(1))), 'utf8')) as Record<string, unknown>;
    expect(record).toMatchObject({
      exchange: 'deribit',
      symbol: 'BTC',
      sessionDate: '2026-03-01',
      sha256: SHA,
      archivePath: 'deribit/BTC/2026-03-01_levels.csv.gz',
    });
    expect((await readJournal(root)).files).toEqual([]); // open: the running sync's own package
    await log.close({ journaled: true });
    expect((await readJournal(root)).files.map((f) => f.sessionDate)).toEqual(['2026-03-01']);
  });

  it('a paid link whose bytes never verify ends in failed/ with the reason; a link never bought leaves nothing', async () => {
    const log = openSpendLog(root, start);
    const download: Downloader = async (file) => {
      if (file.sessionDate === '2026-03-01') throw new PaidDownloadError(1, new Error('storage answered 500 five times'));
      throw new Error('503 files_unavailable after every retry'); // no link was bought
    };
    const report = await fetchFiles([planned(1), planned(2)], { archiveRoot: root, concurrency: 1, download, quotaStopOf: noQuota, spend: log });
    expect(report.failed).toHaveLength(2);
    expect(namesIn('paid')).toEqual([]);
    expect(namesIn('failed')).toEqual([jobName(planned(1))]);
    const failed = JSON.parse(readFileSync(join(onlyPackage(), 'failed', jobName(planned(1))), 'utf8')) as Record<string, unknown>;
    expect(failed).toMatchObject({ sessionDate: '2026-03-01', sha256: SHA, reason: 'storage answered 500 five times' });
    expect(failed.failedAt).toEqual(expect.any(String));
    expect((await readOnRecord(root)).paidNotArchived).toEqual([]);
    await log.close({ journaled: true });
  });
});

describe('an archive that cannot take the paid/ record', () => {
  it('asks for no link: the stage stops as a failed archive write does, every file deferred, nothing paid', async () => {
    let links = 0;
    const download: Downloader = async () => {
      links++;
      return { bytes: BODY.length, sha256: SHA, creditsSpent: 1 };
    };
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const spend = {
      paying: () => Promise.reject(full),
      credit: () => Promise.resolve(),
      archived: () => Promise.resolve(),
      notArchived: () => Promise.resolve(),
    };
    const report = await fetchFiles([planned(1), planned(2)], { archiveRoot: root, concurrency: 1, download, quotaStopOf: noQuota, spend });
    expect(links).toBe(0);
    expect(report).toMatchObject({ creditsSpent: 0, failed: [], localWriteError: 'ENOSPC: no space left on device, write' });
    expect(report.deferred.map((f) => f.sessionDate)).toEqual(['2026-03-01', '2026-03-02']);
  });
});

describe('a kill between the credit and the archive', () => {
  async function killedWhileDownloading(archiveBytes: boolean): Promise<void> {
    const log = openSpendLog(root, start);
    await log.paying(planned(1));
    await log.credit(1);
    if (archiveBytes) {
      // The bytes reached the archive; the kill fell before the journal's rename.
      mkdirSync(join(root, 'deribit', 'BTC'), { recursive: true });
      writeFileSync(join(root, 'deribit', 'BTC', '2026-03-01_levels.csv.gz'), BODY);
    }
    kill();
  }

  it('status names the file as paid, bytes not archived', async () => {
    await killedWhileDownloading(false);
    const record = await readOnRecord(root);
    expect(record.paidNotArchived).toEqual([{ name: 'deribit BTC 2026-03-01 levels', record: join(onlyPackage(), 'paid', jobName(planned(1))) }]);
    expect(record.stopped).toMatchObject({ credits: 1, files: 0 });
  });

  it('the bytes in the archive: the next run moves it to archived/, where it waits to load for 0 credits', async () => {
    await killedWhileDownloading(true);
    const adopted = await adoptStoppedRun(root);
    expect(adopted).toMatchObject({ files: 1, credits: 1 });
    expect(namesIn('paid')).toEqual([]);
    expect(namesIn('archived')).toEqual([jobName(planned(1))]);
    expect((await readJournal(root)).files.map((f) => f.sessionDate)).toEqual(['2026-03-01']);
    expect((await readOnRecord(root)).paidNotArchived).toEqual([]);
  });

  it('the bytes lost: the next run moves it to failed/ with the reason and names it; nothing waits', async () => {
    await killedWhileDownloading(false);
    const adopted = await adoptStoppedRun(root);
    expect(adopted.credits).toBe(1);
    expect(adopted.note).toMatch(/1 file\(s\) paid by a run that stopped before their bytes were archived \(deribit BTC 2026-03-01 levels\)/);
    expect(namesIn('paid')).toEqual([]);
    const failed = JSON.parse(readFileSync(join(onlyPackage(), 'failed', jobName(planned(1))), 'utf8')) as Record<string, unknown>;
    expect(failed).toMatchObject({ sessionDate: '2026-03-01', reason: expect.stringMatching(/stopped before its bytes were archived/) });
    expect((await readJournal(root)).files).toEqual([]);
    expect((await readOnRecord(root)).paidNotArchived).toEqual([]);
    // Settled once: a second adoption finds nothing.
    expect(await adoptStoppedRun(root)).toEqual({ files: 0, credits: 0 });
  });

  it('bytes of the right size but another sha256 in the archive are not the paid file: it is lost, never waits to load', async () => {
    const log = openSpendLog(root, start);
    await log.paying(planned(1));
    await log.credit(1);
    mkdirSync(join(root, 'deribit', 'BTC'), { recursive: true });
    writeFileSync(join(root, 'deribit', 'BTC', '2026-03-01_levels.csv.gz'), Buffer.alloc(BODY.length, 0x78));
    kill();
    const adopted = await adoptStoppedRun(root);
    expect(adopted.note).toMatch(/1 file\(s\) paid by a run that stopped before their bytes were archived/);
    expect(namesIn('archived')).toEqual([]);
    expect(namesIn('failed')).toEqual([jobName(planned(1))]);
    expect((await readJournal(root)).files).toEqual([]);
  });

  it('a kill between the failed/ record and the paid/ removal: the next run only finishes the move', async () => {
    const log = openSpendLog(root, start);
    await log.paying(planned(1));
    const pkg = onlyPackage();
    const record = readFileSync(join(pkg, 'paid', jobName(planned(1))), 'utf8');
    mkdirSync(join(pkg, 'failed'));
    writeFileSync(join(pkg, 'failed', jobName(planned(1))), record.replace(/}\s*$/, ',"reason":"x"}\n'));
    kill();
    expect((await readOnRecord(root)).paidNotArchived).toEqual([]);
    const adopted = await adoptStoppedRun(root);
    expect(adopted.note).toBeUndefined();
    expect(namesIn('paid')).toEqual([]);
    expect(JSON.parse(readFileSync(join(pkg, 'failed', jobName(planned(1))), 'utf8'))).toMatchObject({ reason: 'x' });
  });
});
