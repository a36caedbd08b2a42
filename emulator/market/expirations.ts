// Expiration calendars like the real venues'. Crypto: dailies for the next days, Friday weeklies,
// last-Friday monthlies and quarterlies, cutoff 08:00 UTC. TradFi: dailies on NYSE trading days,
// Friday weeklies, third-Friday monthlies and quarterlies (on an NYSE holiday, the trading day
// before, as the listed options move), cutoff at the close: 16:00 New York, 13:00 on an early close.

import { isNyseEarlyClose, isNyseTradingDay, NYSE_EARLY_CLOSE } from '../../src/calendar/nyse.js';
import { addDays, newYorkInstant, sessionDateOf, utcMidnight, weekdayOf } from './calendar.js';
import { LruCache } from './lru.js';
import type { ExpirationInfo, Market } from './types.js';

/** An expiration stays listed this long after its cutoff (the spec's grace period). */
export const EXPIRATION_GRACE_MS = 60 * 60 * 1000;
const FRIDAY = 5;
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const CRYPTO_CUTOFF_HOUR_UTC = 8;

/** 2026-03-27 → 27MAR26. */
export function expirationCode(isoDate: string): string {
  utcMidnight(isoDate);
  const [year, month, day] = isoDate.split('-') as [string, string, string];
  return `${day}${MONTHS[Number(month) - 1]}${year.slice(2)}`;
}

export function cutoffOf(market: Market, isoDate: string): number {
  if (market === 'crypto') return utcMidnight(isoDate) + CRYPTO_CUTOFF_HOUR_UTC * 3600_000;
  return isNyseEarlyClose(isoDate) ? newYorkInstant(isoDate, NYSE_EARLY_CLOSE.hour, NYSE_EARLY_CLOSE.minute) : newYorkInstant(isoDate, 16, 0);
}

/** The date itself when the NYSE trades on it, else the trading day before (a Friday expiry on Good Friday: Thursday). */
function tradingDayOnOrBefore(isoDate: string): string {
  let date = isoDate;
  while (!isNyseTradingDay(date)) date = addDays(date, -1);
  return date;
}

export function expirationInfo(market: Market, isoDate: string): ExpirationInfo {
  return { iso: isoDate, code: expirationCode(isoDate), cutoffUtc: new Date(cutoffOf(market, isoDate)) };
}

function monthStart(isoDate: string, monthsAhead: number): { year: number; month: number } {
  const [year, month] = isoDate.split('-').map(Number) as [number, number];
  const index = year * 12 + (month - 1) + monthsAhead;
  return { year: Math.floor(index / 12), month: (index % 12) + 1 };
}

function isoOf(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

function lastFriday(year: number, month: number): string {
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  let date = isoOf(year, month, lastDay);
  while (weekdayOf(date) !== FRIDAY) date = addDays(date, -1);
  return date;
}

function thirdFriday(year: number, month: number): string {
  let date = isoOf(year, month, 1);
  while (weekdayOf(date) !== FRIDAY) date = addDays(date, 1);
  return addDays(date, 14);
}

function fridaysWithin(today: string, days: number): string[] {
  const out: string[] = [];
  for (let offset = 0; offset <= days; offset++) {
    const date = addDays(today, offset);
    if (weekdayOf(date) === FRIDAY) out.push(date);
  }
  return out;
}

/** Monthly (and, further out, quarterly) expirations from the current month on. */
function monthlies(today: string, pick: (year: number, month: number) => string, months: number, quarterlyUntil: number): string[] {
  const out: string[] = [];
  for (let ahead = 0; ahead < quarterlyUntil; ahead++) {
    const { year, month } = monthStart(today, ahead);
    if (ahead < months || month % 3 === 0) out.push(pick(year, month));
  }
  return out;
}

/** Every expiration a venue would list on `today` (market date), before cutoff filtering. */
function candidateDates(market: Market, today: string): string[] {
  const dates = new Set<string>();
  if (market === 'crypto') {
    for (let offset = 0; offset <= 2; offset++) dates.add(addDays(today, offset));
    for (const date of fridaysWithin(today, 35)) dates.add(date);
    for (const date of monthlies(today, lastFriday, 4, 30)) dates.add(date);
  } else {
    for (let offset = 0; dates.size < 5; offset++) {
      const date = addDays(today, offset);
      if (isNyseTradingDay(date)) dates.add(date);
    }
    for (const date of fridaysWithin(today, 35)) dates.add(tradingDayOnOrBefore(date));
    for (const date of monthlies(today, thirdFriday, 6, 30)) dates.add(tradingDayOnOrBefore(date));
  }
  return [...dates].filter((date) => date >= today).sort();
}

const candidateCache = new LruCache<string, readonly ExpirationInfo[]>(4096);

/** Candidates with their cutoffs, memoised: every capture of a day lists from the same set. */
function candidatesOf(market: Market, today: string): readonly ExpirationInfo[] {
  return candidateCache.getOrCreate(`${market}|${today}`, () => candidateDates(market, today).map((date) => expirationInfo(market, date)));
}

/**
 * The first `count` expirations listed at `instant` whose cutoff + `graceMs` is after it: grace 0
 * for the chains of a capture, EXPIRATION_GRACE_MS for the listing endpoint.
 */
export function listedExpirations(market: Market, instant: number, count: number, graceMs: number): ExpirationInfo[] {
  // The grace hour never crosses the market date (08:00 UTC + 1h, 16:00 New York + 1h).
  return candidatesOf(market, sessionDateOf(market, instant))
    .filter((info) => info.cutoffUtc.getTime() + graceMs > instant)
    .slice(0, count)
    .map((info) => ({ ...info, cutoffUtc: new Date(info.cutoffUtc) }));
}
