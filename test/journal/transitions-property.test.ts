// Over random sequences of runs (each paying for files: paid/, a credit, the bytes archived, the
// rename to archived/, or a download that fails; crashing at any point, or ending with its record in
// the warehouse or in the journal, some files held) and loads (some waiting files moved to loaded/),
// the journal never loses a paid file nor lists one twice: after each step, once stopped runs are
// adopted as the next run does, the files waiting are exactly those whose bytes reached the archive
// and were not loaded, and no paid/ record is left unsettled.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openSpendLog } from '../../src/journal/spend-log.js';
import { adoptStoppedRun } from '../../src/journal/stopped-runs.js';
import { journalFiles, journalRun } from '../../src/journal/held.js';
import { openPackageOf, unregisterOpenPackage } from '../../src/journal/open-package.js';
import { inspectJournal } from '../../src/journal/journal.js';
import { moveFile, dropDonePackages } from '../../src/journal/settle.js';
import { paidNotArchived } from '../../src/journal/paid-files.js';
import type { VerifiedFile } from '../../src/core/rows.js';

const DATES = ['2026-11-10', '2026-11-11', '2026-11-12', '2026-11-13', '2026-11-14', '2026-11-16', '2026-11-17', '2026-11-18'];

const bodyOf = (date: string) => Buffer.from(`timestamp_utc,expiration\n${date}T00:00:00Z,TOTAL\n`);

function paid(root: string, date: string): VerifiedFile {
  const body = bodyOf(date);
  return {
    exchange: 'bybit',
    symbol: 'BTC',
    sessionDate: date,
    file: 'levels',
    sha256: createHash('sha256').update(body).digest('hex'),
    bytes: body.length,
    rows: 1,
    schemaVersion: 1,
    archivePath: join(root, 'bybit', 'BTC', `${date}_levels.csv.gz`),
    downloadedAt: new Date('2026-11-20T00:00:00Z'),
    fromArchive: false,
  };
}

/** The bytes land in the archive, as the download stage's rename does. */
function archiveBytes(root: string, date: string): void {
  mkdirSync(join(root, 'bybit', 'BTC'), { recursive: true });
  writeFileSync(join(root, 'bybit', 'BTC', `${date}_levels.csv.gz`), bodyOf(date));
}

type Step = { kind: 'run'; buy: number; crashAt: number; end: 'warehouse' | 'journal'; hold: number[]; fail: number[] } | { kind: 'load'; pick: number[] };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('run' as const),
    buy: fc.integer({ min: 0, max: 3 }),
    crashAt: fc.integer({ min: 0, max: 14 }),
    end: fc.constantFrom('warehouse' as const, 'journal' as const),
    hold: fc.array(fc.nat(7), { maxLength: 3 }),
    fail: fc.array(fc.nat(7), { maxLength: 2 }),
  }),
  fc.record({ kind: fc.constant('load' as const), pick: fc.array(fc.nat(7), { maxLength: 4 }) }),
);

/** Runs one step against the journal and the model of what waits; returns the model after it. */
async function apply(root: string, s: Step, waiting: Set<string>, bought: Set<string>, n: number): Promise<void> {
  if (s.kind === 'load') {
    const { journal } = await inspectJournal(root);
    for (const file of journal.files.filter((f) => s.pick.includes(DATES.indexOf(f.sessionDate)))) {
      await moveFile(root, file, 'loaded');
      waiting.delete(file.sessionDate);
    }
    await dropDonePackages(root);
    return;
  }
  // The planner never buys a file that is archived (waiting or loaded): each date is bought once.
  const buy = DATES.filter((d) => !bought.has(d)).slice(0, s.buy);
  const start = { command: 'sync', options: {}, startedAt: new Date(Date.UTC(2026, 10, 20, 0, n)) };
  const log = openSpendLog(root, start);
  let steps = 0;
  // Each file: paid/, its credit, its bytes in the archive, the rename to archived/; a crash may land
  // between any two. A file whose bytes never land is not in the archive: the planner buys it again.
  for (const date of buy) {
    const file = paid(root, date);
    if (steps++ === s.crashAt) return crash(root);
    await log.paying(file);
    bought.add(date);
    if (steps++ === s.crashAt) return crash(root, () => bought.delete(date));
    await log.credit(1);
    if (s.fail.includes(DATES.indexOf(date))) {
      await log.notArchived(file, 'sha256 mismatch twice', true);
      bought.delete(date);
      continue;
    }
    if (steps++ === s.crashAt) return crash(root, () => bought.delete(date));
    archiveBytes(root, date);
    waiting.add(date); // its bytes are archived: it waits until a load says otherwise
    if (steps++ === s.crashAt) return crash(root);
    await log.archived(file);
  }
  if (s.end === 'journal') {
    await journalFiles(root, log.files(), { listings: [], stored: true });
    await journalRun(root, start, undefined, { outcome: 'locked', creditsSpent: log.creditsSpent });
    await log.close({ journaled: true });
    return;
  }
  const held = log.files().filter((f) => s.hold.includes(DATES.indexOf(f.sessionDate)));
  await journalFiles(root, held, { listings: [], stored: true });
  await log.close();
  // Recorded in the warehouse: its own files not held were loaded by its load.
  for (const f of log.files()) if (!held.includes(f)) waiting.delete(f.sessionDate);
}

/** A hard stop: nothing graceful runs, the package stays open, and this process no longer runs it. */
function crash(root: string, lost: () => void = () => undefined): void {
  lost();
  const open = openPackageOf(root);
  if (open !== undefined) unregisterOpenPackage(root, open);
}

describe('the journal over random runs, crashes and loads', () => {
  it('never loses a paid file nor lists one twice', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        const root = mkdtempSync(join(tmpdir(), 'gexwh-transitions-'));
        try {
          const waiting = new Set<string>();
          const bought = new Set<string>();
          for (const [n, s] of steps.entries()) {
            await apply(root, s, waiting, bought, n);
            await adoptStoppedRun(root); // what the next run does first
            const { journal, packages } = await inspectJournal(root);
            expect(journal.files.map((f) => f.sessionDate).sort()).toEqual([...waiting].sort());
            expect(paidNotArchived(packages)).toEqual([]);
          }
        } finally {
          crash(root);
          rmSync(root, { recursive: true, force: true });
        }
      }),
      {
        numRuns: 15,
        // A run held out of one of its files; one killed between its first file's bytes and the
        // rename to archived/; one killed after a credit whose bytes never came; then a load.
        examples: [
          [
            [
              { kind: 'run', buy: 2, crashAt: 14, end: 'warehouse', hold: [0], fail: [] },
              { kind: 'run', buy: 2, crashAt: 3, end: 'warehouse', hold: [], fail: [] },
              { kind: 'run', buy: 1, crashAt: 1, end: 'journal', hold: [], fail: [] },
              { kind: 'load', pick: [2] },
            ],
          ],
        ],
      },
    );
  });
});
