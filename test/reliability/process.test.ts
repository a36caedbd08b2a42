// Reliability matrix, the process: SIGINT/SIGTERM during download and during load, kill -9 at random
// points in a loop, a warehouse held by another process, a corrupted DuckDB file. The built CLI runs
// as a child process (as cron runs it) against the in-process emulator.
import { type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { runCli, runCliInProcess } from '../helpers/cli.js';
import { consistent, inspectWarehouse, tableChecksums } from '../helpers/invariants.js';
import { buildMigratedWarehouse, seedWarehouse } from '../helpers/migrated-warehouse.js';
import { ONE_PAIR, syncVia } from '../helpers/reliability.js';
import { listFiles } from '../helpers/sync.js';
import { seededRandom } from '../helpers/random.js';
import { gate, type Gate } from '../helpers/gate.js';
import { signalsAt } from '../helpers/signals.js';
import { ONE_PAIR_ARGS, workspaceIn } from '../helpers/workspace.js';
import { readAttached as query } from '../helpers/attached-warehouse.js';

let emulator: Emulator;
let dir: string;
let template: string;

beforeAll(async () => {
  // Small chains (4 strikes, 1 expiration) where a signal waits for its line (signalsAt, a held
  // storage): no race with a quick load. The kill -9 loop keeps its larger files (its own emulator).
  emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 2, expirations: 1, strikes: 4, seed: 9, symbols: ['BTC'] });
  dir = mkdtempSync(join(tmpdir(), 'gexwh-reliability-'));
  template = await buildMigratedWarehouse(dir);
});
afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A fresh workspace; `seeded` puts a migrated empty warehouse in it, for the tests whose subject is
 * not the warehouse's creation (the kill loop starts from nothing: a kill mid-migration is a case).
 */
function workspace({ seeded }: { seeded: boolean }) {
  const ws = workspaceIn(dir);
  if (seeded) seedWarehouse(template, ws.db);
  return { ...ws, args: ['sync', ...ws.local, ...ONE_PAIR_ARGS] };
}

// Every test uses its own account key so the credit counters of one never mix with another's.
const env = (key: string) => ({ GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: key });

/**
 * A sync in this process, for the runs that only set up or follow the one under test (which runs as
 * a child): the same engine the CLI wraps, without a second Node start and its imports.
 */
async function syncInProcess(ws: { db: string; archive: string }, on: Emulator, key: string): Promise<void> {
  const run = await syncVia({ emulator: on, dbPath: ws.db, archive: ws.archive }, ONE_PAIR, { key });
  expect(run.ok, run.ok ? '' : String(run.error)).toBe(true);
}

async function manifestCount(db: string): Promise<number> {
  const [row] = await query<{ n: number }>(db, `SELECT count(*)::INT n FROM sync.manifest`);
  return row!.n;
}

async function recorded(db: string): Promise<number> {
  const [row] = await query<{ n: number }>(db, `SELECT coalesce(sum(credits_spent), 0)::INT n FROM sync.runs`);
  return row!.n;
}

/** Opens `held` once the child says it is stopping (its signal handled), so what was held lands after the signal. */
function releaseWhenStopping(held: Gate) {
  return (child: ChildProcess) => {
    let seen = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (/^stopping/m.test(seen)) held.open();
    });
    child.once('exit', () => held.open());
  };
}

/** Both onSpawn hooks on one child. */
function both(a: (child: ChildProcess) => void, b: (child: ChildProcess) => void) {
  return (child: ChildProcess) => {
    a(child);
    b(child);
  };
}

