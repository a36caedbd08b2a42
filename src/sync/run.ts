// The nightly job: coverage → manifests → plan → download → verify → archive → load.
// The warehouse is opened only for short phases (read state, write manifests, load), so analysts'
// readers are blocked as little as possible; downloads run with it closed.
import type { DuckDBConnection } from '@duckdb/node-api';
import { InterruptedError, PartialFailureError } from '../core/errors.js';
import {
  acquireSyncLock,
  finishRun,
  loadFiles,
  readPlanState,
  recordFileStatus,
  recordListing,
  startRun,
  upsertManifest,
  type ListingState,
  type LoadInput,
  type RunOutcome,
  type Warehouse,
} from '../warehouse/index.js';
import { journalFiles, journalListings, journalRun, openForLoad, planOnState, plannedOf, recordRunAnywhere, withWaiting, type PendingManifests, type RunStartRecord } from './held.js';
import { abortSignalName, downloadWarnings, failedRunCounts, loadedOutcome, partialFailureMessage, runAlreadyRecorded } from './run-outcome.js';
import { applyJournal, DEFAULT_WAIT_LOCK_SECONDS, heldError, openWaiting } from './load-pending.js';
import { beginSyncState, type SyncState } from './state-source.js';
import { removeStaleTemps } from './archive-writes.js';
import { archivedCopyPath, promoteLoadedVersions } from './versions.js';
import { fetchFiles, isArchived, type Downloader, type FetchReport, type QuotaStop, type VerifiedFile } from './fetch.js';
import { fillLevelsForSync, type FillLevelsReport, type HistoryLevelsFetcher } from './fill-levels.js';
import { estimateListingRows, listPair, planListing, type ListingPlan, type ManifestPageFetcher } from './manifest.js';
import { planSync, type Plan, type PlannedFile } from './download-plan.js';
import { recheckReloads } from './reloads.js';
import type { SyncSelection } from './selection.js';
import { describeSkipped, pairOnlyFailure, type CoverageListing, type SkippedCoverageRow } from './coverage.js';
import { checkSelectionNames, knownFromCoverage, venueSpread, type VenueSpread } from '../core/known-names.js';
import { selectPairs } from './download-plan.js';
import type { Market } from '../time/sessions.js';
import { DEFAULT_VENUES, type Pair, pairKey } from '../core/pairs.js';
import type { CoverageRow, ManifestRow } from '../core/rows.js';

/** What the sync needs from the API (src/sync/api-port.ts adapts the client to it). */
export interface SyncApi {
  me(): Promise<{ markets: Market[]; creditsLimit: number; creditsRemaining: number | null; creditsReset?: string }>;
  /** The usable coverage rows, and those set aside with their reason. */
  coverage(): Promise<CoverageListing>;
  manifestPage: ManifestPageFetcher;
  download: Downloader;
  quotaStopOf(error: unknown): QuotaStop | undefined;
  /** Quota-counted requests this client has made so far. */
  requestsSpent(): number;
  /** /history/levels pages, for --fill-levels. */
  historyLevels?: HistoryLevelsFetcher;
}

export interface SyncOptions {
  command: 'sync' | 'plan';
  dbPath: string;
  archiveRoot: string;
  selection: SyncSelection;
  dryRun: boolean;
  fullRescan: boolean;
  /** Fill levels of sessions without a levels file from /history/levels. */
  fillLevels: boolean;
  waitLockSeconds?: number;
  /** Effective options, stored in sync.runs (no secrets). */
  recordedOptions: Record<string, unknown>;
}

export interface SyncEvents {
  phase?(name: 'coverage' | 'manifests' | 'plan' | 'download' | 'load' | 'fill' | 'capture', detail?: string): void;
  file?(event: { file: PlannedFile; outcome: 'verified' | 'failed' | 'deferred'; bytes: number }): void;
  /**
   * Manifest rows (files) listed so far, against about how many the listing windows hold (the
   * listing returns no totals: an estimate from the coverage's session counts, which may be passed).
   */
  manifestFilesListed?(listed: number, estimate: number): void;
  /** Files of this run's load done (loaded, skipped or failed) out of all it loads. */
  loadDone?(done: number, total: number): void;
  /** Capture targets done (captured, failed or cut short) out of all the run captures. */
  targetsDone?(done: number, total: number): void;
  warn?(message: string): void;
}

