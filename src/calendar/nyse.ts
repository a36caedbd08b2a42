// The NYSE trading calendar, computed from its rules: full-day holidays and 13:00 early closes
// (New York time). It imports nothing of gexwh, so both the client (src/time) and the emulator use
// this one copy without the emulator depending on client code.
//
// Holidays: New Year's Day, Martin Luther King Jr. Day (3rd Monday of January), Washington's
// Birthday (3rd Monday of February), Good Friday (two days before Western Easter), Memorial Day
// (last Monday of May), Juneteenth (June 19, from 2022), Independence Day, Labor Day (1st Monday of
// September), Thanksgiving (4th Thursday of November), Christmas. A fixed-date holiday on a Saturday
// is observed the Friday before, on a Sunday the Monday after; except New Year's Day on a Saturday,
// which is not observed (the Friday before closes a year and trades).
// Early closes at 13:00: July 3 when it is Monday to Thursday, the day after Thanksgiving, and
// December 24 when it is Monday to Thursday.
// Closures the rules cannot foresee (a national day of mourning, a storm) are not in it.

import { DateTime } from 'luxon';

const ZONE = 'UTC'; // dates are calendar days; weekday arithmetic needs no time zone

export const NYSE_EARLY_CLOSE = { hour: 13, minute: 0 } as const;

function day(year: number, month: number, dayOfMonth: number): DateTime {
  return DateTime.fromObject({ year, month, day: dayOfMonth }, { zone: ZONE });
}

/** The n-th (1-based) given weekday (1 = Monday … 7 = Sunday) of a month; n = -1 for the last. */
function nthWeekday(year: number, month: number, weekday: number, n: number): DateTime {
  if (n === -1) {
    const last = day(year, month, 1).endOf('month').startOf('day');
    return last.minus({ days: (last.weekday - weekday + 7) % 7 });
  }
  const first = day(year, month, 1);
  return first.plus({ days: ((weekday - first.weekday + 7) % 7) + (n - 1) * 7 });
}

/** Western (Gregorian) Easter Sunday: the anonymous Gregorian computus (Meeus/Jones/Butcher). */
export function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const dayOfMonth = ((h + l - 7 * m + 114) % 31) + 1;
  return day(year, month, dayOfMonth).toISODate()!;
}

/** A fixed-date holiday moved off a weekend: Saturday to Friday, Sunday to Monday. */
function observed(date: DateTime): DateTime {
  if (date.weekday === 6) return date.minus({ days: 1 });
  if (date.weekday === 7) return date.plus({ days: 1 });
  return date;
}

const holidayCache = new Map<number, ReadonlyMap<string, string>>();

/** The full-day holidays of a year, date → name. */
export function nyseHolidays(year: number): ReadonlyMap<string, string> {
  const cached = holidayCache.get(year);
  if (cached) return cached;
  const list: [DateTime | undefined, string][] = [
    [day(year, 1, 1).weekday === 6 ? undefined : observed(day(year, 1, 1)), "New Year's Day"],
    [nthWeekday(year, 1, 1, 3), 'Martin Luther King Jr. Day'],
    [nthWeekday(year, 2, 1, 3), "Washington's Birthday"],
    [DateTime.fromISO(easterSunday(year), { zone: ZONE }).minus({ days: 2 }), 'Good Friday'],
    [nthWeekday(year, 5, 1, -1), 'Memorial Day'],
    [year >= 2022 ? observed(day(year, 6, 19)) : undefined, 'Juneteenth'],
    [observed(day(year, 7, 4)), 'Independence Day'],
    [nthWeekday(year, 9, 1, 1), 'Labor Day'],
    [nthWeekday(year, 11, 4, 4), 'Thanksgiving Day'],
    [observed(day(year, 12, 25)), 'Christmas Day'],
  ];
  const holidays = new Map<string, string>();
  for (const [date, name] of list) if (date) holidays.set(date.toISODate()!, name);
  holidayCache.set(year, holidays);
  return holidays;
}

function parse(isoDate: string): DateTime {
  const date = DateTime.fromISO(isoDate, { zone: ZONE });
  if (!date.isValid || !/^\d{4}-\d{2}-\d{2}$/.test(isoDate)) throw new RangeError(`not a YYYY-MM-DD date: ${isoDate}`);
  return date;
}

/** The holiday's name when the exchange is closed all day on this date, else undefined. */
export function nyseHoliday(isoDate: string): string | undefined {
  return nyseHolidays(parse(isoDate).year).get(isoDate);
}

/** Whether the exchange trades on this date: a weekday that is not a holiday. */
export function isNyseTradingDay(isoDate: string): boolean {
  const date = parse(isoDate);
  return date.weekday <= 5 && !nyseHolidays(date.year).has(isoDate);
}

/** Whether the exchange closes at 13:00 New York time on this date (a trading day). */
export function isNyseEarlyClose(isoDate: string): boolean {
  const date = parse(isoDate);
  const mondayToThursday = date.weekday <= 4;
  if (date.month === 7 && date.day === 3) return mondayToThursday;
  if (date.month === 12 && date.day === 24) return mondayToThursday;
  return isoDate === nthWeekday(date.year, 11, 4, 4).plus({ days: 1 }).toISODate();
}
