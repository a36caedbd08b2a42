// The nightly job as a pipeline of values: Listing → Plan → FetchReport → LoadReport → RunRecord. Each
// stage is a function of the value before it and of the one storage chosen at the start
// (state-source.ts: the warehouse, a read-only copy of its state, or the archive and its journal).
// The planner owns every number the plan prints; nothing after it changes the plan, so a sync does
// what `plan` showed. Credits and paid files are written down as they are spent (spend-log.ts), so
// a run stopped at any point leaves every paid file loaded or waiting in the journal.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { InterruptedError, PartialFailureError } from '../core/errors.js';
import { acquireSyncLock, recordFileStatus } from '../warehouse/index.js';
import { journalFiles, journalListings, journalRun, plannedOf, recordRun, type PendingManifests, type RunStartRecord } from '../journal/held.js';
import { abortSignalName, downloadWarnings, failureOutcome, loadedOutcome, partialFailureMessage, runAlreadyRecorded } from './run-outcome.js';
import { applyJournal, DEFAULT_WAIT_LOCK_SECONDS, heldError } from '../journal/load-pending.js';
import { openStore, type SyncStore } from './state-source.js';
import { openSpendLog, type SpendLog } from '../journal/spend-log.js';
import { announceStops } from './stop-notice.js';
import { removeStaleTemps } from '../core/archive/writes.js';
import { promoteLoadedVersions } from '../journal/versions.js';
import { fetchFiles, localWriteErrorOf, type FetchReport } from './fetch.js';
import { fillLevelsForSync, type FillLevelsReport } from './fill-levels.js';
import { listMovedManifests, type ManifestListing } from './listing.js';
import { manifestLister } from './manifest.js';
import { filesToCheck, planSync, selectPairs, type Plan } from './download-plan.js';
import { loadVerified, namesOf, planInputOf, reloadsOf, selectionOf, storeListing } from './stage-io.js';
import { archivedVersions, brokenReloadNotes } from './reloads.js';
import { settlePlan } from './plan-fingerprint.js';
import { emptyFetch, NOTHING_LOADED, runCounts, summarize, type LoadReport, type SyncSummary } from './summary.js';
import type { SyncApi, SyncEvents, SyncOptions } from './sync-types.js';
import { describeSkipped, type SkippedCoverageRow } from './coverage.js';
import { checkDatesInCoverage } from './date-window.js';
import { checkSelectionNames, knownFromCoverage } from '../core/known-names.js';
import type { Pair } from '../core/pairs.js';
import type { CoverageRow, VerifiedFile } from '../core/rows.js';
import { definedOnly } from '../core/defined.js';
import { CreditMeter } from '../core/credit-meter.js';

export type { SyncApi, SyncEvents, SyncOptions } from './sync-types.js';
export type { SyncSummary } from './summary.js';

export async function runSync(options: SyncOptions, api: SyncApi, signal: AbortSignal, events: SyncEvents = {}): Promise<SyncSummary> {
  const stops = announceStops(signal, events);
  try {
    // The free calls come first: a bad key or base URL fails before anything is written locally.
    stops.events.phase?.('coverage');
    const me = await api.me();
    const { usable: coverage, skipped } = await api.coverage();
    const labels = options.labels ?? {};
    checkSelectionNames({ ...namesOf(options.selection), labels }, knownFromCoverage(coverage, me.markets, skipped));
    const selected = selectPairs(coverage, { ...selectionOf(options.selection), markets: me.markets });
    checkDatesInCoverage(options.selection, selected, coverage, labels);
    const input = { options, api, signal, events: stops.events, me, coverage, skipped };
    // A plan never creates a warehouse (nor its folder or lock file); it plans from an empty state.
    if (options.dryRun && !existsSync(resolve(options.dbPath))) return await runLocked(input, true);
    const lock = await acquireSyncLock(options.dbPath, { waitSeconds: options.waitLockSeconds ?? 0 });
    try {
      return await runLocked(input, false);
    } finally {
      await lock.release();
    }
  } finally {
    stops.dispose();
  }
}

