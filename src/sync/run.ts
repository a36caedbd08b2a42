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
import { journalFiles, plannedOf, type RunStartRecord } from '../journal/held.js';
import { journalListed, recordRunIn, type LeftOver, type RunBook, type Writer } from './run-record.js';
import { abortSignalName, downloadWarnings, failureOutcome, loadedOutcome, partialFailureMessage, runAlreadyRecorded } from './run-outcome.js';
import { applyJournal, DEFAULT_WAIT_LOCK_SECONDS, heldError, loadSyncFiles } from '../journal/load-pending.js';
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
import { namesOf, planInputOf, reloadsOf, selectionOf, storeListing } from './stage-io.js';
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
    const names = namesOf(options.selection);
    const pairs = selectPairs(coverage, { ...selectionOf(options.selection), markets: me.markets });
    checkSelectionNames({ ...names, labels }, knownFromCoverage(coverage, me.markets, skipped));
    checkDatesInCoverage(options.selection, pairs, coverage, labels);
    const remote: Remote = { me, coverage, skipped, pairs };
    const warnings: string[] = [];
    const warn = warnerOf(warnings, stops.events);
    const run: Run = { options, api, signal, events: stops.events, warnings, warn };
    // A plan never creates a warehouse (nor its folder or lock file); it plans from an empty state, unlocked.
    const absent = options.dryRun && !existsSync(resolve(options.dbPath));
    const lock = absent ? undefined : await acquireSyncLock(options.dbPath, { waitSeconds: options.waitLockSeconds ?? 0 });
    try {
      return await runLocked(run, remote, absent);
    } finally {
      await lock?.release();
    }
  } finally {
    stops.dispose();
  }
}

/** What the run holds from its start to its end; none of it changes from stage to stage. */
interface Run {
  options: SyncOptions;
  api: SyncApi;
  signal: AbortSignal;
  events: SyncEvents;
  /** Every warning told so far, for the summary. */
  warnings: string[];
  warn: (message: string) => void;
}

/** What the free calls answered: the key's credits and markets, the coverage, and the pairs selected from it. */
interface Remote {
  me: Awaited<ReturnType<SyncApi['me']>>;
  coverage: CoverageRow[];
  skipped: SkippedCoverageRow[];
  pairs: Pair[];
}

function warnerOf(warnings: string[], events: SyncEvents): (message: string) => void {
  return (message) => {
    warnings.push(message);
    events.warn?.(message);
  };
}

async function runLocked(run: Run, remote: Remote, absent: boolean): Promise<SyncSummary> {
  const { options, warn } = run;
  for (const row of remote.skipped) warn(describeSkipped(row));
  const unknownMarkets = remote.me.unknownMarkets ?? [];
  if (unknownMarkets.length > 0) warn(`/me lists market(s) this version does not know (${unknownMarkets.join(', ')}): ignored`);
  if (!absent) await removeStaleTemps(options.archiveRoot); // without the lock, a running sync may own them
  const start: RunStartRecord = { command: options.command, options: options.recordedOptions, startedAt: new Date() };
  const quotaNow = { remaining: remote.me.creditsRemaining, reset: remote.me.creditsReset };
  const journalCheck = { list: manifestLister(run.api.manifestPage) };
  const { pairs, coverage } = remote;
  const store = await openStore({ ...options, ...start, pairs, coverage, absent, quotaNow, journalCheck }, warn);
  // What the start's load of the journal refused (a bad entry, a journal file not read) is told, not dropped.
  for (const warning of store.waiting.warnings) warn(warning);
  if (store.waiting.filesLoaded > 0) warn(`${store.waiting.filesLoaded} file(s) paid by an earlier run and waiting in the archive were loaded (0 credits)`);
  const log = options.dryRun
    ? undefined
    : openSpendLog(
        options.archiveRoot,
        { ...start, quotaAtStart: quotaNow, ...(store.runId !== undefined ? { runId: store.runId } : {}) },
        run.api.requestsSpent,
      );
  const book: RunBook = { store, archiveRoot: options.archiveRoot, start, log };
  try {
    return await runStages(run, remote, book);
  } catch (error) {
    if (!runAlreadyRecorded(error)) await recordFailure(run, book, error).catch(() => undefined);
    throw error;
  } finally {
    store.close();
  }
}

