import { describe, expect, it } from 'vitest';
import { planSync, type PlanInput } from '../../src/sync/download-plan.js';
import { listLedger, recordFileStatus } from '../../src/warehouse/ledger.js';
import { listManifest, upsertManifest } from '../../src/warehouse/manifest.js';
import { readPlanState, type PlanStateFilter } from '../../src/warehouse/planner-input.js';
import { seededRandom } from '../helpers/random.js';
import { withWarehouse } from './fixtures.js';
import type { FileKind } from '../../src/core/file-kinds.js';
import type { FileStatus, ManifestRow } from '../../src/core/rows.js';

const KINDS: FileKind[] = ['levels', 'strikes_total', 'strikes_by_expiry'];
const PAIRS = [
  { exchange: 'bybit', symbol: 'BTC' },
  { exchange: 'bybit', symbol: 'ETH' },
  { exchange: 'cboe', symbol: 'SPX' },
];
// Days enough for every ledger case to come up many times per pair and kind (each row is a ledger write).
const DAYS = 15;
const LEDGER_CASES: (FileStatus | 'none' | 'older_loaded')[] = ['none', 'loaded', 'older_loaded', 'failed_verify', 'failed_load', 'superseded'];

function sha(n: number): string {
  return n.toString(16).padStart(64, '0');
}

function dateOf(day: number): string {
  return new Date(Date.UTC(2026, 0, 1) + day * 86_400_000).toISOString().slice(0, 10);
}

/** A manifest of 3 pairs × DAYS days × 3 files whose ledger states are drawn from a seeded PRNG. */
async function seedState(conn: Parameters<typeof upsertManifest>[0], seed: number): Promise<Set<string>> {
  const drawn = new Set<string>();
  const random = seededRandom(seed);
  let next = 1;
  for (const pair of PAIRS) {
    const rows: ManifestRow[] = [];
    for (let day = 0; day < DAYS; day++) {
      for (const file of KINDS) {
        const sessionDate = dateOf(day);
        const current = sha(next++);
        rows.push({ session_date: sessionDate, file, rows: 10, bytes: 100, sha256: current, schema_version: 1 });
        const state = LEDGER_CASES[Math.floor(random() * LEDGER_CASES.length)]!;
        drawn.add(state);
        const key = { ...pair, sessionDate, file };
        if (state === 'none') continue;
        if (state === 'older_loaded') {
          await recordFileStatus(conn, { ...key, sha256: sha(next++ + 1_000_000) }, 'loaded');
          if (random() < 0.5) await recordFileStatus(conn, { ...key, sha256: current }, 'failed_verify', 'bad sha');
          continue;
        }
        const archivePath = state === 'failed_load' && random() < 0.7 ? `/archive/${pair.symbol}/${sessionDate}_${file}.csv.gz` : null;
        await recordFileStatus(conn, { ...key, sha256: current, archivePath }, state, state.startsWith('failed') ? 'x' : undefined);
      }
    }
    await upsertManifest(conn, pair.exchange, pair.symbol, rows, new Date('2026-02-01T00:00:00Z'));
  }
  return drawn;
}

const BUDGET = { creditsRemaining: 25, creditsLimit: 200, reserve: 0 };

const FILTERS: { name: string; filter: PlanStateFilter }[] = [
  { name: 'everything', filter: { pairs: PAIRS, files: KINDS } },
  { name: 'one pair, two kinds', filter: { pairs: [PAIRS[1]!], files: ['levels', 'strikes_by_expiry'] } },
  { name: 'a date window', filter: { pairs: PAIRS, files: KINDS, since: dateOf(3), until: dateOf(10) } },
  { name: 'since only', filter: { pairs: [PAIRS[0]!, PAIRS[2]!], files: ['strikes_total'], since: dateOf(DAYS - 4) } },
];

describe('readPlanState', () => {
  for (const seed of [1, 2, 3]) {
    it(`plans exactly as the full manifest and ledger would (seed ${seed}, ${FILTERS.length} selections)`, async () => {
      await withWarehouse(async (wh) => {
        expect([...(await seedState(wh.connection, seed))].sort()).toEqual([...LEDGER_CASES].sort());
        const manifest = await listManifest(wh.connection);
        const ledger = await listLedger(wh.connection);
        for (const { name, filter } of FILTERS) {
          const common: Omit<PlanInput, 'manifest' | 'ledger'> = {
            coverage: filter.pairs,
            selection: { files: filter.files, ...(filter.since ? { since: filter.since } : {}), ...(filter.until ? { until: filter.until } : {}) },
            budget: BUDGET,
            order: 'newest',
          };
          const full = planSync({ ...common, manifest, ledger });
          const state = await readPlanState(wh.connection, filter);
          const fromSql = planSync({ ...common, manifest: state.pending, ledger: state.ledger, loadedByPair: state.loadedByPair });

          expect(fromSql, name).toEqual(full);
          // The point of it: loaded rows stay in DuckDB.
          expect(state.pending.length, name).toBe(full.toDownload.length + full.deferred.length + full.toReload.length);
          expect(full.alreadyLoaded, name).toBeGreaterThan(0);
        }
      });
    });
  }

  it('returns nothing for an empty selection', async () => {
    await withWarehouse(async (wh) => {
      await seedState(wh.connection, 4);
      expect(await readPlanState(wh.connection, { pairs: [], files: KINDS })).toEqual({ pending: [], ledger: [], loadedByPair: new Map() });
      const none = await readPlanState(wh.connection, { pairs: [{ exchange: 'bybit', symbol: 'SOL' }], files: KINDS });
      expect(none.pending).toEqual([]);
      expect(none.loadedByPair.size).toBe(0);
    });
  });
});