describe('SIGINT and SIGTERM', () => {
  // Each signal in one phase here, the other phase's pairing below: both signals during the download
  // in 'a signal while file links are in flight' (one handler serves both; its exit code differs).
  const cases = [
    { signal: 'SIGINT' as const, phase: 'download', code: 130 },
    { signal: 'SIGTERM' as const, phase: 'load', code: 143 },
  ];

  it.each(cases)('$signal during $phase: exit $code, the run recorded as interrupted, the next run completes', async ({ signal, phase, code }) => {
    const ws = workspace({ seeded: true });
    const key = emulator.keys.pro;
    const creditsBefore = emulator.counters.credits(key);
    // During the download phase the storage holds every file until the child has taken the signal:
    // the downloads are in flight when it lands, however slow the machine. The child stands still at
    // the phase's line while the signal is sent (signalsAt), so a quick load cannot finish first.
    const held = gate();
    if (phase === 'download') emulator.faults.add({ where: 'storage', times: Infinity, action: { kind: 'hold', until: held.until } });
    const gated = signalsAt([{ at: new RegExp(`^${phase}`), signal }], env(key));
    const stopped = await runCli([...ws.args, '--verbose'], { ...gated, onSpawn: both(gated.onSpawn, releaseWhenStopping(held)) });
    held.open();
    emulator.faults.clear();
    expect(stopped.code, stopped.stderr).toBe(code);
    expect(stopped.stderr).toMatch(new RegExp(`interrupted by ${signal}`));
    const runs = await query<{ outcome: string; finished: boolean }>(ws.db, `SELECT outcome, finished_at IS NOT NULL finished FROM sync.runs`);
    expect(runs).toEqual([{ outcome: 'interrupted', finished: true }]);
    const after = await inspectWarehouse(ws.db, ws.archive);
    expect({ ...after, loadedFiles: 0 }).toEqual(consistent(0));
    // The file in flight is finished either way (a paid download is never thrown away), so every
    // credit the emulator charged is recorded.
    const spentStopped = emulator.counters.credits(key) - creditsBefore;
    expect(await recorded(ws.db)).toBe(spentStopped);

    await syncInProcess(ws, emulator, key);
    const files = await manifestCount(ws.db);
    expect(await inspectWarehouse(ws.db, ws.archive)).toEqual(consistent(files));
    // What the stopped run paid for was archived and is loaded for no credit: nothing paid twice.
    expect(emulator.counters.credits(key) - creditsBefore).toBe(files);
  });
});

describe('a signal while file links are in flight', () => {
  const LINK = /\/history\/files\/[^/?]+\/[^/?]+\/\d{4}-\d{2}-\d{2}\//;

  it.each([
    { signal: 'SIGINT' as const, code: 130 },
    { signal: 'SIGTERM' as const, code: 143 },
  ])('$signal: the 4 links in flight are answered, counted and their files archived; the rerun pays only for the rest', async ({ signal, code }) => {
    // Its own emulator: its credit and hit counters then belong to this test alone.
    const emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 2, expirations: 1, strikes: 4, seed: 9, symbols: ['BTC'] });
    try {
      const ws = workspace({ seeded: true });
      const env = { GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.pro };
      // The server holds each of the first 4 link requests, uncharged, until the child says it is
      // stopping: the signal is sent once all 4 have arrived, so it lands while they are in flight.
      const held = gate();
      emulator.faults.add({ where: 'api', match: LINK, times: 4, action: { kind: 'hold', until: held.until } });
      const stopped = await runCli([...ws.args, '--concurrency', '4'], {
        env,
        onSpawn: both(signalWhenLinksArrive(emulator, LINK, 4, signal), releaseWhenStopping(held)),
      });
      held.open();
      expect(stopped.code, stopped.stderr).toBe(code);
      expect(stopped.stderr).toMatch(new RegExp(`interrupted by ${signal}`));
      expect(emulator.counters.hits(LINK)).toBe(4); // no link asked for after the signal
      const charged = emulator.counters.credits(emulator.keys.pro);
      expect(charged).toBe(4);
      expect(await recorded(ws.db)).toBe(charged);
      const archived = (await listFiles(ws.archive)).filter((f) => f.endsWith('.csv.gz'));
      expect(archived).toHaveLength(charged); // every paid link's file is in the archive
      expect(await inspectWarehouse(ws.db, ws.archive)).toEqual(consistent(0));

      await syncInProcess(ws, emulator, emulator.keys.pro);
      const files = await manifestCount(ws.db);
      expect(await inspectWarehouse(ws.db, ws.archive)).toEqual(consistent(files));
      expect(emulator.counters.credits(emulator.keys.pro)).toBe(files); // the 4 archived cost nothing more
      expect(await recorded(ws.db)).toBe(files);
    } finally {
      await emulator.close();
    }
  });
});

