// Session calendars. Crypto: the UTC date, 96 captures 00:00..23:45 UTC. TradFi: the New York date,
// captures every 15 minutes from 09:30 to the close on NYSE trading days: 27 up to 16:00, 15 up to
// 13:00 on an early close; no session on weekends and exchange holidays, as the real API.

import { DateTime } from 'luxon';
import { isNyseEarlyClose, isNyseTradingDay, NYSE_EARLY_CLOSE } from '../../src/calendar/nyse.js';
import type { Market } from './types.js';
import { LruCache } from './lru.js';

export const SLOT_MS = 15 * 60 * 1000;
export const DAY_MS = 24 * 60 * 60 * 1000;
export const NEW_YORK = 'America/New_York';
const TRADFI_CAPTURES = 27; // 09:30, 09:45, ..., 16:00
const TRADFI_EARLY_CLOSE_CAPTURES = ((NYSE_EARLY_CLOSE.hour - 9) * 60 + NYSE_EARLY_CLOSE.minute - 30) / 15 + 1; // ..., 13:00
const CRYPTO_CAPTURES = 96;

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Milliseconds of 00:00 UTC of an ISO date; throws on a malformed date. */
export function utcMidnight(isoDate: string): number {
  const ms = ISO_DATE.test(isoDate) ? Date.parse(`${isoDate}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== isoDate) {
    throw new RangeError(`not a YYYY-MM-DD date: ${isoDate}`);
  }
  return ms;
}

export function addDays(isoDate: string, days: number): string {
  return new Date(utcMidnight(isoDate) + days * DAY_MS).toISOString().slice(0, 10);
}

/** 0 = Sunday … 6 = Saturday. */
export function weekdayOf(isoDate: string): number {
  return new Date(utcMidnight(isoDate)).getUTCDay();
}

export function isWeekday(isoDate: string): boolean {
  const day = weekdayOf(isoDate);
  return day !== 0 && day !== 6;
}

export function utcDateOf(instant: Date | number): string {
  return new Date(instant).toISOString().slice(0, 10);
}

export function newYorkDateOf(instant: Date | number): string {
  const ms = typeof instant === 'number' ? instant : instant.getTime();
  return newYorkDates.getOrCreate(ms, () => DateTime.fromMillis(ms, { zone: NEW_YORK }).toISODate() ?? '');
}

// A session's captures are asked for once per capture a file holds, and luxon's time zone math is
// the costly part of each: both are pure, so a process keeps recent answers.
const newYorkDates = new LruCache<number, string>(8192);
const captureTimes = new LruCache<string, readonly number[]>(2048);

/** The instant of a New York wall-clock time on a date (DST handled by luxon). */
export function newYorkInstant(isoDate: string, hour: number, minute: number): number {
  utcMidnight(isoDate); // validates
  const [year, month, day] = isoDate.split('-').map(Number) as [number, number, number];
  return DateTime.fromObject({ year, month, day, hour, minute }, { zone: NEW_YORK }).toMillis();
}

export function sessionDateOf(market: Market, instant: Date | number): string {
  return market === 'crypto' ? utcDateOf(instant) : newYorkDateOf(instant);
}

/** Capture instants (ms) of a session, oldest first; empty for a TradFi weekend day or holiday. */
export function sessionCaptureTimes(market: Market, sessionDate: string): readonly number[] {
  return captureTimes.getOrCreate(`${market}|${sessionDate}`, () => Object.freeze(captureTimesOf(market, sessionDate)));
}

function captureTimesOf(market: Market, sessionDate: string): number[] {
  if (market === 'crypto') {
    const start = utcMidnight(sessionDate);
    return Array.from({ length: CRYPTO_CAPTURES }, (_, i) => start + i * SLOT_MS);
  }
  if (!isTradfiSession(sessionDate)) return [];
  // DST never switches between 09:30 and 16:00, so the slots are evenly spaced in UTC too.
  const open = newYorkInstant(sessionDate, 9, 30);
  const captures = isNyseEarlyClose(sessionDate) ? TRADFI_EARLY_CLOSE_CAPTURES : TRADFI_CAPTURES;
  return Array.from({ length: captures }, (_, i) => open + i * SLOT_MS);
}

/** A NYSE trading day (validates the date first). */
function isTradfiSession(isoDate: string): boolean {
  utcMidnight(isoDate);
  return isNyseTradingDay(isoDate);
}

/** The session before `sessionDate`: the previous UTC date, or the previous NYSE trading day. */
export function previousSessionDate(market: Market, sessionDate: string): string {
  let date = addDays(sessionDate, -1);
  if (market === 'tradfi') while (!isTradfiSession(date)) date = addDays(date, -1);
  return date;
}

/** The latest capture at or before `instant` whose session is on or after `historyStart`. */
export function latestCaptureAtOrBefore(market: Market, instant: number, historyStart: string): number | null {
  let date = sessionDateOf(market, instant);
  // A week back always reaches a trading day (at most four days closed in a row).
  for (let step = 0; step < 8 && date >= historyStart; step++) {
    const times = sessionCaptureTimes(market, date);
    const first = times[0];
    if (first !== undefined && first <= instant) {
      const index = Math.min(times.length - 1, Math.floor((instant - first) / SLOT_MS));
      return times[index] ?? null;
    }
    date = addDays(date, -1);
  }
  return null;
}

export function isSessionComplete(market: Market, sessionDate: string, now: number): boolean {
  const last = sessionCaptureTimes(market, sessionDate).at(-1);
  return last !== undefined && last <= now;
}
