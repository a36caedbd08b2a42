// History query endpoints: /history/levels, /history/snapshot, /history/timestamps (one request
// each) and /history/coverage (free, cached).

import type { Capture, Market, MarketModel } from '../../market/types.js';
import type { Route, RouteContext, ServerState } from '../context.js';
import { HttpError } from '../http.js';
import { invalidParam, ISO_DATE_RE, parseChoice, parseDate, parseInstant, queryValue } from '../params.js';
import {
  capturesInWindow,
  completedSessions,
  historyRow,
  historyRowAt,
  historyStart,
  isoZ,
  levelsOf,
  pastSessionCaptures,
  slotFloor,
  SLOT_MS,
} from '../timeline.js';
import { historyVenuesOf, resolveHistoryPair, type ResolvedPair } from '../venues.js';
import { checkCursorFits, decodeCursor, encodeCursor, type CursorState } from './cursor.js';
import { historyMeta, nearestExpirations } from './live.js';

const DAY_MS = 86_400_000;
const GRANULARITIES = ['15m', '1h', 'close'] as const;
type Granularity = (typeof GRANULARITIES)[number];
const MAX_WINDOW_DAYS: Record<Granularity, number | null> = { '15m': 31, '1h': 180, close: null };
const SNAPSHOT_REACH_MS = 15 * 60_000;
const SNAPSHOT_STRIKE_BAND = 0.25;

/** Keeps the last capture of each bucket (UTC hour or session date). */
function lastOfBuckets(slots: readonly Date[], bucketOf: (ts: Date) => string): Date[] {
  const kept: Date[] = [];
  slots.forEach((ts, i) => {
    const next = slots[i + 1];
    if (!next || bucketOf(next) !== bucketOf(ts)) kept.push(ts);
  });
  return kept;
}

function rowSlots(model: MarketModel, market: Market, slots: readonly Date[], granularity: Granularity): Date[] {
  if (granularity === '15m') return [...slots];
  if (granularity === '1h') return lastOfBuckets(slots, (ts) => ts.toISOString().slice(0, 13));
  return lastOfBuckets(slots, (ts) => model.sessionDateOf(market, ts));
}

/** The cursor of a next page, checked against the request it continues. */
function cursorOf(secret: Buffer, cursorParam: string | undefined, wanted: Omit<CursorState, 'start' | 'after'>): CursorState | undefined {
  if (cursorParam === undefined) return undefined;
  const cursor = decodeCursor(secret, cursorParam);
  checkCursorFits(cursor, wanted);
  return cursor;
}

/** A cursor's start, else the start asked for, else 30 days before the end. */
function windowStart(cursor: CursorState | undefined, startParam: string | undefined, end: Date): Date {
  if (cursor) return new Date(cursor.start);
  return startParam === undefined ? new Date(end.getTime() - 30 * DAY_MS) : parseInstant(startParam, 'start');
}

function checkWindow(start: Date, end: Date, granularity: Granularity): void {
  if (start.getTime() > end.getTime()) throw invalidParam('start is after end.');
  const maxDays = MAX_WINDOW_DAYS[granularity];
  if (maxDays !== null && end.getTime() - start.getTime() > maxDays * DAY_MS) {
    throw new HttpError(400, 'range_too_large', `The window is longer than ${maxDays} days for granularity ${granularity}.`, {
      max_window_days: maxDays,
    });
  }
}

