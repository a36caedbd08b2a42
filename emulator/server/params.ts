// Strict validation of path and query parameters. Every helper either returns a clean value or
// throws the spec's 400 (invalid_param with its hints). Pure: no clock, no market.

import { HttpError } from './http.js';

export const MIN_YEAR = 2020;
export const MAX_YEAR = 2100;

export function invalidParam(message: string, hints: Record<string, unknown> = {}): HttpError {
  return new HttpError(400, 'invalid_param', message, hints);
}

/** Rejects query parameters the endpoint does not know, and repeated ones. */
export function checkQueryNames(query: URLSearchParams, allowed: readonly string[]): void {
  const seen = new Set<string>();
  for (const name of query.keys()) {
    if (!allowed.includes(name)) {
      throw invalidParam(
        allowed.length === 0
          ? `Unknown query parameter '${name}': this endpoint takes none.`
          : `Unknown query parameter '${name}'. Allowed: ${allowed.join(', ')}.`,
      );
    }
    if (seen.has(name)) throw invalidParam(`Query parameter '${name}' is given more than once.`);
    seen.add(name);
  }
}

/** A query value, or undefined when absent. An empty value counts as given (and is then invalid). */
export function queryValue(query: URLSearchParams, name: string): string | undefined {
  const value = query.get(name);
  return value === null ? undefined : value;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/i;

function checkYear(year: number, name: string): void {
  if (year < MIN_YEAR || year > MAX_YEAR) {
    throw invalidParam(`'${name}' must be a date in the years ${MIN_YEAR} to ${MAX_YEAR}.`);
  }
}

function validCalendarDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** YYYY-MM-DD within the accepted years; returns the same text. */
export function parseDate(value: string | undefined, name: string): string {
  if (value === undefined || value === '') throw invalidParam(`'${name}' is required (YYYY-MM-DD).`);
  const match = DATE_RE.exec(value);
  if (!match) throw invalidParam(`'${name}' must be a date YYYY-MM-DD, got '${value}'.`);
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (!validCalendarDate(year, month, day)) throw invalidParam(`'${name}' is not a calendar date: '${value}'.`);
  checkYear(year, name);
  return value;
}

/**
 * An ISO date (midnight UTC) or date-time. A date-time without zone is UTC; an offset is honoured.
 */
export function parseInstant(value: string | undefined, name: string): Date {
  if (value === undefined || value === '') throw invalidParam(`'${name}' is required (ISO 8601 date-time UTC).`);
  if (DATE_RE.test(value)) return new Date(`${parseDate(value, name)}T00:00:00Z`);
  const match = DATETIME_RE.exec(value);
  if (!match) throw invalidParam(`'${name}' must be an ISO 8601 date or date-time, got '${value}'.`);
  const second = checkDateTime(match, name, value);
  const fraction = (match[7] ?? '').padEnd(3, '0').slice(0, 3);
  const text = `${match[1]}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${String(second).padStart(2, '0')}.${fraction}${zoneOf(match[8])}`;
  const instant = new Date(text);
  if (Number.isNaN(instant.getTime())) throw invalidParam(`'${name}' is not a valid date-time: '${value}'.`);
  return instant;
}

/** Checks the calendar date, the clock and the year of a date-time match; returns its seconds. */
function checkDateTime(match: RegExpExecArray, name: string, value: string): number {
  const [year, month, day, hour, minute] = [1, 2, 3, 4, 5].map((i) => Number(match[i])) as [number, number, number, number, number];
  const second = Number(match[6] ?? 0);
  if (!validCalendarDate(year, month, day) || hour > 23 || minute > 59 || second > 59) {
    throw invalidParam(`'${name}' is not a valid date-time: '${value}'.`);
  }
  checkYear(year, name);
  return second;
}

/** Z, or an offset written +HH:MM (a +HHMM offset gets its colon). */
function zoneOf(written: string | undefined): string {
  const zone = (written ?? 'Z').toUpperCase();
  return zone !== 'Z' && !zone.includes(':') ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
}

/** One of a fixed list of values, else invalid_param with valid_values. */
export function parseChoice<T extends string>(value: string, name: string, choices: readonly T[]): T {
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw invalidParam(`'${name}' must be one of ${choices.join(', ')}; got '${value}'.`, { valid_values: [...choices] });
}

/** Adds whole days to a YYYY-MM-DD date. */
export function addDays(isoDate: string, days: number): string {
  const date = new Date(`${isoDate}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

export const CODE_RE = /^(\d{1,2})(JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC)(\d{2})$/;
export const ISO_DATE_RE = DATE_RE;