export interface SyncSummary {
  command: 'sync' | 'plan';
  outcome: RunOutcome;
  dryRun: boolean;
  plan: {
    toDownload: number;
    toReload: number;
    deferred: number;
    alreadyLoaded: number;
    creditsAvailable: number | null;
    limitedBy: string;
    pairs: Plan['pairs'];
    files: PlannedFile[];
  };
  manifestsListed: number;
  filesLoaded: number;
  filesFailed: { exchange: string; symbol: string; sessionDate: string; file: string; status: string; error: string }[];
  filesDeferred: number;
  rowsLoaded: number;
  creditsSpent: number;
  /** File link requests whose answer was lost: each may have cost a credit on top of creditsSpent. */
  linksLost: number;
  requestsSpent: number;
  bytesDownloaded: number;
  creditsRemaining: number | null;
  creditsReset?: string;
  quotaStop?: QuotaStop;
  /** --fill-levels: sessions, windows, requests (pages) and rows inserted. */
  levelsFilled?: FillLevelsReport;
  /** The local write error (disk full, read-only archive) that stopped the downloads. */
  archiveWriteError?: string;
  /** A stop signal cut the run short; verified files wait in the archive for the next run. */
  interrupted?: boolean;
  /** Files an earlier run paid for but could not load (the warehouse was held), loaded by this run for 0 credits. */
  loadedFromJournal?: number;
  warnings: string[];
  /** Coverage rows (or pairs whose manifest could not be read) set aside this run; each is also a warning. */
  skippedPairs: SkippedCoverageRow[];
  /** Symbols whose files this run pays for on several venues, with the credits per venue. */
  venueSpread: VenueSpread[];
}

export async function runSync(options: SyncOptions, api: SyncApi, signal: AbortSignal, events: SyncEvents = {}): Promise<SyncSummary> {
  // The free calls come first: a bad key or base URL fails before anything is written locally.
  events.phase?.('coverage');
  const me = await api.me();
  const { usable: coverage, skipped } = await api.coverage();
  checkSelectionNames(namesOf(options.selection), knownFromCoverage(coverage, me.markets, skipped));
  const lock = await acquireSyncLock(options.dbPath, { waitSeconds: options.waitLockSeconds ?? 0 });
  try {
    return await runLocked({ options, api, signal, events, me, coverage, skipped });
  } finally {
    await lock.release();
  }
}

/** What a run starts its locked part with: the options and what the free calls answered. */
interface RunInput {
  options: SyncOptions;
  api: SyncApi;
  signal: AbortSignal;
  events: SyncEvents;
  me: Awaited<ReturnType<SyncApi['me']>>;
  coverage: CoverageRow[];
  skipped: SkippedCoverageRow[];
}

/** What one locked run carries from phase to phase. */
interface LockedRun extends RunInput {
  pairs: Pair[];
  warnings: string[];
  warn(message: string): void;
  runStart: RunStartRecord;
  /** Where the plan's state comes from; replaced once the plan is made. */
  state: SyncState;
  /** What the start loaded from the journal (counted into the summary). */
  waiting: SyncState['waiting'];
  quotaStop?: QuotaStop;
  /** What the run had planned and fetched when it failed, for its run record. */
  plan?: Plan;
  fetched?: FetchReport;
}

async function runLocked(input: RunInput): Promise<SyncSummary> {
  const { options, api } = input;
  const run = await beginLockedRun(input);
  try {
    return await runPhases(run);
  } catch (error) {
    if (!runAlreadyRecorded(error)) {
      const counts = failedRunCounts(error, api.requestsSpent(), run.fetched, run.plan);
      await recordRunAnywhere(options, run.state, run.runStart, counts, { listings: [], stored: true }).catch(() => undefined);
    }
    throw error;
  } finally {
    run.state.copy?.close();
  }
}

/**
 * Phase 1 (warehouse open, or a copy of its state when another process holds it): load what an
 * earlier held-out run left in the journal, record the run and coverage, read the listing state.
 */
