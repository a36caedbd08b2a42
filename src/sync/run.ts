// The nightly job (DESIGN §4): coverage → manifests → plan → download → verify → archive → load.
// The warehouse is opened only for short phases (read state, write manifests, load), so analysts'
// readers are blocked as little as possible; downloads run with it closed.
import type { DuckDBConnection } from '@duckdb/node-api';
import { InterruptedError, PartialFailureError } from '../errors.js';
import {
  acquireSyncLock,
  finishRun,
  loadFiles,
  openWarehouse,
  readListingState,
  readPlanState,
  recordFileStatus,
  recordListing,
  startRun,
  upsertCoverage,
  upsertManifest,
  type ListingState,
  type LoadInput,
  type RunOutcome,
  type Warehouse,
} from '../warehouse/index.js';
import { archivePath, removeStaleTemps } from './archive.js';
import { fetchFiles, isArchived, type Downloader, type FetchReport, type QuotaStop, type VerifiedFile } from './fetch.js';
import { fillLevelsForSync, type FillLevelsReport, type HistoryLevelsFetcher } from './fill-levels.js';
import { listPair, planListing, type ManifestPageFetcher } from './manifest.js';
import { planSync, type Plan, type PlannedFile } from './plan.js';
import type { SyncSelection } from './selection.js';
import type { CoverageRow, ManifestRow, Pair } from './types.js';
import { selectPairs } from './plan.js';
import type { Market } from '../time/sessions.js';

/** What the sync needs from the API (src/sync/api-port.ts adapts the client to it). */
export interface SyncApi {
  me(): Promise<{ markets: Market[]; creditsLimit: number; creditsRemaining: number | null; creditsReset?: string }>;
  coverage(): Promise<CoverageRow[]>;
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
  /** Fill levels of sessions without a levels file from /history/levels (DESIGN §4.5). */
  fillLevels: boolean;
  waitLockSeconds?: number;
  /** Effective options, stored in sync.runs (no secrets). */
  recordedOptions: Record<string, unknown>;
}

export interface SyncEvents {
  phase?(name: 'coverage' | 'manifests' | 'plan' | 'download' | 'load' | 'fill', detail?: string): void;
  file?(event: { file: PlannedFile; outcome: 'verified' | 'failed' | 'deferred'; bytes: number }): void;
  /** Pairs whose manifest is done (listed or skipped) out of all the selected pairs. */
  manifestsDone?(done: number, total: number): void;
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
  warnings: string[];
}

export async function runSync(options: SyncOptions, api: SyncApi, signal: AbortSignal, events: SyncEvents = {}): Promise<SyncSummary> {
  // The free calls come first: a bad key or base URL fails before anything is written locally.
  events.phase?.('coverage');
  const me = await api.me();
  const coverage = await api.coverage();
  const lock = await acquireSyncLock(options.dbPath, { waitSeconds: options.waitLockSeconds ?? 0 });
  try {
    return await runLocked(options, api, signal, events, me, coverage);
  } finally {
    await lock.release();
  }
}