/** Sends `signal` to the child once the emulator has received `count` requests matching `pattern`. */
function signalWhenLinksArrive(emulator: Emulator, pattern: RegExp, count: number, signal: NodeJS.Signals) {
  return (child: ChildProcess) => {
    const timer = setInterval(() => {
      if (emulator.counters.hits(pattern) < count) return;
      clearInterval(timer);
      child.kill(signal);
    }, 5);
    child.once('exit', () => clearInterval(timer));
  };
}

// Two passes over the five phases: the first kills as each phase is announced, the second at a random
// moment after it. GEXWH_KILL_RUNS raises it for a soak run (further passes are random too).
export const KILL_RUNS = Number(process.env.GEXWH_KILL_RUNS ?? 10);
const PHASES = ['coverage', 'manifests', 'plan', 'download', 'load'] as const;

describe('kill -9 at random points', () => {
  it(`${KILL_RUNS} runs killed in every phase, as it starts and at a random moment in it: the warehouse is consistent after every one`, async () => {
    // Its own emulator: this loop moves the clock, which must not change what other tests see.
    const emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 2, expirations: 3, strikes: 12, seed: 9, symbols: ['BTC'] });
    try {
      await killLoop(emulator);
    } finally {
      await emulator.close();
    }
  }, 360_000); // 10 runs: 21-34 s at load 4-5 (the 20-run loop took 137 s at load 12)
});

async function killLoop(emulator: Emulator): Promise<void> {
  {
    const ws = workspace({ seeded: false });
    const env = (key: string) => ({ GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: key });
    const key = emulator.keys.trial;
    const random = seededRandom(Number(process.env.GEXWH_KILL_SEED ?? 20260311));
    const startCredits = emulator.counters.credits(key);
    const landed: Record<string, number> = {};
    let killed = 0;
    for (let run = 0; run < KILL_RUNS; run++) {
      // A new session every other run, so most runs have files to download and load.
      if (run % 2 === 1) emulator.clock.advance(24 * 3600 * 1000);
      const phase = PHASES[run % PHASES.length]!;
      const delayMs = run < PHASES.length ? 0 : Math.floor(random() * 150);
      const result = await runCli([...ws.args, '--verbose', '--concurrency', '2'], {
        env: env(key),
        onSpawn(child) {
          let armed = false;
          child.stderr?.on('data', (chunk: Buffer) => {
            if (armed || !new RegExp(`^${phase}`, 'm').test(chunk.toString())) return;
            armed = true;
            setTimeout(() => child.kill('SIGKILL'), delayMs);
          });
        },
      });
      if (result.signal === 'SIGKILL') {
        killed++;
        landed[phase] = (landed[phase] ?? 0) + 1;
      } else {
        expect(result.code, result.stderr).toBe(0); // finished before the kill landed
      }
      if (!existsSync(ws.db)) continue; // killed before the warehouse was created
      const report = await inspectWarehouse(ws.db, ws.archive);
      // Temp files of a killed run may remain until the next run removes them; they are never counted.
      expect({ ...report, loadedFiles: 0, tempFiles: [] }, `run ${run}, killed in ${phase} after ${delayMs} ms`).toEqual(consistent(0));
    }
    // The loop proves something only if kills landed, in every phase.
    expect(killed).toBeGreaterThan(KILL_RUNS / 2);
    expect(Object.keys(landed).sort()).toEqual([...PHASES].sort());
    await syncInProcess(ws, emulator, key);
    const [manifest] = await query<{ n: number }>(ws.db, `SELECT count(*)::INT n FROM sync.manifest`);
    expect(await inspectWarehouse(ws.db, ws.archive)).toEqual(consistent(manifest!.n));
    // Credits: one per file, plus at most the downloads in flight (concurrency 2) of each killed run.
    const spent = emulator.counters.credits(key) - startCredits;
    expect(spent).toBeGreaterThanOrEqual(manifest!.n);
    expect(spent - manifest!.n).toBeLessThanOrEqual(2 * killed);
    console.info(
      `kill -9 loop: ${KILL_RUNS} runs, ${killed} killed (${JSON.stringify(landed)}), ${manifest!.n} files, ${spent - manifest!.n} credits paid twice`,
    );
  }
}

