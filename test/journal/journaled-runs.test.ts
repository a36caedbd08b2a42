// Run records from a journal are claims: the credits one may record are at most what its own package
// wrote down as spent (one credit file per credit). A journal run claiming 999,999 credits records
// what was spent, with a warning; a forged run id never touches another run's finished record.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runOf, type JournaledRun } from '../../src/journal/journal.js';
import { applyJournal } from '../../src/journal/load-pending.js';
import { openSpendLog } from '../../src/journal/spend-log.js';
import { writeJournalPackages } from '../../src/journal/package-write.js';
import { packagesFolder } from '../../src/journal/layout.js';
import { finishRun, startRun } from '../../src/warehouse/index.js';
import { withDb } from '../warehouse/archive-fixtures.js';
import { makeTempDir, query } from '../warehouse/fixtures.js';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));
function place(): { db: string; archive: string } {
  const { dir, cleanup } = makeTempDir();
  cleanups.push(cleanup);
  return { db: join(dir, 'gex.duckdb'), archive: join(dir, 'raw') };
}

const startedAt = new Date('2026-11-21T00:30:00Z');
const claim = (credits: number, runId?: number): JournaledRun =>
  runOf({ command: 'sync', options: {}, startedAt, ...(runId !== undefined ? { runId } : {}) }, { outcome: 'locked', creditsSpent: credits });

/** What a held-out sync leaves: its package, with `credits` written down and its record claiming `claimed`. */
async function spent(archive: string, credits: number, claimed: JournaledRun): Promise<void> {
  const log = openSpendLog(archive, { command: 'sync', options: {}, startedAt });
  for (let i = 0; i < credits; i++) await log.credit(1);
  await log.close({ journaled: true });
  // The record as the journal holds it (a claim anyone who can write the archive can change).
  const [pkg] = readdirSync(packagesFolder(archive));
  writeFileSync(join(packagesFolder(archive), pkg!, 'record.json'), JSON.stringify(claimed));
}

const journaled = (archive: string, runs: JournaledRun[]) => writeJournalPackages(archive, { files: [], listings: [], runs });

const credits = async (db: string) => withDb(db, async (wh) => query(wh, `SELECT outcome, credits_spent::INT c FROM sync.runs ORDER BY run_id`));

describe('a journaled run record', () => {
  it('with its credits: stored with them, and its package goes once the record is stored', async () => {
    const { db, archive } = place();
    await spent(archive, 3, claim(3));
    const applied = await withDb(db, (wh) => applyJournal(wh.connection, archive, { check: {} }));
    expect(applied).toMatchObject({ runsRecorded: 1, warnings: [] });
    expect(await credits(db)).toEqual([{ outcome: 'locked', c: 3 }]);
    expect(existsSync(packagesFolder(archive))).toBe(false);
  });

  it('claiming 999,999 credits with no spend record records 0, with a warning naming the claim', async () => {
    const { db, archive } = place();
    await journaled(archive, [claim(999_999)]);
    const applied = await withDb(db, (wh) => applyJournal(wh.connection, archive, { check: {} }));
    expect(applied.warnings.join('\n')).toContain(
      'claims 999999 credit(s), but its spend log recorded 0: what was recorded is kept, the claim beyond it refused',
    );
    expect(await credits(db)).toEqual([{ outcome: 'locked', c: 0 }]);
  });

  it('claiming more than its spend record records what was spent', async () => {
    const { db, archive } = place();
    await spent(archive, 2, claim(999_999));
    const applied = await withDb(db, (wh) => applyJournal(wh.connection, archive, { check: {} }));
    expect(applied.warnings.join('\n')).toContain('claims 999999 credit(s), but its spend log recorded 2');
    expect(await credits(db)).toEqual([{ outcome: 'locked', c: 2 }]);
  });

  it("naming another run's finished row changes nothing; naming its own open row completes it", async () => {
    const { db, archive } = place();
    const ids = await withDb(db, async (wh) => {
      const done = await startRun(wh.connection, { command: 'sync', options: {}, startedAt: new Date('2026-11-20T00:30:00Z') });
      await finishRun(wh.connection, done, { outcome: 'ok', creditsSpent: 7 });
      const open = await startRun(wh.connection, { command: 'sync', options: {}, startedAt });
      return { done, open };
    });
    await spent(archive, 4, claim(4, ids.open));
    // A forged record naming another run's finished row, with credits of its own written beside it.
    await journaled(archive, [claim(4, ids.done)]);
    const applied = await withDb(db, (wh) => applyJournal(wh.connection, archive, { check: {} }));
    expect(applied.runsRecorded).toBe(1);
    expect(await credits(db)).toEqual([
      { outcome: 'ok', c: 7 },
      { outcome: 'locked', c: 4 },
    ]);
  });
});
