// Phase 2 of the sync: list what each pair's manifest lacks (src/sync/manifest.ts decides the
// windows), within --max-requests and the request quota. Network only; the result is a value the
// planner stores and plans on.
import { InterruptedError } from '../core/errors.js';
import type { ListingState } from '../warehouse/index.js';
import { abortSignalName } from './run-outcome.js';
import { estimateListingRows, listPair, planListing, type ListingPlan } from './manifest.js';
import { describeSkipped, pairOnlyFailure, type SkippedCoverageRow } from './coverage.js';
import type { SyncApi, SyncOptions } from './sync-types.js';
import { type Pair, pairKey } from '../core/pairs.js';
import type { CoverageRow, ManifestRow } from '../core/rows.js';
import type { QuotaStop } from '../api/quota.js';
import { formatInstant } from '../time/dates.js';

export interface ManifestListing {
  /** Rows and complete_from by pair key, for the pairs whose manifest was listed. */
  listed: Map<string, { rows: ManifestRow[]; completeFrom: string | null; requests: number }>;
  quotaStop?: QuotaStop;
  /** Pairs set aside while listing (a manifest the server refused); each was also warned. */
  skipped: SkippedCoverageRow[];
}

export interface ListingContext {
  options: SyncOptions;
  api: SyncApi;
  signal: AbortSignal;
  coverage: CoverageRow[];
  pairs: Pair[];
  held: ReadonlyMap<string, ListingState>;
  warn: (message: string) => void;
  onFilesListed?: (listed: number, estimate: number) => void;
  /** Called once, before the first request (the caller closes the warehouse for the network phase). */
  beforeNetwork?: () => void;
}

/**
 * Lists what each pair's manifest lacks (src/sync/manifest.ts decides the windows); stops at
 * --max-requests, keeping what a cut-short walk read where it can, or at the request quota.
 */
export async function listMovedManifests(context: ListingContext): Promise<ManifestListing> {
  const { options, api, signal, warn } = context;
  const onFilesListed = context.onFilesListed ?? (() => undefined);
  const listed: ManifestListing['listed'] = new Map();
  const skipped: SkippedCoverageRow[] = [];
  const { maxRequests } = options.selection;
  const walks = planWalks(options, context.coverage, context.pairs, context.held);
  const estimate = walks.reduce((sum, walk) => sum + walk.estimate, 0);
  if (walks.some((walk) => walk.plan !== null && walk.plan.windows.length > 0)) context.beforeNetwork?.();
  onFilesListed(0, estimate);
  let listedBefore = 0;
  for (const walk of walks) {
    const { pair } = walk;
    if (signal.aborted) throw new InterruptedError(abortSignalName(signal));
    let listedHere = 0;
    const step = await listOnePair(options, api, walk, (rows) => {
      listedHere = rows;
      onFilesListed(listedBefore + rows, estimate);
    });
    listedBefore += listedHere;
    if (step.kind === 'skipped') {
      skipped.push(step.row);
      warn(describeSkipped(step.row));
    }
    if (step.kind === 'out_of_requests') {
      warn(`--max-requests ${maxRequests} reached: manifests of ${pair.exchange}/${pair.symbol} and later pairs not listed`);
      break;
    }
    if (step.kind !== 'listed') continue;
    const { listing } = step;
    listed.set(pairKey(pair), { rows: listing.rows, completeFrom: listing.completeFrom, requests: listing.requests });
    const quotaStop = listing.stop === undefined ? undefined : api.quotaStopOf(listing.stop);
    if (quotaStop) {
      warn(
        `request quota exhausted while listing manifests; what was listed is kept, the rest is listed after the reset at ${quotaStop.resetAt === undefined ? 'midnight UTC' : formatInstant(quotaStop.resetAt)}`,
      );
      return { listed, quotaStop, skipped };
    }
    if (!listing.complete) {
      warn(`--max-requests ${maxRequests} reached while listing the manifest of ${pair.exchange}/${pair.symbol}; the rest is listed by the next run`);
      break;
    }
  }
  return { listed, skipped };
}

/** One pair's walk to make: its listing windows (null: nothing to list) and about how many rows they hold. */
interface PairWalk {
  pair: Pair;
  state: ListingState;
  plan: ListingPlan | null;
  estimate: number;
  /** The coverage's files_first_date: the oldest session a listing can reach. */
  floor: string | null;
}

/** Every pair's listing plan up front, so progress can count the rows of all of them. */
function planWalks(options: SyncOptions, coverage: CoverageRow[], pairs: Pair[], held: ReadonlyMap<string, ListingState>): PairWalk[] {
  const coverageByPair = new Map(coverage.map((row) => [pairKey(row), row]));
  const { since } = options.selection;
  return pairs.map((pair) => {
    const row = coverageByPair.get(pairKey(pair));
    const state = held.get(pairKey(pair)) ?? { newestStored: null, completeFrom: null };
    const plan = row === undefined ? null : planListing({ coverage: row, ...state, ...(since ? { since } : {}), fullRescan: options.fullRescan });
    const floor = row?.files_first_date ?? null;
    return { pair, state, plan, floor, estimate: plan === null || row === undefined ? 0 : estimateListingRows(plan, row) };
  });
}

type PairListingStep =
  | { kind: 'nothing_to_list' | 'out_of_requests' }
  | { kind: 'skipped'; row: SkippedCoverageRow }
  | { kind: 'listed'; listing: Awaited<ReturnType<typeof listPair>> };

/** One pair's manifest walk, or why there is none. */
async function listOnePair(options: SyncOptions, api: SyncApi, walk: PairWalk, onRows: (rows: number) => void): Promise<PairListingStep> {
  const { pair, plan, state } = walk;
  if (plan === null) return { kind: 'nothing_to_list' };
  const { maxRequests } = options.selection;
  const requestsLeft = maxRequests === undefined ? undefined : maxRequests - api.requestsSpent();
  if (requestsLeft !== undefined && requestsLeft <= 0 && plan.windows.length > 0) return { kind: 'out_of_requests' };
  // A 429 ends a walk with the pages read so far, kept like a --max-requests cut.
  const isStop = (error: unknown) => api.quotaStopOf(error) !== undefined;
  try {
    return {
      kind: 'listed',
      listing: await listPair(api.manifestPage, pair, plan, state, {
        isStop,
        onRows,
        floor: walk.floor,
        ...(requestsLeft === undefined ? {} : { maxRequests: requestsLeft }),
      }),
    };
  } catch (error) {
    // An answer about this pair alone (refused, off the spec) skips the pair; the others go on.
    const reason = pairOnlyFailure(error);
    if (reason === undefined) throw error;
    return { kind: 'skipped', row: { exchange: pair.exchange, symbol: pair.symbol, reason: `its manifest could not be listed: ${reason}` } };
  }
}
