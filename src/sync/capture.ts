// `gexwh capture`: one snapshot of the current-data endpoints per (venue, symbol), for a cron entry
// every 15 minutes. Order per target: /levels (1 request; tells market_open and as_of), then
// /gex/term-oi (1), then with --by-strike /gex/by-strike-enhanced per expiration (1 each). The free
// /coins and /expirations calls plan the cost before anything is spent; --dry-run stops there.
//
// A closed market (market_open false) is skipped after /levels unless --force, except that its
// last snapshot (the close) is taken once when term_structure does not hold that as_of yet. The
// warehouse is opened twice, briefly: to read what is held, and to write the rows (one transaction)
// and the run's sync.runs row, so `status` shows captures next to syncs.
import type { DuckDBConnection } from '@duckdb/node-api';
import { QuotaExceededError, type ApiClient } from '../api/index.js';
import { ApiError, AuthError, GexwhError, InterruptedError, PartialFailureError } from '../errors.js';
import { finishRun, openWarehouse, startRun, type RunOutcome } from '../warehouse/index.js';
import { latestTermCaptures, writeLiveCapture, type LiveRows, type LiveTable } from '../warehouse/live.js';
import { captureTargets, targetCost, tradfiClearlyClosed, type CaptureTarget } from './capture-plan.js';
import { liveLevelsRow, liveStrikeRows, termStructureRows, type CaptureKey } from './capture-rows.js';
import type { QuotaStop } from './fetch.js';

export interface CaptureOptions {
  dbPath: string;
  symbols: readonly string[];
  /** Current-data venues; undefined: all for crypto, tradfi for TradFi. */
  exchanges?: readonly string[];
  byStrike: boolean;
  force: boolean;
  dryRun: boolean;
  maxRequests?: number;
  signal: AbortSignal;
  /** Wait this long for a sync holding the warehouse (default 60 s). */
  waitSeconds?: number;
  warn?(message: string): void;
}

export type TargetStatus = 'planned' | 'captured' | 'skipped' | 'failed' | 'not_reached';

export interface TargetReport extends CaptureTarget {
  status: TargetStatus;
  reason?: string;
  /** Resolved venue (meta.exchange_resolved) and snapshot time, once /levels answered. */
  resolved?: string;
  asOf?: string;
  marketOpen?: boolean;
  /** Upper bound before spending: levels + term-oi + by-strike per expiration. */
  plannedRequests: number;
  /** Requests sent for this target. */
  requests: number;
  expirations?: string[];
}

export interface CaptureSummary {
  dryRun: boolean;
  serverTime: string;
  targets: TargetReport[];
  plannedRequests: number;
  requestsSpent: number;
  /** Rows newly inserted per table (a repeated as_of adds none). */
  rowsInserted: Record<LiveTable, number>;
  stoppedBy?: 'max_requests' | 'quota';
  quotaStop?: QuotaStop;
  warnings: string[];
}

/** Thrown between requests when --max-requests is reached. */
class BudgetReached extends Error {}

export async function runCapture(client: ApiClient, options: CaptureOptions): Promise<CaptureSummary> {
  const startedAt = new Date();
  const warnings: string[] = [];
  const warn = (message: string) => {
    warnings.push(message);
    options.warn?.(message);
  };
  const coins = await client.coins();
  const serverTime = coins.meta.timestamp;
  const { targets, warnings: selectionWarnings } = captureTargets(options.symbols, options.exchanges, coins.data.markets);
  selectionWarnings.forEach(warn);

  const reports = await planTargets(client, targets, options, new Date(serverTime));
  const summary: CaptureSummary = {
    dryRun: options.dryRun,
    serverTime,
    targets: reports,
    plannedRequests: reports.reduce((sum, r) => sum + r.plannedRequests, 0),
    requestsSpent: 0,
    rowsInserted: { live_levels: 0, term_structure: 0, live_strikes: 0 },
    warnings,
  };
  const toCapture = reports.filter((r) => r.status === 'planned');
  if (options.dryRun || toCapture.length === 0) return summary;

  const held = await withWarehouse(options, latestTermCaptures);
  const rows: LiveRows = { live_levels: [], term_structure: [], live_strikes: [] };
  const spender = budget(options.maxRequests);
  const spentBefore = client.spent().requests;
  let fatal: unknown;
  for (const report of toCapture) {
    if (options.signal.aborted) {
      fatal = new InterruptedError(options.signal.reason === 'SIGTERM' ? 'SIGTERM' : 'SIGINT');
      break;
    }
    if (summary.stoppedBy !== undefined) {
      report.status = 'not_reached';
      report.reason = summary.stoppedBy === 'quota' ? 'request quota used up' : `--max-requests ${options.maxRequests} reached`;
      continue;
    }
    try {
      await captureTarget(client, report, options, held, rows, spender, warn);
    } catch (error) {
      if (options.signal.aborted) {
        fatal = new InterruptedError(options.signal.reason === 'SIGTERM' ? 'SIGTERM' : 'SIGINT');
        break;
      }
      if (error instanceof BudgetReached) {
        summary.stoppedBy = 'max_requests';
        warn(`--max-requests ${options.maxRequests} reached: capture of ${report.exchange}/${report.symbol} and later targets cut short`);
      } else if (error instanceof QuotaExceededError) {
        summary.stoppedBy = 'quota';
        summary.quotaStop = { bucket: error.bucket, ...(error.resetAt ? { resetAt: error.resetAt.toISOString() } : {}) };
        warn(`request quota exhausted; resets at ${summary.quotaStop.resetAt ?? 'midnight UTC'}`);
      } else if (isFatal(error)) {
        fatal = error;
        break;
      } else {
        report.status = 'failed';
        report.reason = messageOf(error);
        continue;
      }
      // Stopped during this target: what it got so far is kept.
      report.status = report.requests > 0 ? 'captured' : 'not_reached';
      report.reason = summary.stoppedBy === 'quota' ? 'request quota used up' : `--max-requests ${options.maxRequests} reached`;
    }
  }
  summary.requestsSpent = client.spent().requests - spentBefore;
  const failed = reports.filter((r) => r.status === 'failed');
  // Paid snapshots are written even when the run stops on an error. A refused key wrote nothing
  // and records nothing: the warehouse is not the place for a failed login.
  if (!(fatal instanceof AuthError)) {
    const outcome = outcomeOf(fatal, failed.length);
    summary.rowsInserted = await withWarehouse(options, async (conn) => {
      const inserted = hasRows(rows) ? await writeLiveCapture(conn, rows) : summary.rowsInserted;
      await recordCaptureRun(conn, options, startedAt, { summary, inserted, outcome, fatal });
      return inserted;
    });
  }
  if (fatal !== undefined) throw fatal;
  if (failed.length > 0) {
    const list = failed.map((r) => `${r.exchange}/${r.symbol}: ${r.reason ?? 'failed'}`).join('; ');
    throw new PartialFailureError(`${failed.length} capture target(s) failed (${list}); everything else was committed`, {}, { cause: summary });
  }
  return summary;
}

