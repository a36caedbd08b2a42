// `gexwh capture`: one snapshot of the current-data endpoints per (venue, symbol), for a cron entry
// every 15 minutes. Order per target: /levels (1 request; tells market_open and as_of), then
// /gex/term-oi (1), then with --by-strike /gex/by-strike-enhanced per expiration (1 each). The free
// /coins and /expirations calls plan the cost before anything is spent; --dry-run stops there.
//
// A closed market (market_open false) is skipped after /levels unless --force, except that its
// last snapshot (the close) is taken once when term_structure does not hold that as_of yet. Each
// target's snapshot is written to the live journal (src/journal/live-journal.ts) as soon as it is taken,
// without the warehouse; then the journal is loaded (rows in one transaction) with the run's
// sync.runs row, waiting up to --wait-lock for another process holding the warehouse. Held past
// that, the snapshots stay journaled and the capture exits 5: nothing is lost.
import type { DuckDBConnection } from '@duckdb/node-api';
import { existsSync } from 'node:fs';
import type { CaptureApi } from './api-port.js';
import { ApiError, AuthError, GexwhError, InterruptedError, LockError, PartialFailureError, QuotaExceededError } from '../core/errors.js';
import { finishRun, openReader, openWriter, startRun, type RunCounts, type RunOutcome, type Warehouse } from '../warehouse/index.js';
import { latestTermCaptures, type LiveTable } from '../warehouse/live.js';
import { captureSlotStart, captureTargets, heldSlotOf, targetCost, tradfiClearlyClosed, type CaptureTarget } from './capture-targets.js';
import type { CaptureKey } from '../journal/live-rows.js';
import { journalRun } from '../journal/held.js';
import { journalSnapshot, listSnapshots, loadLiveJournal, pendingTermCaptures, pruneLoadedSnapshots, type LiveSnapshot } from '../journal/live-journal.js';
import { holderPidOf, openWaiting } from '../journal/load-pending.js';
import { pairKey } from '../core/pairs.js';
import { CreditMeter, UNLIMITED } from '../core/credit-meter.js';
import type { CaptureOptions, CaptureSummary, TargetReport } from './capture-types.js';
import { formatInstant } from '../time/dates.js';

export type { CaptureEvents, CaptureOptions, CaptureSummary, TargetReport, TargetStatus } from './capture-types.js';

/** Thrown between requests when --max-requests is reached. */
export class BudgetReached extends Error {}

export async function runCapture(api: CaptureApi, options: CaptureOptions): Promise<CaptureSummary> {
  const startedAt = new Date();
  const warnings: string[] = [];
  const warn = (message: string) => {
    warnings.push(message);
    options.warn?.(message);
  };
  const coins = await api.coins();
  const serverTime = coins.meta.timestamp;
  const { targets, warnings: selectionWarnings } = captureTargets(options.symbols, options.exchanges, coins.data.markets);
  selectionWarnings.forEach(warn);

  const held = await heldCaptures(options);
  const reports = await planTargets(api, targets, options, new Date(serverTime), held);
  const summary = plannedSummary(options, serverTime, reports, warnings);
  const toCapture = reports.filter((r) => r.status === 'planned');
  if (options.dryRun || toCapture.length === 0) return summary;

  const spentBefore = api.requestsSpent();
  const fatal = await captureAll(api, toCapture, options, summary, held, warn);
  summary.requestsSpent = api.requestsSpent() - spentBefore;
  const failed = reports.filter((r) => r.status === 'failed');
  // Paid snapshots are written even when the run stops on an error. A refused key wrote nothing
  // and records nothing: the warehouse is not the place for a failed login.
  if (!(fatal instanceof AuthError)) await loadCaptures(options, startedAt, summary, outcomeOf(fatal, failed.length), fatal, warn);
  // eslint-disable-next-line @typescript-eslint/only-throw-error -- the error that ended the run, rethrown as it was caught
  if (fatal !== undefined) throw fatal;
  if (failed.length > 0) {
    const list = failed.map((r) => `${r.exchange}/${r.symbol}: ${r.reason ?? 'failed'}`).join('; ');
    throw new PartialFailureError(`${failed.length} capture target(s) failed (${list}); everything else was committed`, {}, { cause: summary });
  }
  return summary;
}

function plannedSummary(options: CaptureOptions, serverTime: string, reports: TargetReport[], warnings: string[]): CaptureSummary {
  return {
    dryRun: options.dryRun,
    serverTime,
    targets: reports,
    plannedRequests: reports.reduce((sum, r) => sum + r.plannedRequests, 0),
    requestsSpent: 0,
    rowsInserted: { live_levels: 0, term_structure: 0, live_strikes: 0 },
    snapshotsJournaled: 0,
    snapshotsLoaded: 0,
    warnings,
  };
}

