// Which sessions `sync --fill-levels` requests from /history/levels, and in which windows (at most
// 31 days each, the API's limit). Pure: the warehouse state and the coverage come in, request windows go out.
//
// A session is filled when it has no loaded levels file and no complete api fill (a complete fill
// holds the session's close row). A session already partly filled is re-requested from its last api
// capture, so a run adds only the captures taken since. Windows never exceed 31 days (the 15m limit
// of the spec); at 15m a 31-day window holds at most 2,976 rows, so it usually costs one request.
import { DateTime } from 'luxon';
import { addDays } from '../time/dates.js';
import { NEW_YORK, sessionDateOf, sessionDatesBetween, type Market } from '../time/sessions.js';

export const FILL_GRANULARITY = '15m' as const;
export const MAX_FILL_WINDOW_DAYS = 31;
const DAY_MS = 86_400_000;
export const MAX_FILL_WINDOW_MS = MAX_FILL_WINDOW_DAYS * DAY_MS;

/** What the warehouse holds of one session's api fill. */
export interface ApiFillState {
  /** ISO instant of the last api capture held. */
  lastCapture: string;
  /** The session's close row is held: nothing more will come. */
  complete: boolean;
}

export interface FillPairState {
  exchange: string;
  symbol: string;
  market: Market;
  /** First session to consider: the selection's since, else the coverage first_ts session. */
  firstDate: string;
  /** Last session to consider: the coverage last_ts session (today), or until when earlier. */
  lastDate: string;
  /** Sessions whose levels file is loaded. */
  fileSessions: ReadonlySet<string>;
  /** Sessions with api rows. */
  api: ReadonlyMap<string, ApiFillState>;
}

/** One session to request, from `startMs` (session start, or its last api capture) to its end. */
export interface SessionToFill {
  sessionDate: string;
  startMs: number;
  endMs: number;
}

export interface FillWindow {
  exchange: string;
  symbol: string;
  /** ISO instants; start inclusive, end exclusive (the spec's window). */
  start: string;
  end: string;
  sessions: string[];
}

/** The first instant of a session: UTC midnight for crypto, New York midnight for TradFi. */
export function sessionStartMs(market: Market, sessionDate: string): number {
  if (market === 'crypto') return Date.parse(`${sessionDate}T00:00:00Z`);
  return DateTime.fromISO(sessionDate, { zone: NEW_YORK }).startOf('day').toMillis();
}

export function sessionEndMs(market: Market, sessionDate: string): number {
  return sessionStartMs(market, addDays(sessionDate, 1));
}

/** The session range of a pair from the coverage and the selection; null when empty. */
export function fillRange(
  market: Market,
  coverage: { first_ts: string | null; last_ts: string | null },
  selection: { since?: string; until?: string },
): { firstDate: string; lastDate: string } | null {
  if (coverage.first_ts === null || coverage.last_ts === null) return null;
  const coverageFirst = sessionDateOf(market, Date.parse(coverage.first_ts));
  const today = sessionDateOf(market, Date.parse(coverage.last_ts));
  const firstDate = selection.since !== undefined && selection.since > coverageFirst ? selection.since : coverageFirst;
  const lastDate = selection.until !== undefined && selection.until < today ? selection.until : today;
  return firstDate <= lastDate ? { firstDate, lastDate } : null;
}

export function sessionsToFill(state: FillPairState): SessionToFill[] {
  const sessions: SessionToFill[] = [];
  for (const date of sessionDatesBetween(state.market, state.firstDate, state.lastDate)) {
    if (state.fileSessions.has(date)) continue;
    const held = state.api.get(date);
    if (held?.complete) continue;
    const sessionStart = sessionStartMs(state.market, date);
    // Inclusive start at the last capture held: that row comes again, possibly now typed close.
    const startMs = held ? Math.max(sessionStart, Date.parse(held.lastCapture)) : sessionStart;
    sessions.push({ sessionDate: date, startMs, endMs: sessionEndMs(state.market, date) });
  }
  return sessions;
}

/**
 * Groups sessions into windows of at most 31 days (measured in milliseconds, so a New York window
 * across a DST change stays within the limit). Windows are built from the end the run starts at:
 * with newest first, the first window is today's session plus the 30 days before it.
 */
export function planFillWindows(
  pair: { exchange: string; symbol: string },
  sessions: readonly SessionToFill[],
  order: 'newest' | 'oldest',
  maxWindowMs: number = MAX_FILL_WINDOW_MS,
): FillWindow[] {
  const sorted = [...sessions].sort((a, b) => a.startMs - b.startMs);
  const groups = order === 'oldest' ? groupForward(sorted, maxWindowMs) : groupBackward(sorted.reverse(), maxWindowMs);
  return groups.map((group) => {
    const startMs = Math.min(...group.map((s) => s.startMs));
    const endMs = Math.max(...group.map((s) => s.endMs));
    return {
      exchange: pair.exchange,
      symbol: pair.symbol,
      start: new Date(startMs).toISOString(),
      end: new Date(endMs).toISOString(),
      sessions: group.map((s) => s.sessionDate).sort(),
    };
  });
}

/** Oldest first: a window starts at a session's start and takes later sessions while they fit. */
function groupForward(sessions: readonly SessionToFill[], maxMs: number): SessionToFill[][] {
  const groups: SessionToFill[][] = [];
  let current: SessionToFill[] = [];
  let startMs = 0;
  for (const session of sessions) {
    if (current.length > 0 && session.endMs - startMs <= maxMs) {
      current.push(session);
      continue;
    }
    if (current.length > 0) groups.push(current);
    current = [session];
    startMs = session.startMs;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/** Newest first: a window ends at a session's end and takes earlier sessions while they fit. */
function groupBackward(sessions: readonly SessionToFill[], maxMs: number): SessionToFill[][] {
  const groups: SessionToFill[][] = [];
  let current: SessionToFill[] = [];
  let endMs = 0;
  for (const session of sessions) {
    if (current.length > 0 && endMs - session.startMs <= maxMs) {
      current.push(session);
      continue;
    }
    if (current.length > 0) groups.push(current);
    current = [session];
    endMs = session.endMs;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}