describe('the warehouse held or broken', () => {
  it('DuckDB file held open by another process: exit 5 naming it, or waits with --wait-lock', async () => {
    const ws = workspace({ seeded: true });
    await syncInProcess(ws, emulator, emulator.keys.admin);
    // Another process (a query left open) holds DuckDB's own file lock; no gexwh lock file exists.
    const holder = await holdDatabase(ws.db);
    try {
      // The holder is another process; gexwh itself can run in this one (DuckDB's lock is per process).
      const blocked = await runCliInProcess([...ws.args, '--wait-lock', '0'], { env: env(emulator.keys.admin) });
      expect(blocked.code, blocked.stderr).toBe(5);
      expect(blocked.stderr).toContain(String(holder.pid));
      const waiting = runCliInProcess([...ws.args, '--wait-lock', '30'], { env: env(emulator.keys.admin) });
      // Release it after a moment: the waiting sync then goes on and finishes.
      setTimeout(() => holder.kill('SIGTERM'), 500);
      const waited = await waiting;
      expect(waited.code, waited.stderr).toBe(0);
    } finally {
      holder.kill('SIGKILL');
    }
    expect(await inspectWarehouse(ws.db, ws.archive)).toEqual(consistent(await manifestCount(ws.db)));
  });

  it('a corrupted DuckDB file: a clear error, the archive intact, and the next sync restores the same tables at no credit', async () => {
    const ws = workspace({ seeded: true });
    const key = emulator.keys.admin;
    await syncInProcess(ws, emulator, key);
    const before = await tableChecksums(ws.db);
    const archived = await listFiles(ws.archive);
    writeFileSync(ws.db, Buffer.alloc(64 * 1024, 0x5a)); // garbage where the database was
    const broken = await runCliInProcess(ws.args, { env: env(key) });
    // Nothing of DuckDB's format is left (its headers too are gone): the path is named as not a
    // database, with no advice to rebuild into it (a header-only damage: damaged-warehouse.test.ts).
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/gex\.duckdb is not a DuckDB database \(it does not start with a DuckDB file header\): check --db/);
    expect(broken.stderr).not.toMatch(/gexwh rebuild/);
    expect(broken.stderr).not.toMatch(/\n\s+at /);
    expect(await listFiles(ws.archive)).toEqual(archived);

    // Recovery: the damaged file moved away, a sync reloads the archive (no credit) and lists nothing twice.
    rmSync(ws.db);
    const credits = emulator.counters.credits(key);
    await syncInProcess(ws, emulator, key);
    expect(emulator.counters.credits(key)).toBe(credits);
    expect(await tableChecksums(ws.db)).toEqual(before);
    expect(await inspectWarehouse(ws.db, ws.archive)).toEqual(consistent(archived.length));
  });
});

/** A child process that opens the warehouse read-write and keeps it open until killed. */
async function holdDatabase(db: string): Promise<ChildProcess> {
  const { spawn } = await import('node:child_process');
  const script = `
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const instance = await DuckDBInstance.create(${JSON.stringify(db)});
    await instance.connect();
    process.stdout.write('held\\n');
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'], cwd: process.cwd() });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`holder exited ${code}`)));
  });
  return child;
}