/** Captures the targets in order; returns the error that ended the run early, if one did. */
async function captureAll(
  api: CaptureApi,
  toCapture: TargetReport[],
  options: CaptureOptions,
  summary: CaptureSummary,
  held: ReadonlyMap<string, string>,
  warn: (message: string) => void,
): Promise<unknown> {
  // --max-requests as the run's meter: every request sent is taken from it (a failed one may still be charged).
  const requests = new CreditMeter(options.maxRequests ?? UNLIMITED);
  options.events?.phase?.('capture', `${toCapture.length} targets`);
  for (const [index, report] of toCapture.entries()) {
    if (index > 0) options.events?.targetsDone?.(index, toCapture.length);
    if (options.signal.aborted) return interruption(options.signal);
    if (summary.stoppedBy !== undefined) {
      report.status = 'not_reached';
      report.reason = stopReason(summary.stoppedBy, options.maxRequests);
      continue;
    }
    const fatal = await captureJournaled(api, report, options, summary, held, requests, warn);
    if (fatal !== undefined) return fatal;
  }
  return undefined;
}

/** One target, its snapshot journaled whatever happens; returns an error that ends the run. */
async function captureJournaled(
  api: CaptureApi,
  report: TargetReport,
  options: CaptureOptions,
  summary: CaptureSummary,
  held: ReadonlyMap<string, string>,
  requests: CreditMeter,
  warn: (message: string) => void,
): Promise<unknown> {
  const draft: SnapshotDraft = { strikes: [] };
  try {
    await captureTarget(api, report, options, held, draft, requests, warn);
    return undefined;
  } catch (error) {
    return settleTargetError(error, report, options, summary, warn);
  } finally {
    // Written before anything else can fail: a snapshot not kept now can never be fetched again.
    if (draft.key && draft.levels) {
      await journalSnapshot(options.archiveRoot, { version: 1, key: draft.key, levels: draft.levels, term: draft.term ?? null, strikes: draft.strikes });
      summary.snapshotsJournaled++;
    }
  }
}

export type TargetErrorKind = 'interrupted' | 'max_requests' | 'quota' | 'fatal' | 'failed';

/** What an error during one target means for the run, first match wins. */
export function targetErrorKind(error: unknown, aborted: boolean): TargetErrorKind {
  if (aborted) return 'interrupted';
  if (error instanceof BudgetReached) return 'max_requests';
  if (error instanceof QuotaExceededError) return 'quota';
  return isFatal(error) ? 'fatal' : 'failed';
}

export function stopReason(stoppedBy: 'max_requests' | 'quota', maxRequests: number | undefined): string {
  return stoppedBy === 'quota' ? 'request quota used up' : `--max-requests ${maxRequests} reached`;
}

/** Marks the target and the summary by the error; returns the error when it ends the run. */
function settleTargetError(error: unknown, report: TargetReport, options: CaptureOptions, summary: CaptureSummary, warn: (message: string) => void): unknown {
  const kind = targetErrorKind(error, options.signal.aborted);
  if (kind === 'interrupted') return interruption(options.signal);
  if (kind === 'fatal') return error;
  if (kind === 'failed') {
    report.status = 'failed';
    report.reason = messageOf(error);
    return undefined;
  }
  summary.stoppedBy = kind;
  if (error instanceof QuotaExceededError) {
    summary.quotaStop = { bucket: error.bucket, ...(error.resetAt ? { resetAt: error.resetAt.toISOString() } : {}) };
    warn(`request quota exhausted; resets at ${summary.quotaStop.resetAt ?? 'midnight UTC'}`);
  } else {
    warn(`--max-requests ${options.maxRequests} reached: capture of ${report.exchange}/${report.symbol} and later targets cut short`);
  }
  // Stopped during this target: what it got so far is kept.
  report.status = report.requests > 0 ? 'captured' : 'not_reached';
  report.reason = stopReason(kind, options.maxRequests);
  return undefined;
}

function interruption(signal: AbortSignal): InterruptedError {
  return new InterruptedError(signal.reason === 'SIGTERM' ? 'SIGTERM' : 'SIGINT');
}