async function beginLockedRun(input: RunInput): Promise<LockedRun> {
  const { options, events, me, coverage, skipped } = input;
  const warnings: string[] = [];
  const warn = (message: string) => {
    warnings.push(message);
    events.warn?.(message);
  };
  for (const row of skipped) warn(describeSkipped(row));
  await removeStaleTemps(options.archiveRoot);
  const pairs = selectPairs(coverage, { ...selectionOf(options.selection), markets: me.markets });
  const runStart = { command: options.command, options: options.recordedOptions, startedAt: new Date() };
  const state = await beginSyncState({ ...options, ...runStart, recordedOptions: options.recordedOptions, pairs, coverage }, warn);
  if (state.waiting.filesLoaded > 0) warn(`${state.waiting.filesLoaded} file(s) paid by an earlier run and waiting in the archive were loaded (0 credits)`);
  return { ...input, pairs, warnings, warn, runStart, state, waiting: state.waiting };
}

async function runPhases(run: LockedRun): Promise<SyncSummary> {
  const { options, events } = run;
  // Phase 2 (network): list the manifests that coverage says moved.
  events.phase?.('manifests');
  const listing = await listMovedManifests(options, run.api, run.signal, run.coverage, run.pairs, run.state.held, run.warn, run.skipped, events.manifestFilesListed);
  const manifestsListed = [...listing.listed.values()].filter((pair) => pair.requests > 0).length;
  run.quotaStop = listing.quotaStop;

  // Phase 3 (warehouse open, or the copy): store manifests, read state, plan.
  events.phase?.('plan');
  const plan = await planPhase(run, listing.listed);
  const pending = { listings: journalListings(listing.listed, run.state.mode), stored: run.state.mode === 'warehouse' };
  const summaryOf = (fetched: FetchReport, loaded: LoadOutcome, outcome: RunOutcome) =>
    summarize(options, plan, manifestsListed, run.api, run.me, fetched, loaded, run.quotaStop, run.warnings, outcome, run.skipped);

  if (options.dryRun) {
    const levelsFilled = run.state.mode === 'warehouse' ? await fillLevels(run) : undefined;
    const summary = summaryOf(emptyFetch(), NOTHING_LOADED, 'dry_run');
    if (levelsFilled) summary.levelsFilled = levelsFilled;
    await recordRunAnywhere(options, run.state, run.runStart, runCounts(summary), pending);
    return summary;
  }
  const fetched = await downloadPhase(run, plan);
  return await loadPhase(run, fetched, pending, (loaded, outcome) => summaryOf(fetched, loaded, outcome));
}

/** Stores the listed manifests and plans on the state, then takes the reloads' archived copies into account. */
async function planPhase(run: LockedRun, listed: ManifestListing['listed']): Promise<Plan> {
  const { options } = run;
  const planned = await planOnState(run.state, options, run.pairs, run.warn, (conn) => storeManifestsAndPlan(conn, options, run.me, run.pairs, listed));
  run.state = planned.state;
  const rechecked = await recheckReloads(planned.plan, options.archiveRoot);
  for (const note of rechecked.notes) run.warn(note);
  run.plan = await reuseArchivedFiles(rechecked.plan, options.archiveRoot);
  return run.plan;
}

/** Phase 4 (network, warehouse closed): download, verify, archive. */
async function downloadPhase(run: LockedRun, plan: Plan): Promise<FetchReport> {
  const { options, events, api } = run;
  events.phase?.('download', `${plan.toDownload.length} files`);
  const fetched = await fetchFiles(plan.toDownload, {
    archiveRoot: options.archiveRoot,
    concurrency: options.selection.concurrency,
    download: api.download,
    quotaStopOf: api.quotaStopOf,
    signal: run.signal,
    creditsAvailable: plan.budget.available,
    ...(events.file ? { onFile: events.file } : {}),
  });
  run.fetched = fetched;
  run.quotaStop ??= fetched.quotaStop;
  for (const warning of downloadWarnings(fetched)) run.warn(warning);
  return fetched;
}

type SummaryOf = (loaded: LoadOutcome, outcome: RunOutcome) => SyncSummary;

/**
 * Phase 5 (warehouse open, waiting up to --wait-lock): load what verified, record what failed,
 * finish the run record. When the warehouse stays held, all of it goes to the journal (exit 5).
 */