const historyLevels: Route = {
  path: ['history', 'levels', ':exchange', ':coin'],
  cost: 'request',
  rateLimit: true,
  query: ['start', 'end', 'granularity', 'cursor'],
  handle: ({ state, account, params, query, now }: RouteContext) => {
    const { model, secret } = state;
    const pair = resolveHistoryPair(model, account, params.exchange!, params.coin!);
    const granularity = parseChoice(queryValue(query, 'granularity') ?? 'close', 'granularity', GRANULARITIES);
    const endParam = queryValue(query, 'end');
    const end = endParam === undefined ? new Date(slotFloor(now).getTime() + SLOT_MS) : parseInstant(endParam, 'end');
    const wanted = { exchange: pair.exchange, symbol: pair.symbol, end: end.getTime(), granularity };
    const cursor = cursorOf(secret, queryValue(query, 'cursor'), wanted);
    const start = windowStart(cursor, queryValue(query, 'start'), end);
    checkWindow(start, end, granularity);
    const from = cursor ? new Date(cursor.after + 1) : start;
    const slots = pair.venues.length === 0 ? [] : capturesInWindow(model, pair.market, from, end, now);
    const all = rowSlots(model, pair.market, slots, granularity);
    const page = all.slice(0, state.historyPageRows);
    const last = page[page.length - 1];
    const nextCursor = all.length > page.length && last ? encodeCursor(secret, { ...wanted, start: start.getTime(), after: last.getTime() }) : null;
    const exchange = pair.historyVenue!;
    return {
      kind: 'json',
      data: page.map((ts) => historyRowAt(model, pair.symbol, pair.market, pair.venues, exchange, ts, now)),
      meta: { ...historyMeta(pair), granularity, start: isoZ(from), end: isoZ(end), next_cursor: nextCursor },
    };
  },
};

/** Up to `count` past captures closest to `at`, in time order (for no_snapshot). */
function nearestCaptures(model: MarketModel, market: Market, at: Date, now: Date, count: number): Date[] {
  const firstInstant = Date.parse(`${historyStart(model)}T00:00:00Z`) - DAY_MS;
  const anchor = Math.min(Math.max(at.getTime(), firstInstant), now.getTime());
  const reach = 7 * DAY_MS; // wider than any market closure
  const around = capturesInWindow(model, market, new Date(anchor - reach), new Date(anchor + reach + 1), now);
  const distance = (ts: Date): number => Math.abs(ts.getTime() - at.getTime());
  return around
    .sort((a, b) => distance(a) - distance(b) || a.getTime() - b.getTime())
    .slice(0, count)
    .sort((a, b) => a.getTime() - b.getTime());
}

function snapshotSlot(model: MarketModel, pair: ResolvedPair, at: Date, now: Date): Date {
  const near =
    pair.venues.length === 0
      ? []
      : capturesInWindow(model, pair.market, new Date(at.getTime() - SNAPSHOT_REACH_MS), new Date(at.getTime() + SNAPSHOT_REACH_MS + 1), now);
  const distance = (ts: Date): number => Math.abs(ts.getTime() - at.getTime());
  const best = [...near].sort((a, b) => distance(a) - distance(b) || a.getTime() - b.getTime())[0];
  if (best) return best;
  const nearest = pair.venues.length === 0 ? [] : nearestCaptures(model, pair.market, at, now, 3);
  throw new HttpError(404, 'no_snapshot', `No capture within 15 minutes of ${isoZ(at)}.`, {
    nearest_timestamps: nearest.map(isoZ),
  });
}

function snapshotBody(model: MarketModel, pair: ResolvedPair, capture: Capture, expiration: string, now: Date) {
  const row = historyRow(model, capture, pair.historyVenue!, now);
  let levels = levelsOf(capture.total.levels, false);
  let strikes = capture.total.strikes;
  let dte: number | null = null;
  if (expiration !== 'TOTAL') {
    const chain = capture.expirations.find((c) => c.iso === expiration);
    if (!chain) {
      throw new HttpError(400, 'invalid_expiration', `Expiration ${expiration} was not listed at ${row.timestamp_utc}.`, {
        nearest_expirations: nearestExpirations(capture.expirations, expiration),
      });
    }
    levels = levelsOf(chain.levels, true);
    strikes = chain.strikes;
    dte = chain.dte;
  }
  const band = capture.spot * SNAPSHOT_STRIKE_BAND;
  return {
    ...row,
    ...levels,
    expiration,
    dte,
    strikes: strikes
      .filter((s) => Math.abs(s.strike - capture.spot) <= band)
      .map((s) => ({ strike: s.strike, call_gex: s.call_gex, put_gex: s.put_gex, net_gex: s.net_gex, call_oi: s.call_oi, put_oi: s.put_oi })),
  };
}

