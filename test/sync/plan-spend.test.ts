// `sync` does exactly what `plan` printed: after a lost warehouse with part of the archive still there,
// plan's per-pair rows add up to its totals, and the sync then pays for exactly the files plan counted
// per pair (the emulator counts the file links), never more than --max-credits, loading the archived
// rest for free. The case first, then random archives and budgets (fast-check).
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fc } from '../helpers/property.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotBench, type Bench, type BenchSnapshot } from '../helpers/sync.js';
import type { SyncSummary } from '../../src/sync/run.js';

const PAIRS = [
  { exchange: 'deribit', symbol: 'BTC' },
  { exchange: 'tradfi', symbol: 'SPY' },
];
const SELECTION = { exchange: 'deribit,tradfi', symbol: 'BTC,SPY' };

let snapshot: BenchSnapshot;
beforeAll(async () => {
  snapshot = await snapshotBench({ days: 3, symbols: ['BTC', 'SPY'] }, async (bench) => {
    await bench.sync(SELECTION);
  });
});
afterAll(async () => {
  await snapshot.remove();
});

/** The archived daily files, sorted (paths relative to the archive). */
function archived(bench: Bench): string[] {
  return PAIRS.flatMap(({ exchange, symbol }) => readdirSync(join(bench.archive, exchange, symbol)).map((name) => `${exchange}/${symbol}/${name}`)).sort();
}

/** The warehouse lost, and of the archive only `keep` left. */
function loseWarehouse(bench: Bench, keep: (path: string, index: number) => boolean): number {
  rmSync(bench.dbPath, { force: true });
  rmSync(`${bench.dbPath}.wal`, { force: true });
  let kept = 0;
  archived(bench).forEach((path, index) => {
    if (keep(path, index)) kept++;
    else rmSync(join(bench.archive, path));
  });
  return kept;
}

const linksOf = (bench: Bench, exchange: string, symbol: string) =>
  bench.emulator.counters.hits(new RegExp(`/history/files/${exchange}/${symbol}/\\d{4}-\\d{2}-\\d{2}/`));

function totalsOf(summary: SyncSummary) {
  const sum = (field: 'toDownload' | 'toReload' | 'deferred') => summary.plan.pairs.reduce((total, pair) => total + pair[field], 0);
  return {
    rows: { download: sum('toDownload'), reload: sum('toReload'), deferred: sum('deferred') },
    totals: { download: summary.plan.toDownload, reload: summary.plan.toReload, deferred: summary.plan.deferred },
  };
}

/** Plan, then sync with the same budget: what was printed and what was spent, per pair. */
async function planThenSync(bench: Bench, maxCredits: number) {
  const plan = await bench.sync({ ...SELECTION, maxCredits }, { dryRun: true, command: 'plan' });
  const before = PAIRS.map((pair) => linksOf(bench, pair.exchange, pair.symbol));
  const creditsBefore = bench.emulator.counters.credits(bench.emulator.keys.pro);
  const synced = await bench.sync({ ...SELECTION, maxCredits });
  const spent = PAIRS.map((pair, i) => ({ ...pair, links: linksOf(bench, pair.exchange, pair.symbol) - before[i]! }));
  return { plan, synced, spent, credits: bench.emulator.counters.credits(bench.emulator.keys.pro) - creditsBefore };
}

describe('plan = sync after a lost warehouse', () => {
  it('4 of 9 files still archived, --max-credits 2: rows 2 / 4 / 3 as the totals, and the sync pays for those 2 and reloads the 4', async () => {
    const bench = await snapshot.start();
    try {
      // deribit/BTC's three sessions: keep the oldest session's three files and one more (4 of 9).
      const btc = archived(bench).filter((path) => path.startsWith('deribit/'));
      const keep = new Set([...btc.filter((path) => path.includes('2026-03-08')), btc.find((path) => path.includes('2026-03-09'))!]);
      rmSync(bench.dbPath, { force: true });
      for (const path of archived(bench)) if (!keep.has(path)) rmSync(join(bench.archive, path));
      const plan = await bench.sync({ exchange: 'deribit', symbol: 'BTC', maxCredits: 2 }, { dryRun: true, command: 'plan' });
      expect(plan.plan.pairs.map((p) => [p.exchange, p.symbol, p.toDownload, p.toReload, p.deferred])).toEqual([['deribit', 'BTC', 2, 4, 3]]);
      expect([plan.plan.toDownload, plan.plan.toReload, plan.plan.deferred]).toEqual([2, 4, 3]);

      const synced = await bench.sync({ exchange: 'deribit', symbol: 'BTC', maxCredits: 2 });
      expect(synced).toMatchObject({ creditsSpent: 2, filesLoaded: 6, filesDeferred: 3, plan: { toDownload: 2, toReload: 4, deferred: 3 } });
      expect(bench.emulator.counters.credits(bench.emulator.keys.pro)).toBe(2);
    } finally {
      await bench.close();
    }
  });

  it('random archives and budgets: plan per pair = totals = what the sync pays per pair, never above --max-credits', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 15, maxLength: 15 }), fc.integer({ min: 0, max: 12 }), async (kept, maxCredits) => {
        const bench = await snapshot.start();
        try {
          const archivedLeft = loseWarehouse(bench, (_path, index) => kept[index] === true);
          const { plan, synced, spent, credits } = await planThenSync(bench, maxCredits);
          const { rows, totals } = totalsOf(plan);
          expect(rows).toEqual(totals);
          expect(plan.plan.toReload).toBe(archivedLeft);
          expect(spent.map(({ exchange, symbol, links }) => [exchange, symbol, links])).toEqual(
            plan.plan.pairs.map((p) => [p.exchange, p.symbol, p.toDownload]),
          );
          expect(credits).toBe(plan.plan.toDownload);
          expect(credits).toBeLessThanOrEqual(maxCredits);
          expect({ ...synced.plan, files: [] }).toEqual({ ...plan.plan, files: [] });
          expect(synced.filesLoaded).toBe(plan.plan.toDownload + plan.plan.toReload);
        } finally {
          await bench.close();
        }
      }),
      { numRuns: 3 },
    );
  }, 240_000);
});
