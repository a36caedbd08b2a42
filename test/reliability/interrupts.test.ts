// Interrupts lose nothing, through the built CLI and real signals (as a user at a terminal or a
// supervisor sends them): the first SIGINT during the load is answered at once and stops the load
// after the file in flight, the run is recorded as interrupted; a second SIGINT, or kill -9, aborts,
// and still every paid file is loaded or listed as waiting by `status`, and the run records' credits
// equal what the emulator charged once the next `load` has run. Assertions are on states (files
// loaded or waiting, credits), never on how long anything took. The child stands still at each line a
// signal waits for (test/helpers/signals.ts) until the signal is sent: a loaded machine cannot let it
// finish the load first.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { runCli, runCliInProcess } from '../helpers/cli.js';
import { consistent, inspectWarehouse } from '../helpers/invariants.js';
import { signalsAt, type SignalStep } from '../helpers/signals.js';
import { workspaceIn } from '../helpers/workspace.js';
import { journalState } from '../helpers/journal-state.js';
import { readAttached as query } from '../helpers/attached-warehouse.js';

let emulator: Emulator;
let dir: string;

beforeAll(async () => {
  // combined/BTC and tradfi/SPY: 4 crypto and 2 TradFi sessions, 18 files (small chains): enough for
  // a stop after the file in flight to leave files waiting.
  emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 4, expirations: 1, strikes: 4, seed: 13, symbols: ['BTC', 'SPY'] });
  dir = mkdtempSync(join(tmpdir(), 'gexwh-interrupts-'));
});
afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

// Unlimited credits: three full syncs of one file, counted per test as a difference.
const key = () => emulator.keys.admin;
const env = () => ({ GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: key() });
const charged = () => emulator.counters.credits(key());
const PAIRS = ['--exchange', 'combined,tradfi', '--symbol', 'BTC,SPY'];

const loadedFiles = async (db: string) => (await query<{ n: number }>(db, `SELECT count(*)::INT n FROM sync.files WHERE status = 'loaded'`))[0]!.n;
const recordedCredits = async (db: string) => (await query<{ n: number }>(db, `SELECT coalesce(sum(credits_spent), 0)::INT n FROM sync.runs`))[0]!.n;

const FILES = 18;
const LOAD_STARTS = /^load: \d+ files/;
const FIRST_ANSWERED = /stopping after the file in flight/;

/**
 * runCli options that send `signals` once the child's --verbose stderr announces the load, each after
 * the one before is answered; the child waits at each announcement until its signal is sent.
 */
function signalsDuringLoad(signals: NodeJS.Signals[]) {
  const steps: SignalStep[] = [{ at: LOAD_STARTS, signal: signals[0] }];
  // The first SIGINT is answered; the child then waits there for the second, or goes on alone.
  if (signals[0] === 'SIGINT') steps.push({ at: FIRST_ANSWERED, signal: signals[1] });
  return signalsAt(steps, env());
}

interface StatusJson {
  waiting_to_load: { files: number; files_of_stopped_run: number };
  stopped_run: { files: number; credits: number } | null;
  credits_spent: { all_runs: number; in_journal: number };
}

async function status(ws: { local: string[] }): Promise<StatusJson> {
  const result = await runCliInProcess(['status', '--json', ...ws.local], { env: { GEX_BASE_URL: 'http://127.0.0.1:9' } });
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as StatusJson;
}