/** Free calls only: the TradFi hours filter, and /expirations for the by-strike cost. */
async function planTargets(client: ApiClient, targets: CaptureTarget[], options: CaptureOptions, serverNow: Date): Promise<TargetReport[]> {
  const reports: TargetReport[] = [];
  for (const target of targets) {
    const report: TargetReport = { ...target, status: 'planned', plannedRequests: 0, requests: 0 };
    reports.push(report);
    if (target.market === 'tradfi' && !options.force && tradfiClearlyClosed(serverNow)) {
      report.status = 'skipped';
      report.reason = 'market closed (outside New York regular hours); --force captures anyway';
      continue;
    }
    if (options.byStrike) {
      try {
        report.expirations = (await client.expirations(target.exchange, target.symbol)).data.expirations;
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

interface Spender {
  /** Throws BudgetReached when the next request would exceed --max-requests. */
  next(report: TargetReport): void;
}

/** Counts every request sent (a failed one may still be charged: the spec does not say). */
function budget(maxRequests: number | undefined): Spender {
  let sent = 0;
  return {
    next(report) {
      if (maxRequests !== undefined && sent >= maxRequests) throw new BudgetReached();
      sent++;
      report.requests++;
    },
  };
}

async function captureTarget(
  client: ApiClient,
  report: TargetReport,
  options: CaptureOptions,
  held: ReadonlyMap<string, string>,
  rows: LiveRows,
  spend: Spender,
  warn: (message: string) => void,
): Promise<void> {
  spend.next(report);
  const levels = await client.levels(report.exchange, report.symbol);
  const key: CaptureKey = { exchange: levels.meta.exchange_resolved, symbol: levels.meta.symbol.toUpperCase(), market: report.market };
  report.resolved = key.exchange;
  report.asOf = levels.meta.as_of;
  report.marketOpen = levels.meta.market_open;
  rows.live_levels.push(liveLevelsRow(key, levels.data, levels.meta));
  report.status = 'captured';

  const closeHeld = held.get(`${key.exchange}|${key.symbol}`) === new Date(levels.meta.as_of).toISOString();
  if (!levels.meta.market_open && !options.force && closeHeld) {
    report.status = 'skipped';
    report.reason = 'market closed and its last snapshot is already captured; --force captures anyway';
    return;
  }

  spend.next(report);
  const term = await client.termOi(report.exchange, report.symbol);
  rows.term_structure.push(...termStructureRows(key, term.data, term.meta));

  for (const code of report.expirations ?? []) {
    spend.next(report);
    try {
      const profile = await client.gexByStrike(report.exchange, report.symbol, code);
      rows.live_strikes.push(...liveStrikeRows(key, code, profile.data, profile.meta.timestamp));
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

function hasRows(rows: LiveRows): boolean {
  return rows.live_levels.length + rows.term_structure.length + rows.live_strikes.length > 0;
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
  const recorded = {
    symbols: options.symbols,
    exchanges: options.exchanges ?? null,
    byStrike: options.byStrike,
    force: options.force,
    maxRequests: options.maxRequests ?? null,
  };
  const runId = await startRun(conn, { command: 'capture', options: recorded, startedAt });
  const { live_levels, term_structure, live_strikes } = result.inserted;
  await finishRun(conn, runId, {
    outcome: result.outcome,
    requestsSpent: result.summary.requestsSpent,
    rowsLoaded: live_levels + term_structure + live_strikes,
    ...(result.fatal !== undefined ? { error: messageOf(result.fatal) } : {}),
  });
}

async function withWarehouse<T>(options: CaptureOptions, work: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
  const warehouse = await openWarehouse(options.dbPath, { waitSeconds: options.waitSeconds ?? 60 });
  try {
    return await work(warehouse.connection);
  } finally {
    warehouse.close();
  }
}