async function loadPhase(run: LockedRun, fetched: FetchReport, pending: PendingManifests, summaryOf: SummaryOf): Promise<SyncSummary> {
  const { options, signal } = run;
  const toLoad = [...reloadsOf(run.plan!, options.archiveRoot), ...fetched.verified];
  run.events.phase?.('load', `${toLoad.length} files`);
  if (signal.aborted) {
    // Stopped: what was paid waits in the journal unless the warehouse takes the run record now.
    await journalFiles(options.archiveRoot, toLoad, pending);
    const summary = summaryOf(NOTHING_LOADED, 'interrupted');
    await recordRunAnywhere(options, run.state, run.runStart, runCounts(summary), { listings: [], stored: true });
    throw new InterruptedError(abortSignalName(signal));
  }
  const opened = await openForLoad(options, signal, toLoad, pending);
  if (opened.held) {
    const summary = withWaiting(summaryOf(NOTHING_LOADED, signal.aborted ? 'interrupted' : 'locked'), run.waiting);
    await journalRun(options.archiveRoot, run.runStart, run.state.runId, runCounts(summary));
    if (signal.aborted) throw new InterruptedError(abortSignalName(signal));
    throw heldError(opened.held, summary);
  }
  const summary = await loadAndFinish(run, opened.warehouse, toLoad, fetched, summaryOf);
  if (signal.aborted) throw new InterruptedError(abortSignalName(signal));
  if (summary.outcome === 'partial') {
    const message = partialFailureMessage(fetched.localWriteError, summary.filesDeferred, summary.filesFailed.length);
    throw new PartialFailureError(message, {}, { cause: summary });
  }
  return summary;
}

/** Loads in the open warehouse; with --fill-levels closes it for the fill and reopens it for the run record. */
async function loadAndFinish(run: LockedRun, warehouse: Warehouse, toLoad: VerifiedFile[], fetched: FetchReport, summaryOf: SummaryOf): Promise<SyncSummary> {
  const finishIn = async (conn: DuckDBConnection, loaded: LoadOutcome, levelsFilled?: FillLevelsReport): Promise<SyncSummary> => {
    const outcome = loadedOutcome(run.signal.aborted, fetched.failed.length + loaded.failed.length);
    const summary = withWaiting(summaryOf(loaded, outcome), run.waiting);
    if (levelsFilled) summary.levelsFilled = levelsFilled;
    const runId = run.state.runId ?? (await startRun(conn, run.runStart));
    await finishRun(conn, runId, runCounts(summary));
    return summary;
  };
  if (!run.options.fillLevels) {
    // The run record is written in the load's open: every open and close of a big file costs.
    try {
      return await finishIn(warehouse.connection, await loadAndRecord(run, warehouse.connection, toLoad, fetched));
    } finally {
      warehouse.close();
    }
  }
  let loaded: LoadOutcome;
  try {
    loaded = await loadAndRecord(run, warehouse.connection, toLoad, fetched);
  } finally {
    warehouse.close();
  }
  // Phase 6 (network, then warehouse): levels of sessions without a loaded levels file.
  const levelsFilled = await fillLevels(run);
  run.quotaStop ??= levelsFilled?.quotaStop;
  return await withWarehouse(run.options, (conn) => finishIn(conn, loaded, levelsFilled));
}

/** The journal's waiting files first, then this run's; the failed verifications recorded. */
async function loadAndRecord(run: LockedRun, conn: DuckDBConnection, toLoad: VerifiedFile[], fetched: FetchReport): Promise<LoadOutcome> {
  const fromJournal = await applyJournal(conn, run.options.archiveRoot);
  const result = await loadVerified(conn, toLoad, (done) => run.events.loadDone?.(done, toLoad.length));
  await promoteLoadedVersions(conn, run.options.archiveRoot);
  for (const failed of fetched.failed) {
    await recordFileStatus(conn, { ...failed, archivePath: null, bytes: failed.bytes, rows: failed.rows }, 'failed_verify', failed.error);
  }
  for (const w of [...fromJournal.warnings, ...result.warnings]) run.warn(w);
  return {
    loaded: result.loaded + fromJournal.filesLoaded,
    rows: result.rows + fromJournal.rowsLoaded,
    failed: [...result.failed, ...fromJournal.failed.map(({ file, error }) => ({ file: plannedOf(file), error }))],
  };
}

