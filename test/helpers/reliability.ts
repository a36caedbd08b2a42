// Shared steps of the reliability matrix (test/reliability/): a sync with a client tuned for the
// scenario (short timeouts, instant retries), the outcome of a run that may fail, and the check that
// ends every fault scenario: consistent warehouse, credits accounted for, and a clean next run.
import { existsSync } from 'node:fs';
import { expect } from 'vitest';
import { createApiClient, type ApiClientOptions } from '../../src/api/index.js';
import { syncApiFrom } from '../../src/sync/api-port.js';
import { runSync, type SyncOptions, type SyncSummary } from '../../src/sync/run.js';
import { parseSyncSelection, type RawSyncSelection } from '../../src/sync/selection.js';
import { consistent, inspectWarehouse } from './invariants.js';
import type { Bench } from './sync.js';

export const ONE_PAIR = { exchange: 'deribit', symbol: 'BTC' } as const;

export type RunResult = { ok: true; summary: SyncSummary } | { ok: false; error: unknown; summary?: SyncSummary };

export interface SyncViaOptions {
  key?: string;
  client?: Partial<ApiClientOptions>;
  sync?: Partial<SyncOptions>;
  signal?: AbortSignal;
}

/** Where a sync runs: an emulator, a warehouse and an archive (a Bench, or a CLI test's workspace). */
export type SyncTarget = Pick<Bench, 'emulator' | 'dbPath' | 'archive'>;

/** One sync with its own client (closed afterwards); never throws: the error is in the result. */
export async function syncVia(bench: SyncTarget, raw: RawSyncSelection = ONE_PAIR, options: SyncViaOptions = {}): Promise<RunResult> {
  const client = createApiClient({
    baseUrl: bench.emulator.baseUrl,
    apiKey: options.key ?? bench.emulator.keys.pro,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    ...options.client,
  });
  const selection = parseSyncSelection(raw);
  const syncOptions: SyncOptions = {
    command: 'sync',
    dbPath: bench.dbPath,
    archiveRoot: bench.archive,
    selection,
    dryRun: false,
    fullRescan: false,
    fillLevels: false,
    recordedOptions: { ...selection },
    ...options.sync,
  };
  try {
    return { ok: true, summary: await runSync(syncOptions, syncApiFrom(client), options.signal ?? new AbortController().signal) };
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    return isSummary(cause) ? { ok: false, error, summary: cause } : { ok: false, error };
  } finally {
    await client.close();
  }
}

function isSummary(value: unknown): value is SyncSummary {
  return typeof value === 'object' && value !== null && 'outcome' in value && 'plan' in value;
}

/** Files the manifest lists for the selection (what a complete sync ends with). */
export async function manifestFiles(bench: Bench): Promise<number> {
  const [row] = await bench.query<{ n: number }>(`SELECT count(*)::INT n FROM sync.manifest`);
  return row?.n ?? 0;
}

/** Credits the runs recorded in sync.runs (what gexwh says it spent). */
export async function recordedCredits(bench: Bench): Promise<number> {
  const [row] = await bench.query<{ n: number | null }>(`SELECT coalesce(sum(credits_spent), 0)::INT n FROM sync.runs`);
  return row?.n ?? 0;
}

export interface RecoveryExpectation {
  /** Credits the faults forced beyond one per file (expired links, files paid but never verified). */
  forcedCredits: number;
  /**
   * What gexwh records minus what the emulator charged: + for links it counts that the emulator did
   * not charge (quota service down), - for answers charged after the client had given up on them.
   */
  recordedDelta?: number;
  raw?: RawSyncSelection;
  key?: string;
  /**
   * Credits the starting state was paid with on another emulator (a bench started from a snapshot):
   * recorded in its sync.runs, never charged by this one.
   */
  paidBefore?: number;
}

/**
 * The end of every fault scenario: the faulted run left a consistent warehouse; with the faults gone
 * the next run completes; every manifest file is loaded once; the credits the emulator charged equal
 * the files archived plus the forced retries, and equal what gexwh recorded.
 */
export async function expectRecovered(bench: Bench, expectation: RecoveryExpectation): Promise<void> {
  const { emulator } = bench;
  const key = expectation.key ?? emulator.keys.pro;
  if (existsSync(bench.dbPath)) {
    const afterFault = await inspectWarehouse(bench.dbPath, bench.archive);
    expect({ ...afterFault, loadedFiles: 0 }).toEqual(consistent(0));
  }

  emulator.faults.clear();
  const next = await syncVia(bench, expectation.raw ?? ONE_PAIR, { key });
  expect(next.ok, next.ok ? '' : String((next as { error: unknown }).error)).toBe(true);
  const files = await manifestFiles(bench);
  expect(files).toBeGreaterThan(0);
  expect(await inspectWarehouse(bench.dbPath, bench.archive)).toEqual(consistent(files));
  const paidBefore = expectation.paidBefore ?? 0;
  expect(emulator.counters.credits(key)).toBe(files - paidBefore + expectation.forcedCredits);
  expect(await recordedCredits(bench)).toBe(emulator.counters.credits(key) + paidBefore + (expectation.recordedDelta ?? 0));
}
