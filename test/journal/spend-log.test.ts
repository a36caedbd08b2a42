// The spend record of a running sync, in its own load package: each credit and paid file is a new
// small file on disk when its promise resolves (concurrent ones side by side, none rewritten), and a
// run stopped hard is adopted: its package gets its record, its files wait in the journal.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readJournal } from '../../src/journal/journal.js';
import { openSpendLog, STOPPED_HARD } from '../../src/journal/spend-log.js';
import { adoptStoppedRun } from '../../src/journal/stopped-runs.js';
import { journalFiles, journalRun } from '../../src/journal/held.js';
import { packagesFolder } from '../../src/journal/layout.js';
import { openPackageOf, unregisterOpenPackage } from '../../src/journal/open-package.js';
import { journalState } from '../helpers/journal-state.js';
import type { VerifiedFile } from '../../src/core/rows.js';
import { verifiedLevelsFile } from '../helpers/verified-file.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gexwh-spend-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const start = { command: 'sync', options: { maxCredits: 5 }, startedAt: new Date('2026-03-11T00:30:00Z') };

const file = (date: string): VerifiedFile => verifiedLevelsFile(root, date);

const onlyPackage = () => join(packagesFolder(root), readdirSync(packagesFolder(root))[0]!);

describe('the spend log', () => {
  it('has every credit and file on disk, one file each, when its promise resolves, concurrent changes included', async () => {
    const log = openSpendLog(root, { ...start, runId: 7 }, () => 3);
    await log.credit(1);
    expect((await journalState(root)).stopped).toMatchObject({ credits: 1, files: 0, runId: 7 });
    await Promise.all([log.credit(1), log.credit(1), log.archived(file('2026-03-09')), log.credit(1), log.archived(file('2026-03-10'))]);
    const pkg = onlyPackage();
    expect(readdirSync(join(pkg, 'credits'))).toHaveLength(4);
    expect(readdirSync(join(pkg, 'archived')).sort()).toEqual([
      `2026-03-09_levels_combined_BTC_${'a'.repeat(16)}.json`,
      `2026-03-10_levels_combined_BTC_${'a'.repeat(16)}.json`,
    ]);
    expect((await journalState(root)).stopped).toMatchObject({ credits: 4, files: 2, bytes: 200, runId: 7, startedAt: start.startedAt.toISOString() });
    // What the run record says it spent, should the run end here: every credit, not the last one.
    expect(log.creditsSpent).toBe(4);
    expect(log.counts()).toMatchObject({ creditsSpent: 4, bytesDownloaded: 200, requestsSpent: 3 });
    await log.close();
    expect(existsSync(pkg)).toBe(false);
  });

  it('a run stopped hard is adopted: its files wait, its record keeps the credits; adopted once', async () => {
    const log = openSpendLog(root, start, () => 4);
    await log.credit(2);
    await log.archived(file('2026-03-10'));
    // The process dies here: no close; the package stays open, and this process no longer runs it.
    unregisterOpenPackage(root, openPackageOf(root)!);
    expect(await adoptStoppedRun(root)).toEqual({ files: 1, credits: 2 });
    const journal = await readJournal(root);
    expect(journal.files.map((f) => f.sessionDate)).toEqual(['2026-03-10']);
    expect(journal.files[0]?.archivePath).toBe('combined/BTC/2026-03-10_levels.csv.gz');
    expect(journal.runs).toEqual([
      expect.objectContaining({ command: 'sync', outcome: 'interrupted', creditsSpent: 2, requestsSpent: 4, error: STOPPED_HARD }),
    ]);
    expect((await journalState(root)).stopped).toBeUndefined();
    expect(await adoptStoppedRun(root)).toEqual({ files: 0, credits: 0 });
  });

  it('a run whose load was held keeps its own files waiting in its package, with its record', async () => {
    const log = openSpendLog(root, start);
    await log.credit(1);
    await log.archived(file('2026-03-10'));
    const reused = { ...file('2026-03-09'), fromArchive: true };
    await journalFiles(root, [file('2026-03-10'), reused], { listings: [], stored: true });
    await journalRun(root, start, undefined, { outcome: 'locked', creditsSpent: 1 });
    await log.close({ journaled: true });
    const state = await journalState(root);
    expect(state.files.map((f) => f.sessionDate).sort()).toEqual(['2026-03-09', '2026-03-10']);
    expect(state.runs).toEqual([expect.objectContaining({ outcome: 'locked', creditsSpent: 1 })]);
    expect(state.stopped).toBeUndefined();
    // Two packages: the run's own (its file, record and credit) and one for the copy it reused.
    expect(readdirSync(packagesFolder(root))).toHaveLength(2);
  });

  it('a run recorded in the warehouse with a file held: the loaded one moves to loaded/, the held one waits', async () => {
    const log = openSpendLog(root, start);
    await log.credit(2);
    await log.archived(file('2026-03-09'));
    await log.archived(file('2026-03-10'));
    await journalFiles(root, [file('2026-03-10')], { listings: [], stored: true });
    await log.close();
    const pkg = onlyPackage();
    expect(readdirSync(join(pkg, 'loaded'))).toEqual([`2026-03-09_levels_combined_BTC_${'a'.repeat(16)}.json`]);
    expect((await journalState(root)).files.map((f) => f.sessionDate)).toEqual(['2026-03-10']);
  });

  it('an unreadable run log of the older layout is set aside with a note, never read as records', async () => {
    const { mkdirSync, readFileSync } = await import('node:fs');
    mkdirSync(join(root, '_journal'));
    writeFileSync(join(root, '_journal', 'inflight.json'), '{ half a log');
    const adopted = await adoptStoppedRun(root);
    expect(adopted.note).toMatch(/could not be read and was set aside as .*inflight\.json\.unreadable-\d+; its archived files are still used for 0 credits/);
    expect((await readJournal(root)).runs).toEqual([]);
    expect(readFileSync(adopted.note!.match(/as (\S+);/)![1]!, 'utf8')).toBe('{ half a log');
  });
});