describe('the first SIGINT during the load', () => {
  it('is answered at once, stops after the file in flight, records the run as interrupted; every paid file is loaded or waiting', async () => {
    const ws = workspaceIn(dir);
    const before = charged();
    const stopped = await runCli(['sync', '--verbose', ...PAIRS, ...ws.local], signalsDuringLoad(['SIGINT']));
    expect(stopped.code, stopped.stderr).toBe(130);
    const said = stopped.stderr.indexOf('stopping after the file in flight; Ctrl-C again to abort');
    expect(said).toBeGreaterThan(stopped.stderr.indexOf('load: '));
    expect(said).toBeLessThan(stopped.stderr.indexOf('error: interrupted by SIGINT'));
    const paid = charged() - before;
    expect(paid).toBe(FILES);

    const [run] = await query<{ outcome: string; credits: number; finished: boolean }>(
      ws.db,
      `SELECT outcome, credits_spent::INT credits, finished_at IS NOT NULL finished FROM sync.runs`,
    );
    expect(run).toEqual({ outcome: 'interrupted', credits: paid, finished: true });
    const loaded = await loadedFiles(ws.db);
    const seen = await status(ws);
    expect(seen.waiting_to_load.files).toBeGreaterThan(0); // the stop kept files from loading
    expect(loaded + seen.waiting_to_load.files).toBe(paid);
    expect(seen.stopped_run).toBeNull();
    expect(seen.credits_spent).toMatchObject({ all_runs: paid, in_journal: 0 });

    const load = await runCliInProcess(['load', ...ws.local]);
    expect(load.code, load.stderr).toBe(0);
    expect(charged() - before).toBe(paid);
    expect(await inspectWarehouse(ws.db, ws.archive)).toEqual(consistent(paid));
  });
});

describe('an abort after the first signal', () => {
  it.each([
    { how: 'a second SIGINT', signals: ['SIGINT', 'SIGINT'] as NodeJS.Signals[], code: 130 },
    { how: 'kill -9', signals: ['SIGKILL'] as NodeJS.Signals[], code: null },
  ])(
    '$how during the load: status lists every paid file not loaded, and after gexwh load the run records hold the credits the API counted',
    async ({ signals }) => {
      const ws = workspaceIn(dir);
      const before = charged();
      const aborted = await runCli(['sync', '--verbose', ...PAIRS, ...ws.local], signalsDuringLoad(signals));
      if (signals[0] === 'SIGKILL') expect(aborted.signal).toBe('SIGKILL');
      else expect(aborted.code, aborted.stderr).toBe(130);
      const paid = charged() - before;
      expect(paid).toBe(FILES);
      // Nothing graceful ran: the log of what was spent is what is left.
      expect((await journalState(ws.archive)).stopped).toMatchObject({ credits: paid });

      const loaded = await loadedFiles(ws.db);
      const seen = await status(ws);
      expect(seen.stopped_run).toMatchObject({ credits: paid });
      // Right after the abort, before any load: every paid file not loaded is listed as waiting, and the
      // run's own record (its row still open) counts the credits its log wrote down.
      expect(seen.waiting_to_load.files_of_stopped_run).toBe(seen.stopped_run!.files);
      expect(loaded + seen.waiting_to_load.files).toBe(paid);
      expect(seen.credits_spent).toMatchObject({ all_runs: paid, in_journal: 0 });

      const load = await runCliInProcess(['load', ...ws.local]);
      expect(load.code, load.stderr).toBe(0);
      expect(await recordedCredits(ws.db)).toBe(paid);
      const runs = await query<{ command: string; outcome: string }>(ws.db, `SELECT command, outcome FROM sync.runs ORDER BY run_id`);
      expect(runs).toEqual([
        { command: 'sync', outcome: 'interrupted' },
        { command: 'load', outcome: 'ok' },
      ]);
      expect(await inspectWarehouse(ws.db, ws.archive)).toEqual(consistent(paid));
      expect((await status(ws)).credits_spent).toMatchObject({ all_runs: paid, in_journal: 0 });

      // The next sync pays for nothing: every file was paid once. The report counts what the records hold.
      const next = await runCliInProcess(['sync', ...PAIRS, ...ws.local], { env: env() });
      expect(next.code, next.stderr).toBe(0);
      expect(charged() - before).toBe(paid);
      if (signals[0] === 'SIGINT') {
        const report = join(ws.root, 'report.html');
        expect((await runCliInProcess(['report', '--out', report, ...ws.local])).code).toBe(0);
        expect(readFileSync(report, 'utf8')).toContain(`credits spent by all recorded runs: ${paid}`);
      }
    },
  );
});
