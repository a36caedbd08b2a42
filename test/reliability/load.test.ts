// Reliability matrix, load: consecutive daily runs with the emulator's clock advancing a day each time
// and seeded random faults on. At the end the warehouse must equal a clean single sync of the same
// history (table checksums), and the credits charged must equal the files archived plus the retries
// the faults forced (and what gexwh recorded). The faults are dealt from a shuffled deck of the whole
// palette, so every kind lands at least once: the runs go on until the deck is used (10 runs with the
// default seed), or for GEXWH_SOAK_RUNS runs if more (npm run soak).
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { FaultRule } from '../../emulator/index.js';
import { addDays } from '../../src/time/dates.js';
import { consistent, inspectWarehouse, tableChecksums } from '../helpers/invariants.js';
import { ONE_PAIR, recordedCredits, syncVia } from '../helpers/reliability.js';
import { listFiles, startBench, type Bench } from '../helpers/sync.js';
import { seededRandom } from '../helpers/random.js';

const MIN_RUNS = Number(process.env.GEXWH_SOAK_RUNS ?? 6);
const SEED = Number(process.env.GEXWH_SOAK_SEED ?? 42);

let bench: Bench | undefined;
afterEach(async () => {
  await bench?.close();
  bench = undefined;
});

const FILES = ['levels', 'strikes_total', 'strikes_by_expiry'] as const;

/** A fault aimed at one file of the session the run will download, and the credits it forces. */
type Palette = (date: string, file: string) => { rule: FaultRule; forced: number };
const PALETTE: Record<string, Palette> = {
  api503Burst: (d, f) => ({
    rule: { where: 'api', match: new RegExp(`${d}/${f}$`), times: 2, action: { kind: 'status', status: 503, error: 'files_unavailable' } },
    forced: 0,
  }),
  apiReset: (d, f) => ({ rule: { where: 'api', match: new RegExp(`${d}/${f}$`), times: 2, action: { kind: 'drop' } }, forced: 0 }),
  listing500: () => ({ rule: { where: 'api', match: /\/history\/files\/deribit\/BTC(\?|$)/, times: 2, action: { kind: 'status', status: 500 } }, forced: 0 }),
  storageDrop: (d, f) => ({ rule: { where: 'storage', match: new RegExp(`${d}/${f}`), times: 2, action: { kind: 'drop' } }, forced: 0 }),
  storage503: (d, f) => ({ rule: { where: 'storage', match: new RegExp(`${d}/${f}`), times: 2, action: { kind: 'status', status: 503 } }, forced: 0 }),
  truncateOnce: (d, f) => ({ rule: { where: 'storage', match: new RegExp(`${d}/${f}`), times: 1, action: { kind: 'truncate' } }, forced: 0 }),
  corruptOnce: (d, f) => ({ rule: { where: 'storage', match: new RegExp(`${d}/${f}`), times: 1, action: { kind: 'corrupt' } }, forced: 0 }),
  expireLink: (d, f) => ({ rule: { where: 'api', match: new RegExp(`${d}/${f}$`), times: 1, action: { kind: 'expire_link' } }, forced: 1 }),
  // Faults that outlast the run: the file is paid, fails, and is paid again by the next run.
  corruptAlways: (d, f) => ({ rule: { where: 'storage', match: new RegExp(`${d}/${f}`), times: Infinity, action: { kind: 'corrupt' } }, forced: 1 }),
  storageDown: (d, f) => ({ rule: { where: 'storage', match: new RegExp(`${d}/${f}`), times: Infinity, action: { kind: 'status', status: 503 } }, forced: 1 }),
};

describe('load', () => {
  it(`consecutive daily runs (at least ${MIN_RUNS}) with every kind of fault at random end equal to one clean sync, credits = files + forced retries`, async () => {
    bench = await startBench({ days: 2, symbols: ['BTC'] });
    const { emulator } = bench;
    const random = seededRandom(SEED);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    let forced = 0;
    let injected = 0;
    let failedRuns = 0;
    const kinds = Object.keys(PALETTE);
    const deal = deck(kinds, random);
    const dealt = new Set<string>();

    let run = 0;
    for (; run < MIN_RUNS || dealt.size < kinds.length; run++) {
      if (run > 0) emulator.clock.advance(24 * 3600 * 1000);
      const newest = addDays('2026-03-10', run); // the session this run downloads for the first time
      const faults = Math.floor(random() * 4); // 0 to 3 faults this run
      for (let i = 0; i < faults; i++) {
        const kind = deal();
        dealt.add(kind);
        const { rule, forced: cost } = PALETTE[kind]!(newest, pick(FILES));
        emulator.faults.add(rule);
        injected++;
        forced += cost;
      }
      const result = await syncVia(bench);
      if (!result.ok) failedRuns++;
      emulator.faults.clear();
      const report = await inspectWarehouse(bench.dbPath, bench.archive);
      expect({ ...report, loadedFiles: 0 }, `run ${run}`).toEqual(consistent(0));
    }
    // A last run without faults picks up whatever the last faulted run left failed.
    expect((await syncVia(bench)).ok).toBe(true);

    const archived = (await listFiles(bench.archive)).filter((f) => f.endsWith('.csv.gz')).length;
    const [manifest] = await bench.query<{ n: number }>(`SELECT count(*)::INT n FROM sync.manifest`);
    expect(archived).toBe(manifest!.n);
    expect(await inspectWarehouse(bench.dbPath, bench.archive)).toEqual(consistent(archived));
    const charged = emulator.counters.credits(emulator.keys.pro);
    expect(charged).toBe(archived + forced);
    expect(await recordedCredits(bench)).toBe(charged);

    // The same history synced once, cleanly, into another warehouse (another account's credits).
    const clean = { ...bench, dbPath: `${bench.dir}/clean.duckdb`, archive: `${bench.dir}/clean-raw` };
    expect((await syncVia(clean, ONE_PAIR, { key: emulator.keys.admin })).ok).toBe(true);
    expect(await tableChecksums(bench.dbPath)).toEqual(await tableChecksums(clean.dbPath));
    // The key is in no file the runs wrote (archive, warehouse, WAL, temp files).
    for (const file of await listFiles(bench.dir)) expect(readFileSync(file).includes(emulator.keys.pro), file).toBe(false);
    expect(emulator.counters.storageTripwire).toBe(0);
    console.info(
      `load: ${run} daily runs, ${injected} faults injected, ${failedRuns} runs ended partial, ${archived} files, ${charged} credits (${forced} forced by faults), 0 rows lost, 0 duplicates`,
    );
  }, 180_000);
});

/** Draws the items in a shuffled order, every one once before any repeats (then a new shuffle). */
function deck<T>(items: readonly T[], random: () => number): () => T {
  let left: T[] = [];
  return () => {
    if (left.length === 0) {
      left = [...items];
      for (let i = left.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [left[i], left[j]] = [left[j]!, left[i]!];
      }
    }
    return left.pop()!;
  };
}