async function runStages(run: Run, remote: Remote, book: RunBook): Promise<SyncSummary> {
  const listing = await listStage(run, remote, book.store);
  const plan = await planStage(run, remote, listing, book.store);
  const end = run.options.dryRun ? await planEnd(run, remote, book, listing, plan) : await syncEnd(run, remote, book, listing, plan);
  // Every way a run ends is recorded here (a failure in recordFailure), then told.
  const counts = runCounts(end.summary);
  await recordRunIn(book, end.writer, counts, end.left);
  if (end.error !== undefined) throw end.error;
  return end.summary;
}

/** How a run ends: its summary, where its record can go, what it leaves to the journal, and the error it exits with, if any. */
interface Ending {
  summary: SyncSummary;
  writer: Writer;
  left: LeftOver;
  error?: Error;
}

/** A sync past its plan: fetch, then load (or find the warehouse held), then with --fill-levels the levels. */
async function syncEnd(run: Run, remote: Remote, book: RunBook, listing: ManifestListing, plan: Plan): Promise<Ending> {
  const fetched = await fetchStage(run, plan, book);
  const loaded = await loadStage(run, plan, fetched, listing, book);
  if ('heldBy' in loaded) return heldOut(run, remote, book, { plan, fetched, toLoad: loaded.toLoad }, loaded.heldBy);
  return await loadedEnd(run, remote, book, { listing, plan, fetched, loaded });
}

/** Listing: the manifest pages coverage says moved (network; the warehouse is closed first if any page is asked for). */
function listStage(run: Run, remote: Remote, store: SyncStore): Promise<ManifestListing> {
  const { options, api, signal, warn, events } = run;
  events.phase?.('manifests');
  return listMovedManifests({
    options,
    api,
    signal,
    coverage: remote.coverage,
    pairs: remote.pairs,
    held: store.held,
    warn,
    ...(events.manifestFilesListed ? { onFilesListed: events.manifestFilesListed } : {}),
    beforeNetwork: () => store.release(),
  });
}

/** Plan: the listing stored, the planner's state read in SQL, the archive checked, then planSync alone decides. */
async function planStage(run: Run, remote: Remote, listing: ManifestListing, store: SyncStore): Promise<Plan> {
  const { options, warn, events } = run;
  events.phase?.('plan');
  const conn = await store.planConnection(warn);
  await storeListing(conn, listing.listed);
  const input = await planInputOf(conn, remote.pairs, remote.coverage, options.selection, remote.me);
  const toCheck = filesToCheck(input);
  const archived = await archivedVersions(toCheck, options.archiveRoot);
  const plan = settlePlan(options, planSync({ ...input, archived }), input, archived, events);
  for (const note of brokenReloadNotes(plan)) warn(note);
  return plan;
}

/** FetchReport: download, verify, archive; each credit taken from the plan's meter and written down as it is spent (warehouse closed). */
async function fetchStage(run: Run, plan: Plan, book: RunBook): Promise<FetchReport> {
  const { options, events, api, warn } = run;
  const { log } = book;
  log?.note({ filesPlanned: plan.toDownload.length + plan.toReload.length, filesDeferred: plan.deferred.length });
  events.phase?.('download', `${plan.toDownload.length} files`);
  if (plan.toDownload.length === 0) return emptyFetch();
  book.store.release();
  const unwritable = await logReady(log);
  if (unwritable !== undefined) {
    const stopped = { ...emptyFetch(), deferred: plan.toDownload, localWriteError: unwritable };
    for (const warning of downloadWarnings(stopped)) warn(warning);
    return stopped;
  }
  const fetched = await fetchFiles(plan.toDownload, {
    archiveRoot: options.archiveRoot,
    concurrency: options.selection.concurrency,
    download: api.download,
    quotaStopOf: api.quotaStopOf,
    signal: run.signal,
    credits: new CreditMeter(plan.budget.available),
    ...definedOnly({ onFile: events.file, spend: log }),
  });
  for (const warning of downloadWarnings(fetched)) warn(warning);
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
 * --wait-lock); a stop signal ends the load after the file in flight. Held past the wait: the files
 * it would have loaded, and who holds the warehouse.
 */