const historySnapshot: Route = {
  path: ['history', 'snapshot', ':exchange', ':coin'],
  cost: 'request',
  rateLimit: true,
  query: ['at', 'expiration'],
  handle: ({ state, account, params, query, now }) => {
    const { model } = state;
    const pair = resolveHistoryPair(model, account, params.exchange!, params.coin!);
    const at = parseInstant(queryValue(query, 'at'), 'at');
    const rawExpiration = queryValue(query, 'expiration') ?? 'TOTAL';
    if (rawExpiration !== 'TOTAL' && !ISO_DATE_RE.test(rawExpiration)) {
      throw invalidParam('expiration must be TOTAL or an ISO date YYYY-MM-DD (codes are not accepted here).');
    }
    const expiration = rawExpiration === 'TOTAL' ? 'TOTAL' : parseDate(rawExpiration, 'expiration');
    const slot = snapshotSlot(model, pair, at, now);
    const capture = model.capture(pair.symbol, pair.venues, slot);
    return {
      kind: 'json',
      data: snapshotBody(model, pair, capture, expiration, now),
      meta: { ...historyMeta(pair), snapshot_at: isoZ(slot) },
    };
  },
};

const historyTimestamps: Route = {
  path: ['history', 'timestamps', ':exchange', ':coin'],
  cost: 'request',
  rateLimit: true,
  query: ['date'],
  handle: ({ state, account, params, query, now }) => {
    const { model } = state;
    const pair = resolveHistoryPair(model, account, params.exchange!, params.coin!);
    const date = parseDate(queryValue(query, 'date'), 'date');
    const slots = pair.venues.length === 0 ? [] : pastSessionCaptures(model, pair.market, date, now);
    return { kind: 'json', data: slots.map(isoZ), meta: { ...historyMeta(pair), session_date: date } };
  },
};

function coverageRows(model: MarketModel, now: Date): unknown[] {
  const rows: unknown[] = [];
  const byMarket = new Map<Market, Record<string, unknown> | null>();
  for (const info of model.symbols) {
    if (!byMarket.has(info.market)) byMarket.set(info.market, marketCoverage(model, info.market, now));
    const span = byMarket.get(info.market);
    if (!span) continue;
    for (const exchange of historyVenuesOf(info)) rows.push({ exchange, symbol: info.symbol, ...span });
  }
  return rows;
}

/** The same for every symbol of a market: the market model shares one calendar per market. */
function marketCoverage(model: MarketModel, market: Market, now: Date): Record<string, unknown> | null {
  const last = model.latestCaptureAtOrBefore(market, now);
  if (!last) return null;
  const sessions: string[] = [];
  const today = model.sessionDateOf(market, now);
  let first: Date | undefined;
  for (const date of sessionDates(historyStart(model), today)) {
    const slots = pastSessionCaptures(model, market, date, now);
    if (slots.length === 0) continue;
    first ??= slots[0];
    sessions.push(date);
  }
  if (!first) return null;
  const complete = completedSessions(model, market, now);
  return {
    first_ts: isoZ(first),
    last_ts: isoZ(last),
    sessions: sessions.length,
    files_first_date: complete[0] ?? null,
    files_last_date: complete[complete.length - 1] ?? null,
  };
}

function sessionDates(from: string, to: string): string[] {
  const dates: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS) {
    dates.push(new Date(t).toISOString().slice(0, 10));
  }
  return dates;
}

/** Coverage is cached up to coverageCacheSeconds of the emulator clock, like the real service. */
function cachedCoverage(state: ServerState, now: Date): unknown[] {
  const cache = state.coverageCache;
  const age = cache ? now.getTime() - cache.computedAt : Number.POSITIVE_INFINITY;
  if (cache && age >= 0 && age < state.coverageCacheSeconds * 1000) return cache.rows;
  const rows = coverageRows(state.model, now);
  state.coverageCache = { computedAt: now.getTime(), rows };
  return rows;
}

const historyCoverage: Route = {
  path: ['history', 'coverage'],
  cost: 'free',
  rateLimit: false,
  query: [],
  handle: ({ state, now }) => ({ kind: 'json', data: cachedCoverage(state, now), meta: {} }),
};

export const historyRoutes: readonly Route[] = [historyLevels, historySnapshot, historyTimestamps, historyCoverage];
