// The download stage pays every link from the run's credit meter: a planned file the meter cannot
// pay for is deferred without a request, a renewal takes only a credit no planned file holds, and a
// file that paid for no link gives its credit back.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fetchFiles, type Downloader } from '../../src/sync/fetch.js';
import { CreditMeter, UNLIMITED } from '../../src/core/credit-meter.js';
import type { PlannedFile } from '../../src/core/rows.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gexwh-fetch-meter-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const BODY = Buffer.from('timestamp_utc,level\n2026-03-01T00:00:00Z,1\n');
const SHA = createHash('sha256').update(BODY).digest('hex');

function planned(day: number): PlannedFile {
  const sessionDate = `2026-03-${String(day).padStart(2, '0')}`;
  return { exchange: 'deribit', symbol: 'BTC', sessionDate, file: 'levels', sha256: SHA, bytes: BODY.length, rows: 1, schemaVersion: 1 };
}

/** A paid link's download: one credit, written down as the real port does, then the good body. */
const paidDownload: Downloader = async (_file, tempPath, _stop, links) => {
  await links.paid(1);
  writeFileSync(tempPath, BODY);
  return { bytes: BODY.length, sha256: SHA, creditsSpent: 1 };
};

const noQuota = () => undefined;

describe('fetchFiles and the credit meter', () => {
  it('defers the planned files the meter cannot pay for, asking nothing for them', async () => {
    const asked: string[] = [];
    const meter = new CreditMeter(2);
    const report = await fetchFiles([planned(3), planned(2), planned(1)], {
      archiveRoot: root,
      concurrency: 2,
      download: async (file, tempPath, stop, links) => (asked.push(file.sessionDate), paidDownload(file, tempPath, stop, links)),
      quotaStopOf: noQuota,
      credits: meter,
    });
    expect(asked.sort()).toEqual(['2026-03-02', '2026-03-03']);
    expect(report.deferred.map((file) => file.sessionDate)).toEqual(['2026-03-01']);
    expect(report.overBudget).toBe(1);
    expect(report.creditsSpent).toBe(2);
    expect(meter.spent).toBe(2);
  });

  it('gives back the credit of a file that paid for no link, so a later renewal may spend it', async () => {
    const meter = new CreditMeter(2);
    const renewals: boolean[] = [];
    const download: Downloader = async (file, tempPath, stop, links) => {
      if (file.sessionDate === '2026-03-02') throw new Error('503 files_unavailable (no link paid)');
      renewals.push(links.takeExtraCredit());
      return paidDownload(file, tempPath, stop, links);
    };
    const report = await fetchFiles([planned(2), planned(1)], { archiveRoot: root, concurrency: 1, download, quotaStopOf: noQuota, credits: meter });
    expect(report.failed.map((file) => file.sessionDate)).toEqual(['2026-03-02']);
    expect(renewals).toEqual([true]);
    expect(meter.spent).toBe(2);
  });

  it('keeps the credit of a file whose link answer was lost (it may have been charged)', async () => {
    const meter = new CreditMeter(2);
    const download: Downloader = async (_file, _tempPath, _stop, links) => {
      links.answerLost();
      throw new Error('the link answer was lost');
    };
    const report = await fetchFiles([planned(2), planned(1)], { archiveRoot: root, concurrency: 1, download, quotaStopOf: noQuota, credits: meter });
    expect(report.failed).toHaveLength(2);
    expect(report.linksLost).toBe(2);
    expect(meter.left).toBe(0);
  });

  it('pays every planned file from an unlimited meter', async () => {
    const meter = new CreditMeter(UNLIMITED);
    const report = await fetchFiles([planned(3), planned(2), planned(1)], {
      archiveRoot: root,
      concurrency: 3,
      download: paidDownload,
      quotaStopOf: noQuota,
      credits: meter,
    });
    expect(report.verified).toHaveLength(3);
    expect(report.deferred).toHaveLength(0);
    expect(meter.spent).toBe(3);
  });
});
