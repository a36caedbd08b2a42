// Session calendars. Crypto: the UTC date, 96 captures 00:00..23:45 UTC. TradFi: the New York date,
// 27 captures 09:30..16:00 New York on weekdays. No holiday calendar: every weekday is a session
// (the emulator's TradFi history therefore has sessions on US market holidays).

import { DateTime } from 'luxon';
import type { Market } from './types.js';

export const SLOT_MS = 15 * 60 * 1000;
export const DAY_MS = 24 * 60 * 60 * 1000;
export const NEW_YORK = 'America/New_York';
const TRADFI_CAPTURES = 27; // 09:30, 09:45, ..., 16:00
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
  return DateTime.fromMillis(ms, { zone: NEW_YORK }).toISODate() ?? '';
}

/** The instant of a New York wall-clock time on a date (DST handled by luxon). */
export function newYorkInstant(isoDate: string, hour: number, minute: number): number {
  utcMidnight(isoDate); // validates
  const [year, month, day] = isoDate.split('-').map(Number) as [number, number, number];
  return DateTime.fromObject({ year, month, day, hour, minute }, { zone: NEW_YORK }).toMillis();
}

export function sessionDateOf(market: Market, instant: Date | number): string {
  return market === 'crypto' ? utcDateOf(instant) : newYorkDateOf(instant);
}

/** Capture instants (ms) of a session, oldest first; empty for a TradFi weekend day. */
export function sessionCaptureTimes(market: Market, sessionDate: string): number[] {
  if (market === 'crypto') {
    const start = utcMidnight(sessionDate);
    return Array.from({ length: CRYPTO_CAPTURES }, (_, i) => start + i * SLOT_MS);
  }
  if (!isWeekday(sessionDate)) return [];
  // DST never switches between 09:30 and 16:00, so the slots are evenly spaced in UTC too.
  const open = newYorkInstant(sessionDate, 9, 30);
  return Array.from({ length: TRADFI_CAPTURES }, (_, i) => open + i * SLOT_MS);
}

/** The session before `sessionDate`: the previous UTC date, or the previous weekday for TradFi. */
export function previousSessionDate(market: Market, sessionDate: string): string {
  let date = addDays(sessionDate, -1);
  if (market === 'tradfi') while (!isWeekday(date)) date = addDays(date, -1);
  return date;
}

/** The latest capture at or before `instant` whose session is on or after `historyStart`. */
export function latestCaptureAtOrBefore(market: Market, instant: number, historyStart: string): number | null {
  let date = sessionDateOf(market, instant);
  // A week back always reaches a weekday session.
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