async function loadStage(
  run: Run,
  plan: Plan,
  fetched: FetchReport,
  listing: ManifestListing,
  book: RunBook,
): Promise<LoadReport | { heldBy: Writer; toLoad: VerifiedFile[] }> {
  const { options, signal, events } = run;
  const { store } = book;
  const toLoad = [...reloadsOf(plan, options.archiveRoot), ...fetched.verified];
  events.phase?.('load', `${toLoad.length} files`);
  // Manifests listed on a copy go to the journal before any wait: a kill during it loses nothing.
  const listed = await journalListed(book, listing.listed);
  const writer = await store.writer(options.waitLockSeconds ?? DEFAULT_WAIT_LOCK_SECONDS, signal);
  if ('heldBy' in writer) return { heldBy: writer, toLoad };
  const { conn } = writer;
  // The run's own listing answers the claims it journaled itself: only older claims cost a request.
  const check = { list: manifestLister(run.api.manifestPage), known: listed };
  const fromJournal = await applyJournal(conn, options.archiveRoot, { check, signal, ...definedOnly({ schemaContract: options.schemaContract }) });
  const onProgress = (done: number) => events.loadDone?.(done, toLoad.length);
  const result = await loadSyncFiles(conn, options.archiveRoot, toLoad, onProgress, signal, options.schemaContract);
  // Held by the freeze contract: paid and archived, they wait in the journal for gexwh load --accept-layout.
  await journalFiles(options.archiveRoot, result.held, { listings: [], stored: true });
  await promoteLoadedVersions(conn, options.archiveRoot);
  for (const failed of fetched.failed) {
    await recordFileStatus(conn, { ...failed, archivePath: null, bytes: failed.bytes, rows: failed.rows }, 'failed_verify', failed.error);
  }
  for (const warning of [...fromJournal.warnings, ...result.warnings]) run.warn(warning);
  const earlier = fromJournal.filesLoaded + store.waiting.filesLoaded;
  return {
    loaded: result.loaded + earlier,
    rows: result.rows + fromJournal.rowsLoaded + store.waiting.rowsLoaded,
    failed: [...result.failed, ...fromJournal.failed.map(({ file, error }) => ({ file: plannedOf(file), error }))],
    notLoaded: result.notLoaded,
    fromJournal: earlier,
  };
}

/** The values the stages handed on, as the summary reads them. */
interface Stages {
  listing: Pick<ManifestListing, 'listed' | 'skipped' | 'quotaStop'>;
  plan: Plan;
  fetched: FetchReport;
  loaded: LoadReport;
}

/** A run that loaded: with --fill-levels the levels fill first (network, warehouse closed); its record waits for the warehouse up to --wait-lock. */
async function loadedEnd(run: Run, remote: Remote, book: RunBook, stages: Stages): Promise<Ending> {
  const { options, signal } = run;
  const { fetched, loaded } = stages;
  const quotaStop = stages.listing.quotaStop ?? fetched.quotaStop;
  const levelsFilled = await fillStage(run, remote, book.store, quotaStop);
  if (loaded.notLoaded.length > 0) {
    run.warn(`${loaded.notLoaded.length} paid file(s) not loaded (stopped) wait in the journal; the next gexwh sync, or gexwh load, loads them for 0 credits`);
  }
  const outcome = loadedOutcome(signal.aborted, fetched.failed.length + loaded.failed.length, fetched.localWriteError !== undefined);
  const summary = summaryOf(run, remote, stages, outcome, quotaStop ?? levelsFilled?.quotaStop, levelsFilled);
  const error = endingError(summary, signal, fetched.localWriteError);
  const writer = await book.store.writer(options.waitLockSeconds ?? DEFAULT_WAIT_LOCK_SECONDS, signal);
  return { summary, writer, left: { files: loaded.notLoaded }, ...(error !== undefined ? { error } : {}) };
}

/** The error a loaded run exits with: a stop signal (exit 130) or a partial failure (exit 4); none when it is done. */
function endingError(summary: SyncSummary, signal: AbortSignal, localWriteError: string | undefined): Error | undefined {
  if (signal.aborted) return new InterruptedError(abortSignalName(signal), { cause: summary });
  if (summary.outcome !== 'partial') return undefined;
  return new PartialFailureError(partialFailureMessage(localWriteError, summary.filesDeferred, summary.filesFailed.length), {}, { cause: summary });
}

