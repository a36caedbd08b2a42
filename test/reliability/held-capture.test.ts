// `capture` never loses a snapshot to a reader: a second process holds the warehouse through three
// captures 15 minutes apart on the emulator's clock; each exits 5 with its snapshot journaled under
// <archive>/_live; released, the next capture loads all four, with no request spent twice, and the
// live tables equal those of a run with no reader. A kill -9 between the journal write and the load
// loses nothing, and `rebuild` recreates the live tables from the journal.
// Only the capture killed with -9 spawns the built CLI; every other run (the held ones included: the
// holder is another process, and DuckDB's lock is per process) runs the same code in-process
// (src/cli/run.ts), since no process boundary matters to them.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { openWarehouse } from '../../src/warehouse/index.js';
import { runCli, runCliInProcess } from '../helpers/cli.js';
import { holdWarehouse, type Holder } from '../helpers/holder.js';
import { listFiles } from '../helpers/sync.js';
import { workspaceIn } from '../helpers/workspace.js';

let emulator: Emulator;
let dir: string;
const QUARTER = 15 * 60 * 1000;

beforeAll(async () => {
  // 14:07 UTC on a Wednesday: the crypto market is open, captures are 15 minutes apart.
  emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 2, expirations: 3, strikes: 8, seed: 13, symbols: ['BTC'] });
  dir = mkdtempSync(join(tmpdir(), 'gexwh-held-capture-'));
});
afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

function workspace() {
  const ws = workspaceIn(dir);
  return { ...ws, capture: ['capture', ...ws.local, '--symbol', 'BTC', '--exchange', 'deribit', '--force'] };
}

const env = (key: string) => ({ GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: key });

/** Every live table's rows, as sorted text (order-free, every column). */
async function liveTables(db: string): Promise<Record<string, string[]>> {
  const warehouse = await openWarehouse(db, { readOnly: true });
  try {
    const out: Record<string, string[]> = {};
    for (const table of ['live_levels', 'term_structure', 'live_strikes']) {
      const reader = await warehouse.connection.runAndReadAll(`SELECT t::VARCHAR AS r FROM query_table($1) t ORDER BY r`, [table]);
      out[table] = (reader.getRowObjectsJson() as { r: string }[]).map((row) => row.r);
    }
    return out;
  } finally {
    warehouse.close();
  }
}

function pending(archive: string): string[] {
  const root = join(archive, '_live', 'pending');
  return existsSync(root)
    ? readdirSync(root, { recursive: true })
        .map(String)
        .filter((f) => f.endsWith('.json'))
    : [];
}

describe('capture beside a reader', () => {
  it('three captures held out are journaled (exit 5); released, the fourth loads all four: no request twice, the live tables of a run with no reader', async () => {
    const held = workspace();
    const free = workspace();
    for (const ws of [held, free]) expect((await runCliInProcess(ws.capture, { env: env(emulator.keys.admin) })).code).toBe(0); // warehouses exist
    emulator.clock.advance(QUARTER);
    const heldKey = emulator.keys.pro;
    const freeKey = emulator.keys.trial;
    const requestsBefore = { held: emulator.counters.requests(heldKey), free: emulator.counters.requests(freeKey) };

    let holder: Holder | undefined = await holdWarehouse(held.db, 'read_only');
    try {
      for (let i = 1; i <= 3; i++) {
        // No wait: the waiting capture is the kill -9 case below.
        const result = await runCliInProcess([...held.capture, '--wait-lock', '0'], { env: env(heldKey) });
        expect(result.code, result.stderr).toBe(5);
        expect(result.stderr).toContain(`process ${holder.pid}`);
        expect(result.stderr).toContain(`${i} snapshot(s) journaled, will load on the next capture, sync or gexwh load`);
        expect(pending(held.archive)).toHaveLength(i);
        const status = await runCliInProcess(['status', ...held.local, '--json'], { env: env(heldKey) });
        expect(JSON.parse(status.stdout).waiting_to_load).toMatchObject({ snapshots: i });
        const reference = await runCliInProcess(free.capture, { env: env(freeKey) });
        expect(reference.code, reference.stderr).toBe(0);
        emulator.clock.advance(QUARTER);
      }
      await holder.release();
      holder = undefined;
    } finally {
      holder?.kill();
    }
    const fourth = await runCliInProcess([...held.capture, '--json'], { env: env(heldKey) });
    expect(fourth.code, fourth.stderr).toBe(0);
    expect(JSON.parse(fourth.stdout)).toMatchObject({ snapshots_journaled: 1, snapshots_loaded: 4 });
    expect((await runCliInProcess(free.capture, { env: env(freeKey) })).code).toBe(0);
    expect(pending(held.archive)).toEqual([]);

    // Each capture asked once (levels + term structure); nothing was asked again to load the journal.
    const spent = { held: emulator.counters.requests(heldKey) - requestsBefore.held, free: emulator.counters.requests(freeKey) - requestsBefore.free };
    expect(spent.held).toBe(8);
    expect(spent.held).toBe(spent.free);
    const tables = await liveTables(held.db);
    expect(tables.live_levels).toHaveLength(5);
    expect(tables).toEqual(await liveTables(free.db));
  }, 180_000);

  it('kill -9 between the journal write and the load loses nothing; rebuild recreates the live tables from the journal', async () => {
    const ws = workspace();
    const key = emulator.keys.admin;
    expect((await runCliInProcess(ws.capture, { env: env(key) })).code).toBe(0);
    emulator.clock.advance(QUARTER);
    const holder = await holdWarehouse(ws.db, 'read_write');
    try {
      // The capture journals its snapshot, then waits for the warehouse: it is killed while it waits.
      const killed = await runCli([...ws.capture, '--wait-lock', '120'], {
        env: env(key),
        onSpawn(child) {
          const timer = setInterval(() => {
            if (pending(ws.archive).length === 0) return;
            clearInterval(timer);
            child.kill('SIGKILL');
          }, 20);
          child.once('exit', () => clearInterval(timer));
        },
      });
      expect(killed.signal).toBe('SIGKILL');
    } finally {
      await holder.release();
    }
    expect(pending(ws.archive)).toHaveLength(1);
    const load = await runCliInProcess(['load', ...ws.local, '--json'], { env: {} });
    expect(load.code, load.stderr).toBe(0);
    expect(JSON.parse(load.stdout)).toMatchObject({ snapshots_loaded: 1 });
    const tables = await liveTables(ws.db);
    expect(tables.live_levels).toHaveLength(2);

    // The warehouse lost: rebuild recreates it from the archive, and its live tables from the journal.
    rmSync(ws.db);
    expect((await listFiles(ws.archive)).filter((f) => f.includes('_live/loaded'))).toHaveLength(2);
    const rebuilt = await runCliInProcess(['rebuild', ...ws.local], { env: {} });
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(rebuilt.stdout).toMatch(/2 journaled live snapshot\(s\) replayed/);
    expect(await liveTables(ws.db)).toEqual(tables);
  }, 180_000);
});
