// Properties of the planner over random ledgers, archives, manifests and budgets (fast-check): the
// per-pair rows always add up to the totals, the budget is never passed, an archived copy is never
// paid for again, and what is cut is cut in the plan's order. The planner is the only place the
// budget is cut (src/sync/run.ts changes nothing after it), so these hold for what sync spends too;
// test/sync/plan-spend.test.ts checks that against the emulator.
import { createHash } from 'node:crypto';
import { fc, test } from '../helpers/property.js';
import { describe, expect } from 'vitest';
import { filesToCheck, planSync, type Plan, type PlanInput } from '../../src/sync/download-plan.js';
import { fileVersionKey, type Pair } from '../../src/core/pairs.js';
import { FILE_KINDS, type FileKind } from '../../src/core/file-kinds.js';
import type { LedgerEntry, StoredManifestRow, PlannedFile } from '../../src/core/rows.js';

const PAIRS: Pair[] = [
  { exchange: 'combined', symbol: 'BTC' },
  { exchange: 'deribit', symbol: 'BTC' },
  { exchange: 'okx', symbol: 'ETH' },
  { exchange: 'tradfi', symbol: 'SPY' },
];
const DATES = ['2026-03-02', '2026-03-03', '2026-03-04', '2026-03-05', '2026-03-06'];

/** What a row's history is: never seen, loaded (this or an older version), or failed. */
const HISTORIES = ['new', 'loaded', 'loaded_older', 'failed_load', 'failed_load_no_copy', 'failed_verify'] as const;

const sha = (seed: string) => createHash('sha256').update(seed).digest('hex');

const rowArb = fc.record({
  pair: fc.constantFrom(...PAIRS),
  date: fc.constantFrom(...DATES),
  file: fc.constantFrom(...FILE_KINDS),
  version: fc.integer({ min: 1, max: 3 }),
  history: fc.constantFrom(...HISTORIES),
  archived: fc.boolean(),
});

const budgetArb = fc.record({
  creditsRemaining: fc.option(fc.integer({ min: 0, max: 40 }), { nil: null }),
  creditsLimit: fc.constantFrom(0, 20, 200),
  reserve: fc.integer({ min: 0, max: 5 }),
  maxCredits: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
});

type RowSpec = typeof rowArb extends fc.Arbitrary<infer T> ? T : never;

interface World {
  specs: RowSpec[];
  budget: PlanInput['budget'];
  order: 'newest' | 'oldest';
  files: FileKind[];
}