/** What the locked part starts with: the options and what the free calls answered. */
interface RunInput {
  options: SyncOptions;
  api: SyncApi;
  signal: AbortSignal;
  events: SyncEvents;
  me: Awaited<ReturnType<SyncApi['me']>>;
  coverage: CoverageRow[];
  skipped: SkippedCoverageRow[];
}

/** What every stage may use besides the value it is handed; none of it changes from stage to stage. */
interface Stages extends RunInput {
  pairs: Pair[];
  start: RunStartRecord;
  store: SyncStore;
  /** Absent for a plan (it spends no credit). */
  log: SpendLog | undefined;
  warnings: string[];
  warn: (message: string) => void;
}

async function runLocked(input: RunInput, absent: boolean): Promise<SyncSummary> {
  const { options, events } = input;
  const warnings: string[] = [];
  const warn = (message: string) => {
    warnings.push(message);
    events.warn?.(message);
  };
  for (const row of input.skipped) warn(describeSkipped(row));
  if (!absent) await removeStaleTemps(options.archiveRoot); // without the lock, a running sync may own them
  const pairs = selectPairs(input.coverage, { ...selectionOf(options.selection), markets: input.me.markets });
  const start: RunStartRecord = { command: options.command, options: options.recordedOptions, startedAt: new Date() };
  const quotaNow = { remaining: input.me.creditsRemaining, reset: input.me.creditsReset };
  const journalCheck = { list: manifestLister(input.api.manifestPage) };
  const store = await openStore({ ...options, ...start, pairs, coverage: input.coverage, absent, quotaNow, journalCheck }, warn);
  // What the start's load of the journal refused (a bad entry, a journal file not read) is told, not dropped.
  for (const warning of store.waiting.warnings) warn(warning);
  if (store.waiting.filesLoaded > 0) warn(`${store.waiting.filesLoaded} file(s) paid by an earlier run and waiting in the archive were loaded (0 credits)`);
  const log = options.dryRun
    ? undefined
    : openSpendLog(
        options.archiveRoot,
        { ...start, quotaAtStart: quotaNow, ...(store.runId !== undefined ? { runId: store.runId } : {}) },
        input.api.requestsSpent,
      );
  const stages: Stages = { ...input, pairs, start, store, log, warnings, warn };
  try {
    return await runStages(stages);
  } catch (error) {
    if (!runAlreadyRecorded(error)) await recordFailure(stages, error).catch(() => undefined);
    throw error;
  } finally {
    store.close();
  }
}

async function runStages(stages: Stages): Promise<SyncSummary> {
  const listing = await listStage(stages);
  const plan = await planStage(stages, listing);
  const pending: PendingManifests = { listings: journalListings(listing.listed, stages.store.mode === 'archive'), stored: stages.store.mode === 'warehouse' };
  if (stages.options.dryRun) return await dryRunRecord(stages, listing, plan, pending);
  const fetched = await fetchStage(stages, plan);
  const loaded = await loadStage(stages, plan, fetched, pending);
  return await recordStage(stages, listing, plan, fetched, loaded);
}

/** Listing: the manifest pages coverage says moved (network; the warehouse is closed first if any page is asked for). */
function listStage(stages: Stages): Promise<ManifestListing> {
  const { options, api, signal, coverage, pairs, store, warn, events } = stages;
  events.phase?.('manifests');
  return listMovedManifests({
    options,
    api,
    signal,
    coverage,
    pairs,
    held: store.held,
    warn,
    ...(events.manifestFilesListed ? { onFilesListed: events.manifestFilesListed } : {}),
    beforeNetwork: () => store.release(),
  });
}