/** Loads the live journal (this run's snapshots and any held-out earlier ones) with the run record. */
async function loadCaptures(
  options: CaptureOptions,
  startedAt: Date,
  summary: CaptureSummary,
  outcome: RunOutcome,
  fatal: unknown,
  warn: (message: string) => void,
): Promise<void> {
  const warehouse = await openForCapture(options, startedAt, summary, outcome, fatal);
  try {
    const live = await loadLiveJournal(warehouse.connection, options.archiveRoot);
    for (const path of live.unreadable) warn(`the journaled snapshot ${path} cannot be read; it is left where it is`);
    summary.rowsInserted = live.inserted;
    summary.snapshotsLoaded = live.snapshots;
    await recordCaptureRun(warehouse.connection, options, startedAt, { summary, inserted: live.inserted, outcome, fatal });
  } finally {
    warehouse.close();
  }
  if (options.keepDays !== undefined) await pruneLoadedSnapshots(options.archiveRoot, options.keepDays);
}

/** Why a target is skipped before any request, unless --force: a closed TradFi market, a slot already held. */
function freeSkipReason(target: CaptureTarget, held: ReadonlyMap<string, string>, serverNow: Date): string | undefined {
  if (target.market === 'tradfi' && tradfiClearlyClosed(serverNow)) return 'market closed (outside New York regular hours); --force captures anyway';
  const asOf = heldSlotOf(target, held, serverNow);
  if (asOf === undefined) return undefined;
  return `the 15-minute slot from ${formatInstant(captureSlotStart(serverNow))} is already captured (as_of ${formatInstant(asOf)}): 0 requests; --force captures again`;
}

/** Free calls only: the TradFi hours filter, the slots already held, and /expirations for the by-strike cost. */
async function planTargets(
  api: CaptureApi,
  targets: CaptureTarget[],
  options: CaptureOptions,
  serverNow: Date,
  held: ReadonlyMap<string, string>,
): Promise<TargetReport[]> {
  const reports: TargetReport[] = [];
  for (const target of targets) {
    const report: TargetReport = { ...target, status: 'planned', plannedRequests: 0, requests: 0 };
    reports.push(report);
    const skip = options.force ? undefined : freeSkipReason(target, held, serverNow);
    if (skip !== undefined) {
      report.status = 'skipped';
      report.reason = skip;
      continue;
    }
    if (options.byStrike) {
      try {
        report.expirations = (await api.expirations(target.exchange, target.symbol)).data.expirations;
      } catch (error) {
        if (isFatal(error)) throw error;
        report.status = 'failed';
        report.reason = messageOf(error);
        continue;
      }
    }
    report.plannedRequests = targetCost(options.byStrike, report.expirations?.length ?? 0);
  }
  return reports;
}

/** One request of a target taken from the run's meter; BudgetReached when --max-requests leaves none. */
function takeRequest(requests: CreditMeter, report: TargetReport): void {
  if (!requests.take()) throw new BudgetReached();
  report.requests++;
}

/** What one target's requests returned so far (a stop may cut it short). */
interface SnapshotDraft {
  key?: CaptureKey;
  levels?: LiveSnapshot['levels'];
  term?: LiveSnapshot['term'];
  strikes: LiveSnapshot['strikes'];
}

async function captureTarget(
  api: CaptureApi,
  report: TargetReport,
  options: CaptureOptions,
  held: ReadonlyMap<string, string>,
  draft: SnapshotDraft,
  requests: CreditMeter,
  warn: (message: string) => void,
): Promise<void> {
  takeRequest(requests, report);
  const levels = await api.levels(report.exchange, report.symbol);
  const key: CaptureKey = { exchange: levels.meta.exchange_resolved, symbol: levels.meta.symbol.toUpperCase(), market: report.market };
  report.resolved = key.exchange;
  report.asOf = levels.meta.as_of;
  report.marketOpen = levels.meta.market_open;
  draft.key = key;
  draft.levels = { data: levels.data, meta: levels.meta };
  report.status = 'captured';

  const closeHeld = held.get(pairKey(key)) === new Date(levels.meta.as_of).toISOString();
  if (!levels.meta.market_open && !options.force && closeHeld) {
    report.status = 'skipped';
    report.reason = 'market closed and its last snapshot is already captured; --force captures anyway';
    return;
  }

  takeRequest(requests, report);
  const term = await api.termOi(report.exchange, report.symbol);
  draft.term = { data: term.data, meta: term.meta };

  for (const code of report.expirations ?? []) {
    takeRequest(requests, report);
    try {
      const profile = await api.gexByStrike(report.exchange, report.symbol, code);
      draft.strikes.push({ code, response: { data: profile.data, meta: profile.meta } });
    } catch (error) {
      // An expiration can expire between /expirations and this call: note it, keep the rest.
      if (!(error instanceof ApiError) || error.slug !== 'no_data') throw error;
      warn(`${report.exchange}/${report.symbol} ${code}: no by-strike data (${error.message})`);
    }
  }
}

