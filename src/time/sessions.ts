// Session calendars of the spec: the session date is the UTC date for crypto and the New York date
// for TradFi. TradFi sessions are NYSE trading days: no session on weekends and exchange holidays.

import { DateTime } from 'luxon';
import { isNyseTradingDay } from '../calendar/nyse.js';
import { addDays } from './dates.js';

export type Market = 'crypto' | 'tradfi';
export const NEW_YORK = 'America/New_York';

/** The market of a history venue: `tradfi` is TradFi, every other venue is crypto. */
export function marketOf(exchange: string): Market {
  return exchange.toLowerCase() === 'tradfi' ? 'tradfi' : 'crypto';
}

/** The calendar date of an instant in the market's time zone (UTC or New York). */
export function sessionDateOf(market: Market, instant: Date | number): string {
  const ms = typeof instant === 'number' ? instant : instant.getTime();
  if (!Number.isFinite(ms)) throw new RangeError('sessionDateOf: invalid instant');
  if (market === 'crypto') return new Date(ms).toISOString().slice(0, 10);
  const date = DateTime.fromMillis(ms, { zone: NEW_YORK }).toISODate();
  if (date === null) throw new RangeError('sessionDateOf: instant outside the supported range');
  return date;
}

/**
 * Today's date in the market's calendar. For TradFi on a closed day this is that date itself;
 * use latestSessionOnOrBefore() for the session that trades.
 */
export function todaySession(market: Market, now: Date | number): string {
  return sessionDateOf(market, now);
}

/** TradFi: the date itself on a trading day, else the trading day before. Crypto: the date itself. */
export function latestSessionOnOrBefore(market: Market, isoDate: string): string {
  let date = addDays(isoDate, 0); // validates
  if (market === 'tradfi') while (!isNyseTradingDay(date)) date = addDays(date, -1);
  return date;
}

/**
 * The compare rule of the spec: the reference date is today minus N days in the market's calendar;
 * the session used is the latest on or before it (a weekend or holiday gives the trading day before).
 */
export function compareReferenceDate(market: Market, now: Date | number, nDays: number): string {
  if (!Number.isInteger(nDays) || nDays < 0) throw new RangeError(`compareReferenceDate: bad day count ${nDays}`);
  return addDays(todaySession(market, now), -nDays);
}

/** The session a compare over N days reads: latestSessionOnOrBefore(compareReferenceDate(...)). */
export function compareSessionDate(market: Market, now: Date | number, nDays: number): string {
  return latestSessionOnOrBefore(market, compareReferenceDate(market, now, nDays));
}

/** Every session date from `since` to `until`, both inclusive, oldest first (TradFi: trading days). */
export function sessionDatesBetween(market: Market, since: string, until: string): string[] {
  const dates: string[] = [];
  for (let date = addDays(since, 0); date <= until; date = addDays(date, 1)) {
    if (market === 'crypto' || isNyseTradingDay(date)) dates.push(date);
  }
  return dates;
}
