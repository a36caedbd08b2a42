// Calendar dates as ISO `YYYY-MM-DD` strings. A date is a day in some calendar, not an instant, so
// the arithmetic runs on UTC midnights where no DST can shift it. ISO date strings sort
// lexicographically in date order, which the sync code relies on.

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The years the API accepts in date parameters. */
export const MIN_YEAR = 2020;
export const MAX_YEAR = 2100;

/** True for a real calendar date written `YYYY-MM-DD` (no 2025-02-30, no 2025-2-3). */
export function isIsoDate(value: string): boolean {
  const match = ISO_DATE.exec(value);
  if (match === null) return false;
  const ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return new Date(ms).toISOString().slice(0, 10) === value;
}

/** True for a real date whose year the API accepts (2020–2100). */
export function isApiDate(value: string): boolean {
  if (!isIsoDate(value)) return false;
  const year = Number(value.slice(0, 4));
  return year >= MIN_YEAR && year <= MAX_YEAR;
}

/**
 * Why `value` is not a real date `YYYY-MM-DD`, or undefined when it is. With `apiYears` a real date
 * outside the years the API accepts is refused too, saying so: "bad date" for 2019-01-01 sends the
 * user hunting for a typo that is not there.
 */
export function dateProblem(value: string, apiYears = false): string | undefined {
  const range = `${MIN_YEAR}–${MAX_YEAR}`;
  if (!isIsoDate(value)) return `${JSON.stringify(value)} is not a real date YYYY-MM-DD${apiYears ? ` in ${range}` : ''}`;
  if (!apiYears || isApiDate(value)) return undefined;
  return `${value} is outside the years the API accepts (${range}); give a date YYYY-MM-DD from ${MIN_YEAR}-01-01 to ${MAX_YEAR}-12-31`;
}

// Date, optional time (hh:mm, :ss, fraction) and then a zone: a time without a zone means a different
// moment on every machine, so it is refused.
const ISO_INSTANT = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|([+-])(\d{2}):?(\d{2})))?$/;

/**
 * An ISO 8601 instant with its zone (`Z` or `±hh:mm`), or a bare date (midnight UTC), whose every
 * part is real: undefined for 2026-11-31, 2026-02-30, 24:00, 12:60 or a +25:00 offset, which
 * `new Date` would roll over into another day instead of refusing.
 */
export function parseIsoInstant(value: string): Date | undefined {
  const match = ISO_INSTANT.exec(value);
  if (match === null) return undefined;
  const [, date, hh = '0', mm = '0', ss = '0', fraction = '', , sign, oh = '0', om = '0'] = match as unknown as (string | undefined)[];
  if (!isIsoDate(date as string)) return undefined;
  const [hour, minute, second, offsetHours, offsetMinutes] = [hh, mm, ss, oh, om].map(Number) as [number, number, number, number, number];
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const offsetMs = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  const millis = Number(fraction.padEnd(3, '0').slice(0, 3));
  return new Date(utcMidnightOf(date as string) + ((hour * 60 + minute) * 60 + second) * 1000 + millis - offsetMs);
}

function utcMidnightOf(isoDate: string): number {
  if (!isIsoDate(isoDate)) throw new RangeError(`not a YYYY-MM-DD date: "${isoDate}"`);
  return Date.parse(`${isoDate}T00:00:00Z`);
}

export function addDays(isoDate: string, days: number): string {
  return new Date(utcMidnightOf(isoDate) + days * DAY_MS).toISOString().slice(0, 10);
}

/** Whole days from `from` to `to` (positive when `to` is later). */
export function daysBetween(from: string, to: string): number {
  return Math.round((utcMidnightOf(to) - utcMidnightOf(from)) / DAY_MS);
}

/** 0 = Sunday … 6 = Saturday. */
export function weekdayOf(isoDate: string): number {
  return new Date(utcMidnightOf(isoDate)).getUTCDay();
}

export function isWeekend(isoDate: string): boolean {
  const day = weekdayOf(isoDate);
  return day === 0 || day === 6;
}

export function compareDates(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function maxDate(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return a >= b ? a : b;
}

/**
 * Splits [start, end) (end exclusive) into consecutive windows of at most `maxDays` days, oldest
 * first, e.g. for /history/levels at 15m granularity (31-day limit).
 */
export function splitDateWindows(start: string, end: string, maxDays: number): Array<{ start: string; end: string }> {
  if (!Number.isInteger(maxDays) || maxDays < 1) throw new RangeError(`splitDateWindows: bad window ${maxDays}`);
  const windows: Array<{ start: string; end: string }> = [];
  for (let from = start; from < end;) {
    const candidate = addDays(from, maxDays);
    const to = candidate < end ? candidate : end;
    windows.push({ start: from, end: to });
    from = to;
  }
  return windows;
}

/**
 * An instant as people read it in a table or a sentence: `2026-03-10 23:45:00Z` (UTC, the
 * milliseconds only when there are some). CSV and JSON keep the full ISO form for machines.
 */
export function formatInstant(value: Date | string): string {
  const date = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) return String(value);
  return date.toISOString().replace('T', ' ').replace('.000Z', 'Z');
}