/** Errors no other target can escape: a refused key, a stop signal. */
function isFatal(error: unknown): boolean {
  if (error instanceof AuthError || error instanceof InterruptedError) return true;
  if (error instanceof ApiError && (error.status === 401 || error.slug === 'subscription_required')) return true;
  return false;
}

function messageOf(error: unknown): string {
  if (error instanceof ApiError) return `${error.slug}: ${error.message}`;
  if (error instanceof GexwhError || error instanceof Error) return error.message;
  return String(error);
}

function outcomeOf(fatal: unknown, failedTargets: number): RunOutcome {
  if (fatal instanceof InterruptedError) return 'interrupted';
  if (fatal !== undefined) return 'failed';
  return failedTargets > 0 ? 'partial' : 'ok';
}

interface CaptureRunResult {
  summary: CaptureSummary;
  inserted: Record<LiveTable, number>;
  outcome: RunOutcome;
  fatal: unknown;
}

/** One sync.runs row (command 'capture'): requests spent and live rows added. */
async function recordCaptureRun(conn: DuckDBConnection, options: CaptureOptions, startedAt: Date, result: CaptureRunResult): Promise<void> {
  const runId = await startRun(conn, { command: 'capture', options: recordedOptionsOf(options), startedAt });
  const { live_levels, term_structure, live_strikes } = result.inserted;
  await finishRun(conn, runId, {
    outcome: result.outcome,
    requestsSpent: result.summary.requestsSpent,
    rowsLoaded: live_levels + term_structure + live_strikes,
    ...(result.fatal !== undefined ? { error: messageOf(result.fatal) } : {}),
  });
}

/**
 * Closes already captured (term_structure, or a snapshot still journaled), per `exchange|symbol`.
 * Read beside a reader through a READ_ONLY open; beside a writer, only the journal is known (a
 * closed market's last snapshot may then be taken once more: same rows, a few requests).
 */
async function heldCaptures(options: CaptureOptions): Promise<Map<string, string>> {
  const held = new Map<string, string>();
  // No warehouse yet: nothing is held in it, and planning (a dry run too) must not create one.
  for (const readOnly of existsSync(options.dbPath) ? [false, true] : []) {
    let warehouse: Warehouse;
    try {
      // Sandboxed either way: a warehouse from elsewhere may hold views that read local files.
      warehouse = readOnly ? await openReader(options.dbPath) : await openWriter(options.dbPath, options.archiveRoot);
    } catch (error) {
      if (error instanceof LockError) continue;
      throw error;
    }
    try {
      for (const [key, asOf] of await latestTermCaptures(warehouse.connection)) held.set(key, asOf);
    } finally {
      warehouse.close();
    }
    break;
  }
  for (const [key, asOf] of await pendingTermCaptures(options.archiveRoot)) if ((held.get(key) ?? '') < asOf) held.set(key, asOf);
  return held;
}

/** The load's open, waiting up to --wait-lock; held past it, the run record is journaled and exit 5 says what waits. */
async function openForCapture(options: CaptureOptions, startedAt: Date, summary: CaptureSummary, outcome: RunOutcome, fatal: unknown): Promise<Warehouse> {
  const waitSeconds = options.waitSeconds ?? 60;
  try {
    return await openWaiting(options, waitSeconds, options.signal);
  } catch (error) {
    if (!(error instanceof LockError)) throw error;
    const counts: RunCounts = {
      outcome: fatal === undefined ? 'locked' : outcome,
      requestsSpent: summary.requestsSpent,
      ...(fatal !== undefined ? { error: messageOf(fatal) } : {}),
    };
    await journalRun(options.archiveRoot, { command: 'capture', options: recordedOptionsOf(options), startedAt }, undefined, counts);
    const waiting = (await listSnapshots(options.archiveRoot, 'pending')).length;
    const pid = holderPidOf(error);
    throw new LockError(
      `the warehouse ${options.dbPath} is held by ${pid === undefined ? 'another process' : `process ${pid}`} (waited ${waitSeconds} s): ` +
        `${waiting} snapshot(s) journaled, will load on the next capture, sync or gexwh load`,
      { db: options.dbPath, ...(pid !== undefined ? { pid } : {}), snapshots_waiting: waiting, snapshots_journaled: summary.snapshotsJournaled },
      { cause: summary },
    );
  }
}

function recordedOptionsOf(options: CaptureOptions): Record<string, unknown> {
  return {
    symbols: options.symbols,
    exchanges: options.exchanges ?? null,
    byStrike: options.byStrike,
    force: options.force,
    maxRequests: options.maxRequests ?? null,
  };
}