/** --fill-levels: sessions without a levels file, from /history/levels; nothing without the option. */
function fillLevels(run: LockedRun): Promise<FillLevelsReport | undefined> {
  if (!run.options.fillLevels) return Promise.resolve(undefined);
  run.events.phase?.('fill');
  const { options, coverage, pairs, signal, warn } = run;
  return fillLevelsForSync(run.api, { ...fillSelectionOf(options), coverage, pairs, signal, warn }, run.quotaStop);
}

/** The plan's reloads, loaded from their archived copies. */
function reloadsOf(plan: Plan, archiveRoot: string): VerifiedFile[] {
  return plan.toReload.map((file) => ({
    ...file,
    archivePath: archivedCopyPath(archiveRoot, file),
    downloadedAt: new Date(),
    fromArchive: true,
  }));
}

const NOTHING_LOADED: LoadOutcome = { loaded: 0, rows: 0, failed: [] };

interface ManifestListing {
  /** Rows and complete_from by pair key, for the pairs whose manifest was listed. */
  listed: Map<string, { rows: ManifestRow[]; completeFrom: string | null; requests: number }>;
  quotaStop?: QuotaStop;
}

/**
 * Lists what each pair's manifest lacks (src/sync/manifest.ts decides the windows); stops at
 * --max-requests, keeping what a cut-short walk read where it can, or at the request quota.
 */
async function listMovedManifests(
  options: SyncOptions,
  api: SyncApi,
  signal: AbortSignal,
  coverage: CoverageRow[],
  pairs: Pair[],
  held: Map<string, ListingState>,
  warn: (message: string) => void,
  skipped: SkippedCoverageRow[],
  onFilesListed: (listed: number, estimate: number) => void = () => undefined,
): Promise<ManifestListing> {
  const listed: ManifestListing['listed'] = new Map();
  const { maxRequests } = options.selection;
  const walks = planWalks(options, coverage, pairs, held);
  const estimate = walks.reduce((sum, walk) => sum + walk.estimate, 0);
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
    listed.set(pairKeyOf(pair), { rows: listing.rows, completeFrom: listing.completeFrom, requests: listing.requests });
    const quotaStop = listing.stop === undefined ? undefined : api.quotaStopOf(listing.stop);
    if (quotaStop) {
      warn(`request quota exhausted while listing manifests; what was listed is kept, the rest is listed after the reset at ${quotaStop.resetAt ?? 'midnight UTC'}`);
      return { listed, quotaStop };
    }
    if (!listing.complete) {
      warn(`--max-requests ${maxRequests} reached while listing the manifest of ${pair.exchange}/${pair.symbol}; the rest is listed by the next run`);
      break;
    }
  }
  return { listed };
}

/** One pair's walk to make: its listing windows (null: nothing to list) and about how many rows they hold. */
interface PairWalk {
  pair: Pair;
  state: ListingState;
  plan: ListingPlan | null;
  estimate: number;
}

