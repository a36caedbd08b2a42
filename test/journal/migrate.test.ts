// A journal of the older layout (pending.json rewritten whole, inflight.json of a sync stopped hard,
// spent/<start>.json, as gexwh wrote them before load packages: the fixture under fixtures/journal-v1)
// migrates into packages on the first run that holds the lock: nothing lost, nothing listed twice,
// the credits of each run kept, a bad entry refused without costing the good ones, and a migration a
// crash interrupted done again without doubling anything.
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrateLegacy } from '../../src/journal/migrate.js';
import { adoptStoppedRun } from '../../src/journal/stopped-runs.js';
import { inspectJournal } from '../../src/journal/journal.js';
import { recordedSpend } from '../../src/journal/spend-record.js';
import { packagesFolder } from '../../src/journal/layout.js';
import { journalState } from '../helpers/journal-state.js';

const FIXTURE = join(import.meta.dirname, 'fixtures', 'journal-v1');

let archive: string;
beforeEach(() => {
  archive = join(mkdtempSync(join(tmpdir(), 'gexwh-migrate-')), 'raw');
  cpSync(FIXTURE, archive, { recursive: true });
});
afterEach(() => rmSync(join(archive, '..'), { recursive: true, force: true }));

const dates = (files: { sessionDate: string }[]) => files.map((f) => f.sessionDate).sort();

describe('a journal written by the older layout', () => {
  it('reads as it is before any migration (status reads an archive any version left)', async () => {
    const state = await journalState(archive);
    expect(dates(state.files)).toEqual(['2026-11-19', '2026-11-20']);
    expect(state.runs).toEqual([expect.objectContaining({ outcome: 'locked', creditsSpent: 2 })]);
    expect(state.stopped).toMatchObject({ files: 1, credits: 3, runId: 9 });
    expect(state.rejected.map((r) => r.kind)).toEqual(['run', 'file']);
  });

  it('migrates into packages: every file, listing and run once, with its credits; the old files go', async () => {
    const adopted = await adoptStoppedRun(archive);
    expect(adopted).toMatchObject({ files: 1, credits: 3 });
    expect(adopted.note).toMatch(/journal file entry 3 .*refused: exchange: expected a history venue/);
    expect(readdirSync(join(archive, '_journal')).sort()).toEqual(['packages']);
    const read = await inspectJournal(archive);
    expect(dates(read.journal.files)).toEqual(['2026-11-19', '2026-11-20', '2026-11-21']);
    expect(read.journal.listings).toHaveLength(1);
    const runs = read.journal.runs.map((r) => ({ outcome: r.outcome, credits: r.creditsSpent, runId: r.runId }));
    expect(runs.sort((a, b) => a.credits - b.credits)).toEqual([
      { outcome: 'locked', credits: 2, runId: undefined },
      { outcome: 'interrupted', credits: 3, runId: 9 },
    ]);
    // Each run's record is checked against its own package's credits: the spend record came along.
    const spends = await Promise.all(read.journal.runs.map((run) => recordedSpend(run)));
    expect(spends.map((s) => s.credits).sort()).toEqual([2, 3]);
    expect(read.journal.rejected.map((r) => [r.kind, r.reason])).toEqual(
      expect.arrayContaining([
        ['run', 'an older refusal'],
        ['file', expect.stringMatching(/^exchange: /)],
      ]),
    );
    expect((await journalState(archive)).stopped).toBeUndefined();
  });

  it('a migration a crash interrupted (packages written, pending.json still there) is done again without doubling anything', async () => {
    await migrateLegacy(archive);
    const packages = readdirSync(packagesFolder(archive)).sort();
    cpSync(join(FIXTURE, '_journal', 'pending.json'), join(archive, '_journal', 'pending.json'));
    await migrateLegacy(archive);
    expect(readdirSync(packagesFolder(archive)).sort()).toEqual(packages);
    expect(existsSync(join(archive, '_journal', 'pending.json'))).toBe(false);
    const state = await journalState(archive);
    expect(dates(state.files)).toEqual(['2026-11-19', '2026-11-20']);
    expect(state.runs).toHaveLength(1);
    // The stopped run's log became an open package: adopted by the next run, its file waits there.
    expect(state.stopped).toMatchObject({ files: 1, credits: 3, runId: 9 });
  });
});
