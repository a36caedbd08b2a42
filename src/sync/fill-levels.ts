// `sync --fill-levels`: TOTAL levels of sessions without a levels file, from
// /history/levels at 15m, paid from the request quota. Runs after the load phase of runSync: the
// warehouse is opened to read what is held, closed while requesting, and opened again to write.
// Every page is one request, counted against --max-requests; a 429 stops cleanly and what was
// fetched is still written.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { ApiClient } from '../api/index.js';
import { InterruptedError } from '../core/errors.js';
import { marketOf } from '../time/sessions.js';
import { openWriter, type HistoryLevelsRow } from '../warehouse/index.js';
import { emptyStateCopy } from '../warehouse/snapshot.js';
import { readLevelsFillState, writeApiLevels } from '../warehouse/levels-fill.js';
import { FILL_GRANULARITY, fillRange, planFillWindows, sessionsToFill, type FillWindow } from './fill-windows.js';
import { pairKey } from '../core/pairs.js';
import type { CoverageRow } from '../core/rows.js';
import type { QuotaStop } from '../api/quota.js';

export interface HistoryLevelsPage {
  rows: HistoryLevelsRow[];
  nextCursor: string | null;
}

/** One /history/levels request: the first page by start, the next ones by cursor; same end. */
export type HistoryLevelsFetcher = (
  exchange: string,
  symbol: string,
  query: { start?: string; end: string; granularity: typeof FILL_GRANULARITY; cursor?: string },
) => Promise<HistoryLevelsPage>;

export interface FillLevelsApi {
  historyLevels: HistoryLevelsFetcher;
  quotaStopOf(error: unknown): QuotaStop | undefined;
  /** Quota-counted requests spent so far by this client (the whole run's, for --max-requests). */
  requestsSpent(): number;
}

export interface FillLevelsOptions {
  dbPath: string;
  /** Coverage rows of the selected pairs (first_ts and last_ts bound the sessions). */
  pairs: readonly CoverageRow[];
  since?: string;
  until?: string;
  order: 'newest' | 'oldest';
  maxRequests?: number;
  /** Plan only: count windows, request nothing. */
  dryRun: boolean;
  /** Wait this long for another process holding the warehouse file (default 0). */
  waitSeconds?: number;
  signal: AbortSignal;
  warn?(message: string): void;
}

export interface FillLevelsReport {
  /** Sessions that needed a fill. */
  sessions: number;
  /** Windows planned (each costs at least one request). */
  windows: number;
  /** Requests (pages) made by the fill. */
  requests: number;
  /** Rows newly inserted into levels. */
  rows: number;
  /** Why the fill stopped early, if it did. */
  stoppedBy?: 'max_requests' | 'quota' | 'interrupted';
  quotaStop?: QuotaStop;
}

/** Adapts the API client; validated rows come back as the warehouse's HistoryLevelsRow. */
export function historyLevelsFetcherFrom(client: ApiClient): HistoryLevelsFetcher {
  return async (exchange, symbol, query) => {
    const response = await client.historyLevels(exchange, symbol, query);
    return { rows: response.data, nextCursor: response.meta.next_cursor };
  };
}

export async function fillLevels(api: FillLevelsApi, options: FillLevelsOptions): Promise<FillLevelsReport> {
  const windows = await withWarehouse(options, (conn) => planWindows(conn, options));
  const report: FillLevelsReport = {
    sessions: windows.reduce((sum, w) => sum + w.sessions.length, 0),
    windows: windows.length,
    requests: 0,
    rows: 0,
  };
  if (options.dryRun || windows.length === 0) return report;

  const fetched = new Map<string, HistoryLevelsRow[]>();
  let failure: { error: unknown } | undefined;
  try {
    for (const window of windows) {
      const stop = await fetchWindow(api, window, options, report, (rows) => {
        const key = pairKey(window);
        const held = fetched.get(key);
        if (held) held.push(...rows);
        else fetched.set(key, [...rows]);
      });
      if (stop) break;
    }
  } catch (error) {
    failure = { error };
  }
  // Paid rows are written even when the fill failed half-way.
  if (fetched.size > 0) {
    report.rows = await withWarehouse(options, async (conn) => {
      let inserted = 0;
      for (const [key, rows] of fetched) {
        const [exchange, symbol] = key.split('|') as [string, string];
        inserted += await writeApiLevels(conn, exchange, symbol, rows);
      }
      return inserted;
    });
  }
  if (failure !== undefined) throw failure.error;
  return report;
}