/** A plan spends no credit: with --fill-levels it fills in the warehouse; its record and listing never wait for the warehouse. */
async function planEnd(run: Run, remote: Remote, book: RunBook, listing: ManifestListing, plan: Plan): Promise<Ending> {
  const { store } = book;
  const levelsFilled = store.mode === 'warehouse' || store.mode === 'none' ? await fillStage(run, remote, store, listing.quotaStop) : undefined;
  const summary = summaryOf(run, remote, { listing, plan, fetched: emptyFetch(), loaded: NOTHING_LOADED }, 'dry_run', listing.quotaStop, levelsFilled);
  return { summary, writer: await store.writer(0, run.signal), left: { files: [], listed: listing.listed } };
}

/** The run failed or was stopped before its load: what it had spent is recorded, its paid files wait in the journal. */
async function recordFailure(run: Run, book: RunBook, error: unknown): Promise<void> {
  const { log, store } = book;
  const counts = {
    ...log?.counts(),
    outcome: failureOutcome(error),
    requestsSpent: run.api.requestsSpent(),
    error: error instanceof Error ? error.message : String(error),
  };
  const writer = await store.writer(0, run.signal).catch(() => ({ heldBy: undefined }));
  await recordRunIn(book, writer, counts, { files: log?.files() ?? [] });
}

/** The load found the warehouse held past --wait-lock (or a stop ended the wait): everything waits in the journal. */
function heldOut(run: Run, remote: Remote, book: RunBook, paid: { plan: Plan; fetched: FetchReport; toLoad: VerifiedFile[] }, writer: Writer): Ending {
  const { options, signal } = run;
  const { plan, fetched, toLoad } = paid;
  const { waiting } = book.store;
  const outcome = signal.aborted ? 'interrupted' : 'locked';
  const listing = { listed: new Map(), skipped: [] };
  const held = summaryOf(run, remote, { listing, plan, fetched, loaded: { ...NOTHING_LOADED, notLoaded: toLoad } }, outcome, fetched.quotaStop);
  const summary = { ...held, filesLoaded: waiting.filesLoaded, rowsLoaded: waiting.rowsLoaded };
  const left = { files: toLoad };
  if (signal.aborted) return { summary, writer, left, error: new InterruptedError(abortSignalName(signal), { cause: summary }) };
  const waitedSeconds = options.waitLockSeconds ?? DEFAULT_WAIT_LOCK_SECONDS;
  const filesPaid = toLoad.filter((file) => !file.fromArchive).length;
  const pid = 'heldBy' in writer ? writer.heldBy : undefined;
  const details = { dbPath: options.dbPath, archiveRoot: options.archiveRoot, pid, waitedSeconds, filesWaiting: toLoad.length, filesPaid };
  return { summary, writer, left, error: heldError(details, summary) };
}

/** --fill-levels: sessions without a levels file, from /history/levels (network: the warehouse is closed first). */
async function fillStage(run: Run, remote: Remote, store: SyncStore, quotaStop: FetchReport['quotaStop']): Promise<FillLevelsReport | undefined> {
  const { options, signal, warn, api } = run;
  if (!options.fillLevels) return undefined;
  run.events.phase?.('fill');
  store.release();
  const { since, until, order, maxRequests } = options.selection;
  const selection = {
    dbPath: options.dbPath,
    dryRun: options.dryRun,
    order,
    waitSeconds: options.waitLockSeconds ?? 0,
    ...definedOnly({ since, until, maxRequests }),
  };
  return fillLevelsForSync(api, { ...selection, coverage: remote.coverage, pairs: remote.pairs, signal, warn }, quotaStop);
}

/** The run's summary from the values the stages handed on. */
function summaryOf(
  run: Run,
  remote: Remote,
  stages: Stages,
  outcome: SyncSummary['outcome'],
  quotaStop: FetchReport['quotaStop'],
  levelsFilled?: FillLevelsReport,
): SyncSummary {
  const { listing, plan, fetched, loaded } = stages;
  return summarize({
    command: run.options.command,
    dryRun: run.options.dryRun,
    plan,
    manifestsListed: [...listing.listed.values()].filter((pair) => pair.requests > 0).length,
    fetched,
    loaded,
    requestsSpent: run.api.requestsSpent(),
    me: remote.me,
    quotaStop,
    warnings: run.warnings,
    skipped: [...remote.skipped, ...listing.skipped],
    outcome,
    ...(levelsFilled ? { levelsFilled } : {}),
  });
}