async function runLocked(
  options: SyncOptions,
  api: SyncApi,
  signal: AbortSignal,
  events: SyncEvents,
  me: Awaited<ReturnType<SyncApi['me']>>,
  coverage: CoverageRow[],
): Promise<SyncSummary> {
  const warnings: string[] = [];
  const warn = (message: string) => {
    warnings.push(message);
    events.warn?.(message);
  };
  await removeStaleTemps(options.archiveRoot);
  const pairs = selectPairs(coverage, { ...selectionOf(options.selection), markets: me.markets });

  // Phase 1 (warehouse open): record the run and coverage, read how much of each manifest we hold.
  const { runId, held } = await withWarehouse(options, async (conn) => {
    const id = await startRun(conn, { command: options.command, options: options.recordedOptions });
    await upsertCoverage(conn, coverage, new Date());
    const states = new Map<string, ListingState>();
    for (const pair of pairs) states.set(pairKeyOf(pair), await readListingState(conn, pair.exchange, pair.symbol));
    return { runId: id, held: states };
  });

  let quotaStop: QuotaStop | undefined;
  try {
    // Phase 2 (network): list the manifests that coverage says moved.
    events.phase?.('manifests');
    const listing = await listMovedManifests(options, api, signal, coverage, pairs, held, warn, events.manifestsDone);
    const manifestsListed = [...listing.listed.values()].filter((pair) => pair.requests > 0).length;
    quotaStop = listing.quotaStop;

    // Phase 3 (warehouse open): store manifests, read state, plan.
    events.phase?.('plan');
    const plan = await withWarehouse(options, (conn) => storeManifestsAndPlan(conn, options, me, pairs, listing.listed));
    const effectivePlan = await reuseArchivedFiles(plan, options.archiveRoot);

    const fill = (stop: QuotaStop | undefined) => {
      if (!options.fillLevels) return Promise.resolve(undefined);
      events.phase?.('fill');
      return fillLevelsForSync(api, { ...fillSelectionOf(options), coverage, pairs, signal, warn }, stop);
    };

    if (options.dryRun) {
      const levelsFilled = await fill(quotaStop);
      const summary = summarize(options, effectivePlan, manifestsListed, api, me, emptyFetch(), { loaded: 0, rows: 0, failed: [] }, quotaStop, warnings, 'dry_run');
      if (levelsFilled) summary.levelsFilled = levelsFilled;
      await withWarehouse(options, (conn) => finishRun(conn, runId, runCounts(summary)));
      return summary;
    }

    // Phase 4 (network, warehouse closed): download, verify, archive.
    events.phase?.('download', `${effectivePlan.toDownload.length} files`);
    const fetched = await fetchFiles(effectivePlan.toDownload, {
      archiveRoot: options.archiveRoot,
      concurrency: options.selection.concurrency,
      download: api.download,
      quotaStopOf: api.quotaStopOf,
      signal,
      ...(events.file ? { onFile: events.file } : {}),
    });
    quotaStop ??= fetched.quotaStop;
    if (fetched.localWriteError) warn(`the archive could not be written (${fetched.localWriteError}); downloads stopped, ${fetched.deferred.length} files deferred to the next run`);
    if (fetched.quotaStop) warn(`file credits exhausted; ${fetched.deferred.length} files deferred until ${fetched.quotaStop.resetAt ?? 'the quota resets'}`);

    // Phase 5 (warehouse open): load what verified, record what failed, finish the run record.
    events.phase?.('load');
    const reloads: VerifiedFile[] = effectivePlan.toReload.map((file) => ({
      ...file,
      archivePath: archivePathOf(options.archiveRoot, file),
      downloadedAt: new Date(),
      fromArchive: true,
    }));
    const toLoad = signal.aborted ? [] : [...reloads, ...fetched.verified];
    const loadAndRecord = async (conn: DuckDBConnection): Promise<LoadOutcome> => {
      const result = await loadVerified(conn, toLoad);
      for (const failed of fetched.failed) {
        await recordFileStatus(conn, { ...failed, archivePath: null, bytes: failed.bytes, rows: failed.rows }, 'failed_verify', failed.error);
      }
      for (const w of result.warnings) warn(w);
      return result;
    };
    const finishIn = async (conn: DuckDBConnection, loaded: LoadOutcome, levelsFilled?: FillLevelsReport): Promise<SyncSummary> => {
      const outcome: RunOutcome = signal.aborted ? 'interrupted' : fetched.failed.length + loaded.failed.length > 0 ? 'partial' : 'ok';
      const summary = summarize(options, effectivePlan, manifestsListed, api, me, fetched, loaded, quotaStop, warnings, outcome);
      if (levelsFilled) summary.levelsFilled = levelsFilled;
      await finishRun(conn, runId, runCounts(summary));
      return summary;
    };
    let summary: SyncSummary;
    if (options.fillLevels) {
      const loaded = await withWarehouse(options, loadAndRecord);
      // Phase 6 (network, then warehouse): levels of sessions without a loaded levels file.
      const levelsFilled = await fill(quotaStop);
      quotaStop ??= levelsFilled?.quotaStop;
      summary = await withWarehouse(options, (conn) => finishIn(conn, loaded, levelsFilled));
    } else {
      // The run record is written in the load's open: every open and close of a big file costs.
      summary = await withWarehouse(options, async (conn) => finishIn(conn, await loadAndRecord(conn)));
    }
    if (signal.aborted) throw new InterruptedError(abortSignalName(signal));
    if (summary.outcome === 'partial') {
      const why = fetched.localWriteError
        ? `the archive could not be written (${fetched.localWriteError}); ${summary.filesDeferred} file(s) deferred to the next run`
        : `${summary.filesFailed.length} file(s) failed verification or loading`;
      throw new PartialFailureError(`${why}; everything else was committed`, {}, { cause: summary });
    }
    return summary;
  } catch (error) {
    if (!(error instanceof PartialFailureError) && !(error instanceof InterruptedError)) {
      await withWarehouse(options, (conn) =>
        finishRun(conn, runId, { outcome: 'failed', requestsSpent: api.requestsSpent(), error: error instanceof Error ? error.message : String(error) }),
      ).catch(() => undefined);
    }
    throw error;
  }
}

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
  onPairDone: (done: number, total: number) => void = () => undefined,
): Promise<ManifestListing> {
  const listed: ManifestListing['listed'] = new Map();
  const coverageByPair = new Map(coverage.map((row) => [pairKeyOf(row), row]));
  const { maxRequests, since } = options.selection;
  // A 429 ends a walk with the pages read so far, kept like a --max-requests cut.
  const isStop = (error: unknown) => api.quotaStopOf(error) !== undefined;
  for (const [index, pair] of pairs.entries()) {
    if (index > 0) onPairDone(index, pairs.length);
    if (signal.aborted) throw new InterruptedError(abortSignalName(signal));
    const row = coverageByPair.get(pairKeyOf(pair));
    if (row === undefined) continue;
    const state = held.get(pairKeyOf(pair)) ?? { newestStored: null, completeFrom: null };
    const plan = planListing({ coverage: row, ...state, ...(since ? { since } : {}), fullRescan: options.fullRescan });
    if (plan === null) continue;
    const requestsLeft = maxRequests === undefined ? undefined : maxRequests - api.requestsSpent();
    if (requestsLeft !== undefined && requestsLeft <= 0 && plan.windows.length > 0) {
      warn(`--max-requests ${maxRequests} reached: manifests of ${pair.exchange}/${pair.symbol} and later pairs not listed`);
      break;
    }
    const listing = await listPair(api.manifestPage, pair, plan, state, { isStop, ...(requestsLeft === undefined ? {} : { maxRequests: requestsLeft }) });
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

async function loadVerified(conn: DuckDBConnection, files: VerifiedFile[]): Promise<LoadOutcome & { warnings: string[] }> {
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
  const report = await loadFiles(conn, inputs);
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
  return { verified: [], failed: [], deferred: [], creditsSpent: 0, bytesDownloaded: 0, interrupted: false };
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
    requestsSpent: api.requestsSpent(),
    bytesDownloaded: fetched.bytesDownloaded,
    creditsRemaining,
    ...(quotaStop?.resetAt ?? me.creditsReset ? { creditsReset: quotaStop?.resetAt ?? me.creditsReset } : {}),
    ...(quotaStop ? { quotaStop } : {}),
    ...(fetched.localWriteError ? { archiveWriteError: fetched.localWriteError } : {}),
    ...(outcome === 'interrupted' ? { interrupted: true } : {}),
    warnings,
  };
}

function runCounts(summary: SyncSummary) {
  return {
    outcome: summary.outcome,
    creditsSpent: summary.creditsSpent,
    requestsSpent: summary.requestsSpent,
    filesPlanned: summary.plan.toDownload + summary.plan.toReload,
    filesLoaded: summary.filesLoaded,
    filesFailed: summary.filesFailed.length,
    filesDeferred: summary.filesDeferred,
    rowsLoaded: summary.rowsLoaded,
    bytesDownloaded: summary.bytesDownloaded,
  };
}

/** Opens the warehouse for one short phase; another process holding the file is waited for up to --wait-lock. */
async function withWarehouse<T>(options: SyncOptions, work: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
  const warehouse: Warehouse = await openWarehouse(options.dbPath, { waitSeconds: options.waitLockSeconds ?? 0 });
  try {
    return await work(warehouse.connection);
  } finally {
    warehouse.close();
  }
}

function selectionOf(selection: SyncSelection): { exchanges?: string[]; symbols?: string[] } {
  return {
    ...(selection.exchanges ? { exchanges: selection.exchanges } : {}),
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

function abortSignalName(signal: AbortSignal): 'SIGINT' | 'SIGTERM' {
  return signal.reason === 'SIGTERM' ? 'SIGTERM' : 'SIGINT';
}

function archivePathOf(root: string, file: PlannedFile): string {
  return archivePath(root, file.exchange, file.symbol, file.sessionDate, file.file);
}