async function planWindows(conn: DuckDBConnection, options: FillLevelsOptions): Promise<FillWindow[]> {
  const windows: FillWindow[] = [];
  for (const pair of options.pairs) {
    const market = marketOf(pair.exchange);
    const range = fillRange(market, pair, options);
    if (range === null) continue;
    const state = await readLevelsFillState(conn, pair.exchange, pair.symbol);
    const sessions = sessionsToFill({ exchange: pair.exchange, symbol: pair.symbol, market, ...range, ...state });
    windows.push(...planFillWindows(pair, sessions, options.order));
  }
  // Newest first across pairs too: today's sessions before any backfill.
  return options.order === 'oldest' ? windows : windows.sort((a, b) => (a.end < b.end ? 1 : a.end > b.end ? -1 : 0));
}

/** Pages through one window; returns true when the whole fill must stop. */
async function fetchWindow(
  api: FillLevelsApi,
  window: FillWindow,
  options: FillLevelsOptions,
  report: FillLevelsReport,
  keep: (rows: HistoryLevelsRow[]) => void,
): Promise<boolean> {
  let cursor: string | undefined;
  do {
    if (options.signal.aborted) {
      report.stoppedBy = 'interrupted';
      throw new InterruptedError(options.signal.reason === 'SIGTERM' ? 'SIGTERM' : 'SIGINT');
    }
    if (options.maxRequests !== undefined && api.requestsSpent() >= options.maxRequests) {
      report.stoppedBy = 'max_requests';
      options.warn?.(
        `--max-requests ${options.maxRequests} reached: levels fill of ${window.exchange}/${window.symbol} from ${window.start} and later windows not requested`,
      );
      return true;
    }
    const query =
      cursor === undefined
        ? { start: window.start, end: window.end, granularity: FILL_GRANULARITY }
        : { cursor, end: window.end, granularity: FILL_GRANULARITY };
    let page: HistoryLevelsPage;
    try {
      page = await api.historyLevels(window.exchange, window.symbol, query);
    } catch (error) {
      const stop = api.quotaStopOf(error);
      if (stop === undefined) throw error;
      report.stoppedBy = 'quota';
      report.quotaStop = stop;
      options.warn?.(`request quota exhausted during the levels fill; resets at ${stop.resetAt ?? 'midnight UTC'}`);
      return true;
    }
    report.requests++;
    keep(page.rows);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return false;
}

async function withWarehouse<T>(options: FillLevelsOptions, work: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
  // A plan never creates a warehouse: with none yet, it counts the windows of an empty one.
  const absent = options.dryRun && !existsSync(resolve(options.dbPath));
  const warehouse = absent ? await emptyStateCopy() : await openWriter(options.dbPath, undefined, { waitSeconds: options.waitSeconds ?? 0 });
  try {
    return await work(warehouse.connection);
  } finally {
    warehouse.close();
  }
}

/** runSync's call: skips (with a warning) when the run already hit the request quota. */
export async function fillLevelsForSync(
  api: Partial<FillLevelsApi> & Omit<FillLevelsApi, 'historyLevels'>,
  options: Omit<FillLevelsOptions, 'pairs'> & { coverage: readonly CoverageRow[]; pairs: readonly { exchange: string; symbol: string }[] },
  quotaStop: QuotaStop | undefined,
): Promise<FillLevelsReport | undefined> {
  if (options.signal.aborted) return undefined;
  if (api.historyLevels === undefined) {
    options.warn?.('--fill-levels: this API adapter cannot request /history/levels; nothing filled');
    return undefined;
  }
  if (quotaStop?.bucket === 'requests') {
    options.warn?.('--fill-levels skipped: the request quota is used up');
    return undefined;
  }
  const wanted = new Set(options.pairs.map((p) => pairKey(p)));
  const pairs = options.coverage.filter((row) => wanted.has(pairKey(row)));
  return fillLevels({ ...api, historyLevels: api.historyLevels }, { ...options, pairs });
}
