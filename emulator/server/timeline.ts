// What history exists at the emulator clock: capture slots from the first history session up to
// now, completed sessions (those that have daily files), and the row shapes built from captures.
// Every number comes from MarketModel.capture, so one capture reads the same on every endpoint.

import { LEVELS_FIELD_NAMES, type Capture, type LevelsFields, type Market, type MarketModel } from '../market/types.js';
import { addDays } from './params.js';

export const SLOT_MS = 15 * 60_000;

export interface HistoryRow extends LevelsFields {
  schema_version: number;
  timestamp_utc: string;
  session_date: string;
  type: 'intraday' | 'close';
  exchange: string;
  symbol: string;
  oi_date: string | null;
}

export function historyStart(model: MarketModel): string {
  return model.options.historyStart;
}

/** Capture slots of one session that already happened, within history. */
export function pastSessionCaptures(model: MarketModel, market: Market, sessionDate: string, now: Date): Date[] {
  if (sessionDate < historyStart(model)) return [];
  return model.sessionCaptures(market, sessionDate).filter((ts) => ts.getTime() <= now.getTime());
}

/** Session dates from..to inclusive, clipped to history and to the session of now. */
function sessionRange(model: MarketModel, market: Market, from: string, to: string, now: Date): string[] {
  const first = from < historyStart(model) ? historyStart(model) : from;
  const today = model.sessionDateOf(market, now);
  const last = to > today ? today : to;
  const dates: string[] = [];
  for (let d = first; d <= last; d = addDays(d, 1)) dates.push(d);
  return dates;
}

/** Every past capture slot with start <= ts < end, oldest first. */
export function capturesInWindow(model: MarketModel, market: Market, start: Date, end: Date, now: Date): Date[] {
  if (end.getTime() <= start.getTime()) return [];
  // A session date can start before its UTC date (New York), so widen by a day each side.
  const from = addDays(start.toISOString().slice(0, 10), -1);
  const to = addDays(end.toISOString().slice(0, 10), 1);
  const slots: Date[] = [];
  for (const date of sessionRange(model, market, from, to, now)) {
    for (const ts of pastSessionCaptures(model, market, date, now)) {
      if (ts.getTime() >= start.getTime() && ts.getTime() < end.getTime()) slots.push(ts);
    }
  }
  return slots.sort((a, b) => a.getTime() - b.getTime());
}

/** Sessions with at least one capture and complete at now, oldest first (they have daily files). */
export function completedSessions(model: MarketModel, market: Market, now: Date): string[] {
  return sessionRange(model, market, historyStart(model), model.sessionDateOf(market, now), now).filter(
    (d) => model.sessionCaptures(market, d).length > 0 && model.isSessionComplete(market, d, now),
  );
}

export function isCompletedSession(model: MarketModel, market: Market, date: string, now: Date): boolean {
  return date >= historyStart(model) && model.sessionCaptures(market, date).length > 0 && model.isSessionComplete(market, date, now);
}

/** close only for the last capture of a completed session. */
export function captureType(model: MarketModel, market: Market, ts: Date, now: Date): 'intraday' | 'close' {
  const session = model.sessionDateOf(market, ts);
  const slots = model.sessionCaptures(market, session);
  const last = slots[slots.length - 1];
  const isLast = last !== undefined && last.getTime() === ts.getTime();
  return isLast && model.isSessionComplete(market, session, now) ? 'close' : 'intraday';
}

export function levelsOf(levels: LevelsFields, keepMaxPain: boolean): LevelsFields {
  const copy = {} as Record<keyof LevelsFields, unknown>;
  for (const name of LEVELS_FIELD_NAMES) copy[name] = levels[name];
  if (!keepMaxPain) copy.max_pain = null;
  return copy as LevelsFields;
}

/** The HistoryLevelsRow of a capture (TOTAL; max_pain null). */
export function historyRow(model: MarketModel, capture: Capture, exchange: string, now: Date): HistoryRow {
  return {
    schema_version: model.schemaVersion,
    timestamp_utc: isoZ(capture.timestampUtc),
    session_date: capture.sessionDate,
    type: captureType(model, capture.market, capture.timestampUtc, now),
    exchange,
    symbol: capture.symbol,
    oi_date: capture.oiDate,
    ...levelsOf(capture.total.levels, false),
  };
}

/** ISO 8601 UTC with Z, without milliseconds when they are zero (capture slots never have any). */
export function isoZ(instant: Date): string {
  return instant.toISOString().replace('.000Z', 'Z');
}

/** The session before `sessionDate` that has captures: the open interest a capture uses. */
export function previousSession(model: MarketModel, market: Market, sessionDate: string): string {
  let date = addDays(sessionDate, -1);
  for (let i = 0; i < 14 && model.sessionCaptures(market, date).length === 0; i += 1) date = addDays(date, -1);
  return date;
}

/**
 * The same row as historyRow(capture(...)) without building the whole capture: /history/levels
 * reads only TOTAL levels, which the market caches cheaply.
 */
export function historyRowAt(model: MarketModel, symbol: string, market: Market, venues: readonly string[], exchange: string, ts: Date, now: Date): HistoryRow {
  const sessionDate = model.sessionDateOf(market, ts);
  return {
    schema_version: model.schemaVersion,
    timestamp_utc: isoZ(ts),
    session_date: sessionDate,
    type: captureType(model, market, ts, now),
    exchange,
    symbol,
    oi_date: previousSession(model, market, sessionDate),
    ...levelsOf(model.totalLevels(symbol, venues, ts), false),
  };
}

/** Start of the 15-minute slot holding `instant`. */
export function slotFloor(instant: Date): Date {
  return new Date(Math.floor(instant.getTime() / SLOT_MS) * SLOT_MS);
}