/** Plan: the listing stored, the planner's state read in SQL, the archive checked, then planSync alone decides. */
async function planStage(stages: Stages, listing: ManifestListing): Promise<Plan> {
  const { store, options, warn } = stages;
  stages.events.phase?.('plan');
  const conn = await store.planConnection(warn);
  await storeListing(conn, listing.listed);
  const input = await planInputOf(conn, stages.pairs, stages.coverage, options.selection, stages.me);
  const archived = await archivedVersions(filesToCheck(input), options.archiveRoot);
  const plan = settlePlan(options, planSync({ ...input, archived }), input, archived, stages.events);
  for (const note of brokenReloadNotes(plan)) warn(note);
  stages.log?.note({ filesPlanned: plan.toDownload.length + plan.toReload.length, filesDeferred: plan.deferred.length });
  return plan;
}

/** FetchReport: download, verify, archive; each credit and file written down as it is spent (warehouse closed). */
async function fetchStage(stages: Stages, plan: Plan): Promise<FetchReport> {
  const { options, events, api, store, log } = stages;
  events.phase?.('download', `${plan.toDownload.length} files`);
  if (plan.toDownload.length === 0) return emptyFetch();
  store.release();
  const unwritable = await logReady(log);
  if (unwritable !== undefined) {
    const stopped = { ...emptyFetch(), deferred: plan.toDownload, localWriteError: unwritable };
    for (const warning of downloadWarnings(stopped)) stages.warn(warning);
    return stopped;
  }
  const fetched = await fetchFiles(plan.toDownload, {
    archiveRoot: options.archiveRoot,
    concurrency: options.selection.concurrency,
    download: api.download,
    quotaStopOf: api.quotaStopOf,
    signal: stages.signal,
    credits: new CreditMeter(plan.budget.available),
    ...definedOnly({ onFile: events.file, spend: log }),
  });
  for (const warning of downloadWarnings(fetched)) stages.warn(warning);
  return fetched;
}

/** The local write error that keeps the spend log from being written (nothing is paid for then), if any. */
async function logReady(log: SpendLog | undefined): Promise<string | undefined> {
  try {
    await log?.ready();
    return undefined;
  } catch (error) {
    const local = localWriteErrorOf(error);
    if (local === undefined) throw error;
    return local;
  }
}

/**
 * LoadReport: the journal's waiting files first, then this run's, in the warehouse (waiting up to
 * --wait-lock); a stop signal ends the load after the file in flight. Held past the wait, every paid
 * file goes to the journal and the run exits 5.
 */
async function loadStage(stages: Stages, plan: Plan, fetched: FetchReport, pending: PendingManifests): Promise<LoadReport> {
  const { options, signal, store } = stages;
  const toLoad = [...reloadsOf(plan, options.archiveRoot), ...fetched.verified];
  stages.events.phase?.('load', `${toLoad.length} files`);
  // Manifests listed on a copy go to the journal before any wait: a kill during it loses nothing.
  await journalFiles(options.archiveRoot, [], pending);
  const writer = await store.writer(options.waitLockSeconds ?? DEFAULT_WAIT_LOCK_SECONDS, signal);
  if ('heldBy' in writer) throw await heldOut(stages, plan, fetched, toLoad, writer.heldBy);
  const { conn } = writer;
  // The run's own listing answers the claims it journaled itself: only older claims cost a request.
  const check = { list: manifestLister(stages.api.manifestPage), known: pending.listings };
  const fromJournal = await applyJournal(conn, options.archiveRoot, { check, signal, ...definedOnly({ schemaContract: options.schemaContract }) });
  const result = await loadVerified(conn, options.archiveRoot, toLoad, signal, (done) => stages.events.loadDone?.(done, toLoad.length), options.schemaContract);
  // Held by the freeze contract: paid and archived, they wait in the journal for gexwh load --accept-layout.
  await journalFiles(options.archiveRoot, result.held, { listings: [], stored: true });
  await promoteLoadedVersions(conn, options.archiveRoot);
  for (const failed of fetched.failed) {
    await recordFileStatus(conn, { ...failed, archivePath: null, bytes: failed.bytes, rows: failed.rows }, 'failed_verify', failed.error);
  }
  for (const warning of [...fromJournal.warnings, ...result.warnings]) stages.warn(warning);
  const earlier = fromJournal.filesLoaded + store.waiting.filesLoaded;
  return {
    loaded: result.loaded + earlier,
    rows: result.rows + fromJournal.rowsLoaded + store.waiting.rowsLoaded,
    failed: [...result.failed, ...fromJournal.failed.map(({ file, error }) => ({ file: plannedOf(file), error }))],
    notLoaded: result.notLoaded,
    fromJournal: earlier,
  };
}

