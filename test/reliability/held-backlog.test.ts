// A backfill larger than one day's credits, with a notebook holding the warehouse read-write through
// the next night: the sync cannot read its state, yet it still buys, within the budget, the new
// session and the files earlier budgets deferred (seen from the archive's own records), never a file
// the archive already holds; they wait in the journal and load once the notebook lets go.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { openWarehouse } from '../../src/warehouse/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { holdWarehouse, type Holder } from '../helpers/holder.js';
import { ONE_PAIR_ARGS, workspaceIn } from '../helpers/workspace.js';
import { journalState } from '../helpers/journal-state.js';

const DAY = 24 * 3600 * 1000;
let emulator: Emulator;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 6, expirations: 2, strikes: 8, seed: 5, symbols: ['BTC'] });
  dir = mkdtempSync(join(tmpdir(), 'gexwh-backlog-'));
}, 60_000);
afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

async function loadedFiles(db: string): Promise<string[]> {
  const warehouse = await openWarehouse(db, { readOnly: true });
  try {
    const reader = await warehouse.connection.runAndReadAll(
      `SELECT session_date::VARCHAR || '/' || file AS k FROM sync.files WHERE status = 'loaded' ORDER BY k`,
    );
    return (reader.getRowObjectsJson() as { k: string }[]).map((r) => r.k);
  } finally {
    warehouse.close();
  }
}

it('held read-write, a nightly sync buys the new session and the deferred backlog within --max-credits, nothing twice; load loads them', async () => {
  const ws = workspaceIn(dir);
  const key = emulator.keys.admin;
  const env = { GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: key };
  const args = ['sync', ...ws.local, ...ONE_PAIR_ARGS, '--json'];
  // Night 1: 4 credits of a longer history, newest first: a whole session and one file of the next.
  const first = await runCliInProcess([...args, '--max-credits', '4'], { env });
  expect(first.code, first.stderr).toBe(0);
  expect(JSON.parse(first.stdout)).toMatchObject({ credits_spent: 4 });
  const nightOne = await loadedFiles(ws.db);
  expect(nightOne).toHaveLength(4);
  emulator.clock.advance(DAY);
  const creditsBefore = emulator.counters.credits(key);
  const served = () => emulator.counters.hits(/^\/files\/deribit\/BTC\//);
  const hitsBefore = served();

  let holder: Holder | undefined = await holdWarehouse(ws.db, 'read_write');
  try {
    const held = await runCliInProcess([...args, '--max-credits', '8', '--wait-lock', '0'], { env });
    expect(held.code, held.stderr).toBe(5);
    expect(held.stderr).toContain('8 file(s) paid by this run are verified and archived');
    expect(emulator.counters.credits(key) - creditsBefore).toBe(8);
    expect(served() - hitsBefore).toBe(8); // no archived file served again
    const journal = await journalState(ws.archive);
    const waiting = journal.files.map((f) => `${f.sessionDate}/${f.file}`);
    const paid = waiting.filter((k) => !nightOne.includes(k));
    expect(paid).toHaveLength(8);
    // The new session (3 files), the two files night 1 left of its second session, and 3 older ones.
    const sessions = [...new Set(paid.map((k) => k.slice(0, 10)))].sort().reverse();
    expect(sessions).toHaveLength(3);
    expect(
      sessions[0]! >
        nightOne
          .map((k) => k.slice(0, 10))
          .sort()
          .at(-1)!,
    ).toBe(true);
    await holder.release();
    holder = undefined;
  } finally {
    holder?.kill();
  }

  const load = await runCliInProcess(['load', ...ws.local, '--json'], { env });
  expect(load.code, load.stderr).toBe(0);
  expect(await loadedFiles(ws.db)).toHaveLength(12);
  // The next night that can read the warehouse pays only for what is still missing.
  const next = await runCliInProcess([...args, '--max-credits', '100'], { env });
  expect(next.code, next.stderr).toBe(0);
  const total = (JSON.parse(next.stdout) as { credits_spent: number }).credits_spent;
  expect(emulator.counters.credits(key) - creditsBefore).toBe(8 + total);
  const everyFile = await loadedFiles(ws.db);
  expect(served() - hitsBefore).toBe(8 + total);
  expect(new Set(everyFile).size).toBe(12 + total);
}, 120_000);
