// Run records from a journal are claims: the credits one may record are at most what its spend log
// wrote down as spent (kept as the run's spend record when its record went to the journal). A journal
// run claiming 999,999 credits records what was spent, with a warning; a forged run id never touches
// another run's finished record.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { emptyJournal, runOf, writeJournal, type JournaledRun } from '../../src/journal/journal.js';
import { applyJournal } from '../../src/journal/load-pending.js';
import { openSpendLog } from '../../src/journal/spend-log.js';
import { spendRecordPath } from '../../src/journal/spend-record.js';
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

/** What a held-out sync leaves: its spend log, with `credits` written down, kept as the run's spend record. */
async function spent(archive: string, credits: number): Promise<void> {
  const log = openSpendLog(archive, { command: 'sync', options: {}, startedAt });
  for (let i = 0; i < credits; i++) await log.credit(1);
  await log.close({ journaled: true });
}

const credits = async (db: string) => withDb(db, async (wh) => query(wh, `SELECT outcome, credits_spent::INT c FROM sync.runs ORDER BY run_id`));

describe('a journaled run record', () => {
  it('with its spend record: stored with its credits, and the record goes once the journal is rewritten', async () => {
    const { db, archive } = place();
    await spent(archive, 3);
    expect(existsSync(spendRecordPath(archive, startedAt.toISOString()))).toBe(true);
    await writeJournal(archive, { ...emptyJournal(), runs: [claim(3)] });
    const applied = await withDb(db, (wh) => applyJournal(wh.connection, archive, { check: {} }));
    expect(applied).toMatchObject({ runsRecorded: 1, warnings: [] });
    expect(await credits(db)).toEqual([{ outcome: 'locked', c: 3 }]);
    expect(existsSync(spendRecordPath(archive, startedAt.toISOString()))).toBe(false);
  });

  it('claiming 999,999 credits with no spend record records 0, with a warning naming the claim', async () => {
    const { db, archive } = place();
    await writeJournal(archive, { ...emptyJournal(), runs: [claim(999_999)] });
    const applied = await withDb(db, (wh) => applyJournal(wh.connection, archive, { check: {} }));
    expect(applied.warnings.join('\n')).toContain(
      'claims 999999 credit(s), but its spend log recorded 0: what was recorded is kept, the claim beyond it refused',
    );
    expect(await credits(db)).toEqual([{ outcome: 'locked', c: 0 }]);
  });

  it('claiming more than its spend record records what was spent', async () => {
    const { db, archive } = place();
    await spent(archive, 2);
    await writeJournal(archive, { ...emptyJournal(), runs: [claim(999_999)] });
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
    await spent(archive, 4);
    await writeJournal(archive, { ...emptyJournal(), runs: [claim(4, ids.done), claim(4, ids.open)] });
    const applied = await withDb(db, (wh) => applyJournal(wh.connection, archive, { check: {} }));
    expect(applied.runsRecorded).toBe(1);
    expect(await credits(db)).toEqual([
      { outcome: 'ok', c: 7 },
      { outcome: 'locked', c: 4 },
    ]);
  });
});
