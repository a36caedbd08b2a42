// `plan` prints what `sync` with the same flags then does, through the CLI: after a lost warehouse with
// part of the archive left, and with a credit cap, plan's JSON (per pair and in total) is the plan the
// sync carries out, the files it paid for are the ones plan listed (and the emulator charged that
// many credits), and the files loaded are plan's downloads plus its reloads from the archive. (The engine's own property test against random
// archives: test/sync/plan-spend.test.ts.)
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { snapshotBench, type BenchSnapshot } from '../helpers/sync.js';

let snapshot: BenchSnapshot;
beforeAll(async () => {
  snapshot = await snapshotBench({ days: 3, symbols: ['BTC', 'SPY'] }, async (bench) => {
    await bench.sync({ exchange: 'deribit,tradfi', symbol: 'BTC,SPY' });
  });
});
afterAll(() => snapshot.remove());

interface PlanPair {
  exchange: string;
  symbol: string;
  to_download: number;
  to_reload: number;
  deferred: number;
}
interface PlannedFile {
  exchange: string;
  symbol: string;
  session_date: string;
  file: string;
}
interface PlanJson {
  plan: { pairs: PlanPair[]; files: PlannedFile[]; to_download: number; to_reload: number; deferred: number };
}

const PAIRS = ['deribit/BTC', 'tradfi/SPY'];
/** The archived daily files as `exchange/symbol/date_kind`. */
const archived = (root: string) => PAIRS.flatMap((pair) => readdirSync(join(root, pair)).map((name) => `${pair}/${name.replace(/\.csv\.gz$/, '')}`)).sort();

describe('plan = sync, through the CLI', () => {
  it.each([
    { name: 'a cap below what is missing', cap: '3' },
    { name: 'a cap above it', cap: '100' },
  ])('lost warehouse, every other archived file left, $name: the sync does what plan printed', async ({ cap }) => {
    const bench = await snapshot.start();
    try {
      rmSync(bench.dbPath, { force: true });
      archived(bench.archive).forEach((file, index) => {
        if (index % 2 === 0) rmSync(join(bench.archive, `${file}.csv.gz`));
      });
      const kept = archived(bench.archive);
      const args = ['--db', bench.dbPath, '--archive', bench.archive, '--exchange', 'deribit,tradfi', '--symbol', 'BTC,SPY', '--max-credits', cap, '--json'];
      const env = { GEX_BASE_URL: bench.emulator.baseUrl, GEX_API_KEY: bench.emulator.keys.pro };
      const planned = await runCliInProcess(['plan', ...args], { env });
      expect(planned.code, planned.stderr).toBe(0);
      const plan = (JSON.parse(planned.stdout) as PlanJson).plan;
      expect(plan.to_reload).toBe(kept.length);
      // plan's files: what it loads, the archived ones for free and the rest paid for.
      const listed = plan.files.map((f) => `${f.exchange}/${f.symbol}/${f.session_date}_${f.file}`);
      const paidFor = listed.filter((file) => !kept.includes(file));
      expect(listed.filter((file) => kept.includes(file))).toHaveLength(kept.length);
      expect(paidFor).toHaveLength(plan.to_download);
      expect(bench.emulator.counters.credits(bench.emulator.keys.pro)).toBe(0);

      const synced = await runCliInProcess(['sync', ...args], { env });
      expect(synced.code, synced.stderr).toBe(0);
      const summary = JSON.parse(synced.stdout) as PlanJson & { files_loaded: number; credits_spent: number };
      expect({ ...summary.plan, files: [] }).toEqual({ ...plan, files: [] });
      expect(archived(bench.archive)).toEqual([...kept, ...paidFor].sort());
      expect(summary.credits_spent).toBe(plan.to_download);
      expect(bench.emulator.counters.credits(bench.emulator.keys.pro)).toBe(plan.to_download);
      expect(summary.files_loaded).toBe(plan.to_download + plan.to_reload);
    } finally {
      await bench.close();
    }
  });
});