/**
 * RunRecord: with --fill-levels the levels fill first (network, warehouse closed), then the run's
 * record in the warehouse, its unloaded files in the journal, and the spend log closed.
 */
async function recordStage(stages: Stages, listing: ManifestListing, plan: Plan, fetched: FetchReport, loaded: LoadReport): Promise<SyncSummary> {
  const { options, signal, log } = stages;
  const quotaStop = listing.quotaStop ?? fetched.quotaStop;
  const levelsFilled = await fillStage(stages, quotaStop);
  if (loaded.notLoaded.length > 0) {
    stages.warn(
      `${loaded.notLoaded.length} paid file(s) not loaded (stopped) wait in the journal; the next gexwh sync, or gexwh load, loads them for 0 credits`,
    );
  }
  const outcome = loadedOutcome(signal.aborted, fetched.failed.length + loaded.failed.length, fetched.localWriteError !== undefined);
  const summary = summaryOf(stages, listing, plan, fetched, loaded, outcome, quotaStop ?? levelsFilled?.quotaStop, levelsFilled);
  const journaled = await writeRecord(stages, summary, { listings: [], stored: true });
  await journalFiles(options.archiveRoot, loaded.notLoaded, { listings: [], stored: true });
  await log?.close({ journaled });
  if (signal.aborted) throw new InterruptedError(abortSignalName(signal), { cause: summary });
  if (summary.outcome === 'partial') {
    throw new PartialFailureError(partialFailureMessage(fetched.localWriteError, summary.filesDeferred, summary.filesFailed.length), {}, { cause: summary });
  }
  return summary;
}

/** A plan spends no credit: with --fill-levels it fills in the warehouse, then it records its run. */
async function dryRunRecord(stages: Stages, listing: ManifestListing, plan: Plan, pending: PendingManifests): Promise<SyncSummary> {
  const levelsFilled = stages.store.mode === 'warehouse' || stages.store.mode === 'none' ? await fillStage(stages, listing.quotaStop) : undefined;
  const summary = summaryOf(stages, listing, plan, emptyFetch(), NOTHING_LOADED, 'dry_run', listing.quotaStop, levelsFilled);
  await writeRecord(stages, summary, pending);
  return summary;
}

/** The run record in the warehouse when it can be opened (waiting up to --wait-lock), else in the journal (true). */
async function writeRecord(stages: Stages, summary: SyncSummary, pending: PendingManifests): Promise<boolean> {
  const { options, store, start, signal } = stages;
  if (store.mode === 'none') return false; // a plan beside no warehouse leaves no trace, not even in the archive
  const wait = options.dryRun ? 0 : (options.waitLockSeconds ?? DEFAULT_WAIT_LOCK_SECONDS);
  const writer = await store.writer(wait, signal);
  if ('conn' in writer) {
    await recordRun(writer.conn, start, store.runId, runCounts(summary), pending);
    return false;
  }
  await journalFiles(options.archiveRoot, [], pending);
  await journalRun(options.archiveRoot, start, store.runId, runCounts(summary));
  return true;
}