/** Every pair's listing plan up front, so progress can count the rows of all of them. */
function planWalks(options: SyncOptions, coverage: CoverageRow[], pairs: Pair[], held: Map<string, ListingState>): PairWalk[] {
  const coverageByPair = new Map(coverage.map((row) => [pairKeyOf(row), row]));
  const { since } = options.selection;
  return pairs.map((pair) => {
    const row = coverageByPair.get(pairKeyOf(pair));
    const state = held.get(pairKeyOf(pair)) ?? { newestStored: null, completeFrom: null };
    const plan = row === undefined ? null : planListing({ coverage: row, ...state, ...(since ? { since } : {}), fullRescan: options.fullRescan });
    return { pair, state, plan, estimate: plan === null || row === undefined ? 0 : estimateListingRows(plan, row) };
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
    return { kind: 'listed', listing: await listPair(api.manifestPage, pair, plan, state, { isStop, onRows, ...(requestsLeft === undefined ? {} : { maxRequests: requestsLeft }) }) };
  } catch (error) {
    // An answer about this pair alone (refused, off the spec) skips the pair; the others go on.
    const reason = pairOnlyFailure(error);
    if (reason === undefined) throw error;
    return { kind: 'skipped', row: { exchange: pair.exchange, symbol: pair.symbol, reason: `its manifest could not be listed: ${reason}` } };
  }
}

/** Stores the listed manifests, then plans from what the warehouse holds (the anti-joins run in SQL). */
async function storeManifestsAndPlan(
  conn: DuckDBConnection,
  options: SyncOptions,
  me: Awaited<ReturnType<SyncApi['me']>>,
  pairs: Pair[],
  listed: ManifestListing['listed'],
): Promise<Plan> {
  const now = new Date();
  for (const [key, { rows, completeFrom }] of listed) {
    const [exchange, symbol] = key.split('|') as [string, string];
    await upsertManifest(conn, exchange, symbol, rows, now);
    await recordListing(conn, exchange, symbol, completeFrom, now);
  }
  const { since, until, files, reserveCredits, maxCredits, order } = options.selection;
  const dates = { ...(since ? { since } : {}), ...(until ? { until } : {}) };
  const state = await readPlanState(conn, { pairs, files, ...dates });
  return planSync({
    coverage: pairs,
    manifest: state.pending,
    ledger: state.ledger,
    loadedByPair: state.loadedByPair,
    selection: { ...selectionOf(options.selection), files, markets: me.markets, ...dates },
    budget: {
      creditsRemaining: me.creditsRemaining,
      creditsLimit: me.creditsLimit,
      reserve: reserveCredits,
      ...(maxCredits !== undefined ? { maxCredits } : {}),
    },
    order,
  });
}

interface LoadOutcome {
  loaded: number;
  rows: number;
  failed: { file: PlannedFile; error: string }[];
  warnings?: string[];
}

async function loadVerified(conn: DuckDBConnection, files: VerifiedFile[], onProgress: (filesDone: number) => void): Promise<LoadOutcome & { warnings: string[] }> {
  if (files.length === 0) return { loaded: 0, rows: 0, failed: [], warnings: [] };
  const inputs: LoadInput[] = files.map((file) => ({
    exchange: file.exchange,
    symbol: file.symbol,
    sessionDate: file.sessionDate,
    file: file.file,
    sha256: file.sha256,
    bytes: file.bytes,
    rows: file.rows,
    path: file.archivePath,
    archivePath: file.archivePath,
    downloadedAt: file.downloadedAt,
  }));
  const report = await loadFiles(conn, inputs, { onProgress });
  return {
    loaded: report.loaded.length,
    rows: report.rowsLoaded,
    failed: report.failed.map((f) => ({ file: files.find((v) => v.archivePath === f.input.archivePath)!, error: f.error })),
    warnings: report.warnings,
  };
}

/** Files the archive already holds with the manifest's sha256 need no credit: move them to reloads. */
async function reuseArchivedFiles(plan: Plan, archiveRoot: string): Promise<Plan> {
  const candidates = [...plan.toDownload, ...plan.deferred];
  const archived = new Set<PlannedFile>();
  for (const file of candidates) if (await isArchived(archiveRoot, file)) archived.add(file);
  if (archived.size === 0) return plan;
  const rest = candidates.filter((file) => !archived.has(file));
  const available = plan.budget.available ?? Number.POSITIVE_INFINITY;
  const toDownload = rest.slice(0, Math.min(rest.length, available));
  return {
    ...plan,
    toDownload,
    deferred: rest.slice(toDownload.length),
    toReload: [...plan.toReload, ...archived],
    budget: { ...plan.budget, used: toDownload.length },
  };
}

function emptyFetch(): FetchReport {
  return { verified: [], failed: [], deferred: [], creditsSpent: 0, linksLost: 0, bytesDownloaded: 0, interrupted: false };
}

function summarize(
  options: SyncOptions,
  plan: Plan,
  manifestsListed: number,
  api: SyncApi,
  me: Awaited<ReturnType<SyncApi['me']>>,
  fetched: FetchReport,
  loaded: LoadOutcome,
  quotaStop: QuotaStop | undefined,
  warnings: string[],
  outcome: RunOutcome,
  skipped: SkippedCoverageRow[],
): SyncSummary {
  const failed = [
    ...fetched.failed.map((f) => ({ exchange: f.exchange, symbol: f.symbol, sessionDate: f.sessionDate, file: f.file, status: 'failed_verify', error: f.error })),
    ...loaded.failed.map(({ file, error }) => ({ exchange: file.exchange, symbol: file.symbol, sessionDate: file.sessionDate, file: file.file, status: 'failed_load', error })),
  ];
  const creditsRemaining = me.creditsRemaining === null ? null : Math.max(0, me.creditsRemaining - fetched.creditsSpent);
  return {
    command: options.command,
    outcome,
    dryRun: options.dryRun,
    plan: {
      toDownload: plan.toDownload.length,
      toReload: plan.toReload.length,
      deferred: plan.deferred.length,
      alreadyLoaded: plan.alreadyLoaded,
      creditsAvailable: plan.budget.available,
      limitedBy: plan.budget.limitedBy,
      pairs: plan.pairs,
      files: options.dryRun ? [...plan.toDownload, ...plan.toReload] : [],
    },
    manifestsListed,
    filesLoaded: loaded.loaded,
    filesFailed: failed,
    filesDeferred: plan.deferred.length + fetched.deferred.length,
    rowsLoaded: loaded.rows,
    creditsSpent: fetched.creditsSpent,
    linksLost: fetched.linksLost,
    requestsSpent: api.requestsSpent(),
    bytesDownloaded: fetched.bytesDownloaded,
    creditsRemaining,
    ...(quotaStop?.resetAt ?? me.creditsReset ? { creditsReset: quotaStop?.resetAt ?? me.creditsReset } : {}),
    ...(quotaStop ? { quotaStop } : {}),
    ...(fetched.localWriteError ? { archiveWriteError: fetched.localWriteError } : {}),
    ...(outcome === 'interrupted' ? { interrupted: true } : {}),
    warnings,
    skippedPairs: skipped,
    venueSpread: venueSpread(plan.pairs),
  };
}

function runCounts(summary: SyncSummary) {
  return {
    outcome: summary.outcome,
    creditsSpent: summary.creditsSpent,
    linksLost: summary.linksLost,
    requestsSpent: summary.requestsSpent,
    filesPlanned: summary.plan.toDownload + summary.plan.toReload,
    filesLoaded: summary.filesLoaded,
    filesFailed: summary.filesFailed.length,
    filesDeferred: summary.filesDeferred,
    rowsLoaded: summary.rowsLoaded,
    bytesDownloaded: summary.bytesDownloaded,
  };
}

/** Opens the warehouse for one short phase after the load (the fill's run record); waits up to --wait-lock. */
async function withWarehouse<T>(options: SyncOptions, work: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
  const warehouse: Warehouse = await openWaiting(options.dbPath, options.waitLockSeconds ?? DEFAULT_WAIT_LOCK_SECONDS);
  try {
    return await work(warehouse.connection);
  } finally {
    warehouse.close();
  }
}

/** The names to check: a symbol named without a venue must have history on its default venue. */
function namesOf(selection: SyncSelection) {
  return { ...selectionOf(selection), ...(selection.exchanges || selection.allVenues ? {} : { defaultVenues: DEFAULT_VENUES }) };
}

function selectionOf(selection: SyncSelection): { exchanges?: string[]; symbols?: string[]; defaultVenuesOnly?: boolean } {
  return {
    ...(selection.exchanges ? { exchanges: selection.exchanges } : {}),
    ...(selection.exchanges || selection.allVenues ? {} : { defaultVenuesOnly: true }),
    ...(selection.symbols ? { symbols: selection.symbols } : {}),
  };
}

function fillSelectionOf(options: SyncOptions) {
  const { since, until, order, maxRequests } = options.selection;
  const waitSeconds = options.waitLockSeconds ?? 0;
  return { dbPath: options.dbPath, dryRun: options.dryRun, order, waitSeconds, ...(since ? { since } : {}), ...(until ? { until } : {}), ...(maxRequests !== undefined ? { maxRequests } : {}) };
}

function pairKeyOf(pair: Pair): string {
  return `${pair.exchange}|${pair.symbol}`;
}