/** A state of the world: manifest rows, ledger rows and what the archive holds, from row specs. */
function worldOf({ specs, budget, order, files }: World): { input: PlanInput; archivedBySpec: Map<string, boolean> } {
  const manifest: StoredManifestRow[] = [];
  const ledger: LedgerEntry[] = [];
  const archivedBySpec = new Map<string, boolean>();
  const seen = new Set<string>();
  for (const spec of specs) {
    const key = `${spec.pair.exchange}|${spec.pair.symbol}|${spec.date}|${spec.file}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const current = sha(`${key}|v${spec.version}`);
    manifest.push({ ...spec.pair, session_date: spec.date, file: spec.file, rows: 10, bytes: 100, sha256: current, schema_version: 1 });
    const entry = (sha256: string, status: LedgerEntry['status'], archivePath: string | null): LedgerEntry => ({
      ...spec.pair,
      sessionDate: spec.date,
      file: spec.file,
      sha256,
      status,
      archivePath,
    });
    if (spec.history === 'loaded') ledger.push(entry(current, 'loaded', 'x'));
    if (spec.history === 'loaded_older') ledger.push(entry(sha(`old${spec.version}`), 'loaded', 'x'));
    if (spec.history === 'failed_load') ledger.push(entry(current, 'failed_load', 'x'));
    if (spec.history === 'failed_load_no_copy') ledger.push(entry(current, 'failed_load', null));
    if (spec.history === 'failed_verify') ledger.push(entry(current, 'failed_verify', null));
    archivedBySpec.set(`${key}|${current}`, spec.archived);
  }
  const input: PlanInput = { coverage: PAIRS, manifest, ledger, selection: { files }, budget, order };
  return { input, archivedBySpec };
}

/** The archive facts the run would pass: the checked versions whose copy the world says is there. */
function archivedOf(input: PlanInput, archivedBySpec: Map<string, boolean>): Set<string> {
  return new Set(
    filesToCheck(input)
      .map(fileVersionKey)
      .filter((key) => archivedBySpec.get(key) === true),
  );
}

const sum = (plan: Plan, field: 'toDownload' | 'toReload' | 'deferred' | 'alreadyLoaded' | 'selected') =>
  plan.pairs.reduce((total, pair) => total + pair[field], 0);

const worldArb: fc.Arbitrary<World> = fc.record({
  specs: fc.array(rowArb, { maxLength: 60 }),
  budget: budgetArb,
  order: fc.constantFrom('newest' as const, 'oldest' as const),
  files: fc.subarray([...FILE_KINDS], { minLength: 1 }),
});

function planOf(world: World) {
  const { input, archivedBySpec } = worldOf(world);
  const archived = archivedOf(input, archivedBySpec);
  return { input, archived, plan: planSync({ ...input, archived }) };
}

describe('the plan, over random ledgers, archives, manifests and budgets', () => {
  test.prop([worldArb], { numRuns: 400 })('per-pair rows add up to the totals, and each pair to what it selected', (world) => {
    const { plan } = planOf(world);
    expect(sum(plan, 'toDownload')).toBe(plan.toDownload.length);
    expect(sum(plan, 'toReload')).toBe(plan.toReload.length);
    expect(sum(plan, 'deferred')).toBe(plan.deferred.length);
    expect(sum(plan, 'alreadyLoaded')).toBe(plan.alreadyLoaded);
    for (const pair of plan.pairs) expect(pair.selected).toBe(pair.alreadyLoaded + pair.toDownload + pair.toReload + pair.deferred);
  });

  test.prop([worldArb], { numRuns: 400 })('spending never passes the budget: --max-credits, the quota less the reserve', (world) => {
    const { plan } = planOf(world);
    const { creditsRemaining, creditsLimit, reserve, maxCredits } = world.budget;
    expect(plan.budget.used).toBe(plan.toDownload.length);
    if (maxCredits !== undefined) expect(plan.toDownload.length).toBeLessThanOrEqual(maxCredits);
    if (creditsLimit > 0) expect(plan.toDownload.length).toBeLessThanOrEqual(Math.max(0, (creditsRemaining ?? creditsLimit) - reserve));
    if (plan.budget.available !== null) expect(plan.toDownload.length).toBeLessThanOrEqual(plan.budget.available);
    // The budget is used before anything is deferred.
    if (plan.deferred.length > 0) expect(plan.toDownload.length).toBe(plan.budget.available);
  });

  test.prop([worldArb], { numRuns: 400 })('an intact archived copy is never paid again, a broken one is never loaded', (world) => {
    const { plan, archived } = planOf(world);
    const intact = (file: PlannedFile) => archived.has(fileVersionKey(file));
    expect(plan.toDownload.filter(intact)).toEqual([]);
    expect(plan.deferred.filter(intact)).toEqual([]);
    expect(plan.toReload.filter((file) => !intact(file))).toEqual([]);
    for (const file of plan.brokenReloads) expect([...plan.toDownload, ...plan.deferred]).toContain(file);
  });

  test.prop([worldArb], { numRuns: 300 })('the budget serves the order asked for: nothing deferred comes before a download', (world) => {
    const { plan } = planOf(world);
    const last = plan.toDownload.at(-1);
    const first = plan.deferred[0];
    if (last === undefined || first === undefined) return;
    if (world.order === 'newest') expect(first.sessionDate <= last.sessionDate).toBe(true);
    else expect(first.sessionDate >= last.sessionDate).toBe(true);
  });
});