/** The run failed or was stopped before its load: what it had spent is recorded, its paid files wait in the journal. */
async function recordFailure(stages: Stages, error: unknown): Promise<void> {
  const { options, store, start, log, api } = stages;
  const counts = {
    ...log?.counts(),
    outcome: failureOutcome(error),
    requestsSpent: api.requestsSpent(),
    error: error instanceof Error ? error.message : String(error),
  };
  await journalFiles(options.archiveRoot, log?.files() ?? [], { listings: [], stored: true });
  const writer = await store.writer(0, stages.signal).catch(() => ({ heldBy: undefined }));
  if ('conn' in writer) await recordRun(writer.conn, start, store.runId, counts, { listings: [], stored: true });
  else await journalRun(options.archiveRoot, start, store.runId, counts);
  await log?.close({ journaled: !('conn' in writer) });
}

/** The load found the warehouse held past --wait-lock (or a stop ended the wait): everything waits in the journal. */
async function heldOut(stages: Stages, plan: Plan, fetched: FetchReport, toLoad: VerifiedFile[], pid: number | undefined): Promise<Error> {
  const { options, signal, store, start, log } = stages;
  await journalFiles(options.archiveRoot, toLoad, { listings: [], stored: true });
  const outcome = signal.aborted ? 'interrupted' : 'locked';
  const summary = summaryOf(stages, { listed: new Map(), skipped: [] }, plan, fetched, { ...NOTHING_LOADED, notLoaded: toLoad }, outcome, fetched.quotaStop);
  const withEarlier = { ...summary, filesLoaded: store.waiting.filesLoaded, rowsLoaded: store.waiting.rowsLoaded };
  await journalRun(options.archiveRoot, start, store.runId, runCounts(withEarlier));
  await log?.close({ journaled: true });
  if (signal.aborted) return new InterruptedError(abortSignalName(signal), { cause: withEarlier });
  const waitedSeconds = options.waitLockSeconds ?? DEFAULT_WAIT_LOCK_SECONDS;
  const filesWaiting = toLoad.length;
  const filesPaid = toLoad.filter((file) => !file.fromArchive).length;
  return heldError({ dbPath: options.dbPath, archiveRoot: options.archiveRoot, pid, waitedSeconds, filesWaiting, filesPaid }, withEarlier);
}

/** --fill-levels: sessions without a levels file, from /history/levels (network: the warehouse is closed first). */
async function fillStage(stages: Stages, quotaStop: FetchReport['quotaStop']): Promise<FillLevelsReport | undefined> {
  const { options, coverage, pairs, signal, warn, api } = stages;
  if (!options.fillLevels) return undefined;
  stages.events.phase?.('fill');
  stages.store.release();
  const { since, until, order, maxRequests } = options.selection;
  const selection = {
    dbPath: options.dbPath,
    dryRun: options.dryRun,
    order,
    waitSeconds: options.waitLockSeconds ?? 0,
    ...definedOnly({ since, until, maxRequests }),
  };
  return fillLevelsForSync(api, { ...selection, coverage, pairs, signal, warn }, quotaStop);
}

function summaryOf(
  stages: Stages,
  listing: Pick<ManifestListing, 'listed' | 'skipped'>,
  plan: Plan,
  fetched: FetchReport,
  loaded: LoadReport,
  outcome: SyncSummary['outcome'],
  quotaStop: FetchReport['quotaStop'],
  levelsFilled?: FillLevelsReport,
): SyncSummary {
  return summarize({
    command: stages.options.command,
    dryRun: stages.options.dryRun,
    plan,
    manifestsListed: [...listing.listed.values()].filter((pair) => pair.requests > 0).length,
    fetched,
    loaded,
    requestsSpent: stages.api.requestsSpent(),
    me: stages.me,
    quotaStop,
    warnings: stages.warnings,
    skipped: [...stages.skipped, ...listing.skipped],
    outcome,
    ...(levelsFilled ? { levelsFilled } : {}),
  });
}
