// A run that holds the sync lock closes the stopped runs' packages and reads the journal from the same
// one read of its packages: the view it gets must be the journal exactly as a fresh read after the
// adoption finds it (the adopted records, a start that could not be read, the listings waiting).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inspectJournal } from '../../src/journal/journal.js';
import { openSpendLog } from '../../src/journal/spend-log.js';
import { adoptAndRead } from '../../src/journal/stopped-runs.js';
import { journalFiles } from '../../src/journal/held.js';
import { openPackageOf, unregisterOpenPackage } from '../../src/journal/open-package.js';
import type { VerifiedFile } from '../../src/core/rows.js';
import { verifiedLevelsFile } from '../helpers/verified-file.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gexwh-adopt-read-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const file = (date: string): VerifiedFile => verifiedLevelsFile(root, date, 'b');

/** A run that dies after paying: its package stays open, and this process no longer runs it. */
async function stoppedRun(startedAt: string, credits: number, files: VerifiedFile[], quotaAtStart?: { remaining: number; reset: string }): Promise<void> {
  const log = openSpendLog(root, { command: 'sync', options: {}, startedAt: new Date(startedAt), ...(quotaAtStart ? { quotaAtStart } : {}) }, () => credits);
  await log.credit(credits);
  for (const paid of files) await log.archived(paid);
  unregisterOpenPackage(root, openPackageOf(root)!);
}

const listing = {
  exchange: 'combined',
  symbol: 'BTC',
  rows: [{ session_date: '2026-03-09', file: 'levels', rows: 10, bytes: 100, sha256: 'c'.repeat(64), schema_version: 1 }],
  listedAt: '2026-03-10T00:40:00.000Z',
  completeFrom: '2026-03-01',
};

describe('adoptAndRead', () => {
  it('hands on the journal as a fresh read after the adoption finds it, from one read of the packages', async () => {
    const reset = '2026-03-12T00:00:00Z';
    // Charged 5 by /me, 3 written down: 2 links lost, a credit file the adoption adds.
    await stoppedRun('2026-03-10T00:30:00Z', 3, [file('2026-03-08'), file('2026-03-09')], { remaining: 100, reset });
    await stoppedRun('2026-03-11T00:30:00Z', 1, [file('2026-03-10')]);
    await journalFiles(root, [], { listings: [listing], stored: false });
    const { adopted, journal } = await adoptAndRead(root, { remaining: 95, reset });
    expect(adopted).toEqual({ files: 3, credits: 4 });
    const fresh = await inspectJournal(root);
    expect(journal.journal).toEqual(fresh.journal);
    expect(journal.warnings).toEqual(fresh.warnings);
    expect(journal.packages).toEqual(fresh.packages);
    expect(journal.journal.runs).toEqual([
      expect.objectContaining({ outcome: 'interrupted', creditsSpent: 3, linksLost: 2 }),
      expect.objectContaining({ outcome: 'interrupted', creditsSpent: 1 }),
    ]);
    expect(journal.journal.files.map((f) => f.sessionDate).sort()).toEqual(['2026-03-08', '2026-03-09', '2026-03-10']);
    expect(journal.journal.listings).toEqual([listing]);
  });

  it('a stopped run whose start cannot be read: closed without a record in the view as on disk', async () => {
    await stoppedRun('2026-03-10T00:30:00Z', 2, [file('2026-03-09')]);
    const [pkg] = (await inspectJournal(root)).packages;
    writeFileSync(join(pkg!.folder, 'run.json'), '{ not a start');
    const { adopted, journal } = await adoptAndRead(root);
    expect(adopted.files).toBe(1);
    expect(adopted.note).toMatch(/cannot be read: its files wait to load/);
    const fresh = await inspectJournal(root);
    expect(journal.packages).toEqual(fresh.packages);
    expect(journal.journal).toEqual(fresh.journal);
    expect(journal.journal.files.map((f) => f.sessionDate)).toEqual(['2026-03-09']);
  });
});
