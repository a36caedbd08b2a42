// The log of what a running sync spent: each credit and paid file is on disk when its promise
// resolves (writes shared by concurrent downloads), and a run stopped hard is adopted into the journal.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readJournal } from '../../src/journal/journal.js';
import { adoptStoppedRun, inflightPath, openSpendLog, readInflight, STOPPED_HARD } from '../../src/journal/spend-log.js';
import type { VerifiedFile } from '../../src/core/rows.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gexwh-spend-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const start = { command: 'sync', options: { maxCredits: 5 }, startedAt: new Date('2026-03-11T00:30:00Z') };

function file(date: string): VerifiedFile {
  return {
    exchange: 'combined',
    symbol: 'BTC',
    sessionDate: date,
    file: 'levels',
    sha256: 'a'.repeat(64),
    bytes: 100,
    rows: 10,
    schemaVersion: 1,
    archivePath: join(root, 'combined', 'BTC', `${date}_levels.csv.gz`),
    downloadedAt: new Date('2026-03-11T00:31:00Z'),
    fromArchive: false,
  };
}

describe('the spend log', () => {
  it('has every credit and file on disk when its promise resolves, concurrent changes included', async () => {
    const log = openSpendLog(root, { ...start, runId: 7 }, () => 3);
    // A paid link is on disk before its download starts.
    await log.credit(1);
    expect((await readInflight(root))?.run.creditsSpent).toBe(1);
    await Promise.all([log.credit(1), log.credit(1), log.archived(file('2026-03-09')), log.credit(1), log.archived(file('2026-03-10'))]);
    const left = await readInflight(root);
    expect(left?.run).toMatchObject({
      runId: 7,
      command: 'sync',
      outcome: 'interrupted',
      creditsSpent: 4,
      requestsSpent: 3,
      bytesDownloaded: 200,
      error: STOPPED_HARD,
    });
    expect(left?.files.map((f) => f.sessionDate).sort()).toEqual(['2026-03-09', '2026-03-10']);
    // Paths are recorded relative to the archive, never as the process saw them.
    expect(left?.files.map((f) => f.archivePath).sort()).toEqual(['combined/BTC/2026-03-09_levels.csv.gz', 'combined/BTC/2026-03-10_levels.csv.gz']);
    await log.close();
    expect(existsSync(inflightPath(root))).toBe(false);
  });

  it('a run stopped hard is adopted into the journal: its files wait, its record keeps the credits', async () => {
    const log = openSpendLog(root, start);
    await log.credit(2);
    await log.archived(file('2026-03-10'));
    // The process dies here: no close.
    expect(await adoptStoppedRun(root)).toEqual({ files: 1, credits: 2 });
    const journal = await readJournal(root);
    expect(journal.files.map((f) => f.sessionDate)).toEqual(['2026-03-10']);
    expect(journal.runs).toEqual([expect.objectContaining({ command: 'sync', outcome: 'interrupted', creditsSpent: 2 })]);
    expect(existsSync(inflightPath(root))).toBe(false);
    expect(await adoptStoppedRun(root)).toEqual({ files: 0, credits: 0 });
  });

  it('an unreadable log is set aside with a note, never read as records', async () => {
    const log = openSpendLog(root, start);
    await log.credit(1);
    writeFileSync(inflightPath(root), '{ half a log');
    const adopted = await adoptStoppedRun(root);
    expect(adopted.note).toMatch(/could not be read and was set aside as .*inflight\.json\.unreadable-\d+; its archived files are still used for 0 credits/);
    expect((await readJournal(root)).runs).toEqual([]);
    expect(readFileSync(adopted.note!.match(/as (\S+);/)![1]!, 'utf8')).toBe('{ half a log');
  });
});
