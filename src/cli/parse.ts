// Option value parsers for commander: they reject bad values with a message naming what is allowed.
import { InvalidArgumentError } from 'commander';
import { UsageError } from '../core/errors.js';
import { parseIsoInstant } from '../time/dates.js';
import { closestNames } from '../core/known-names.js';
import { isTimeZone, knownTimeZones, LIST_ZONES, TIME_ZONE_EXAMPLE } from '../time/zones.js';

export function integerOption(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}, got "${value}"`);
    const n = Number(value);
    if (n < min || n > max) throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}, got ${n}`);
    return n;
  };
}

/** One of a few words, e.g. `--schema-contract evolve|freeze`. */
export function choiceOption<T extends string>(choices: readonly T[]) {
  return (value: string): T => {
    const word = value.trim();
    if (!(choices as readonly string[]).includes(word)) throw new InvalidArgumentError(`expected one of ${choices.join(', ')}, got "${value}"`);
    return word as T;
  };
}

/** A display time zone: UTC or an IANA name; anything else names itself, the closest zones and how to list them all. */
export function timeZoneOption(value: string): string {
  if (!isTimeZone(value)) throw new InvalidArgumentError(timeZoneProblem(value));
  return value;
}

export function timeZoneProblem(value: string): string {
  const close = closestNames(value, knownTimeZones());
  const hint = close.length > 0 ? `; did you mean ${close.join(', ')}?` : '.';
  return `"${value}" is not a time zone${hint} Give UTC or an IANA name, e.g. ${TIME_ZONE_EXAMPLE}; list them all with: ${LIST_ZONES}`;
}

/** A number of seconds, fractions allowed (0.5), from 0 to `max`. */
export function secondsOption(max: number) {
  return (value: string): number => {
    const n = Number(value.trim());
    if (!/^\d+(\.\d+)?$/.test(value.trim()) || n > max) throw new InvalidArgumentError(`expected seconds from 0 to ${max} (e.g. 30 or 0.5), got "${value}"`);
    return n;
  };
}

/** The emulator's key prefix: URL-safe characters, so its keys stay what a header carries as it is. */
export function keyPrefixOption(value: string): string {
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(value)) throw new InvalidArgumentError(`expected 1 to 32 URL-safe characters (A-Z a-z 0-9 _ -), got "${value}"`);
  return value;
}

/** A number of seconds above 0 (fractions allowed), at most `max`: a wait that must let something happen. */
export function positiveSecondsOption(max: number) {
  return (value: string): number => {
    const n = Number(value.trim());
    if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(n > 0) || n > max)
      throw new InvalidArgumentError(`expected seconds above 0, at most ${max} (e.g. 60 or 2.5), got "${value}"`);
    return n;
  };
}

/** Repeatable and comma-separated: `--symbol BTC --symbol ETH,SOL` → [BTC, ETH, SOL]. */
export function listOption(value: string, previous: string[] | undefined): string[] {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return [...(previous ?? []), ...items];
}

/** Repeatable, taken whole (a path may hold commas): `--read-dir a --read-dir b` → [a, b]. */
export function collectOption(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** An ISO 8601 instant such as 2026-11-20T15:00:00Z, with its zone, every part a real date and time. */
export function parseInstant(value: string, option: string): Date {
  const date = parseIsoInstant(value);
  if (date === undefined) {
    throw new UsageError(
      `${option}: not an ISO 8601 instant: "${value}"; expected a real date and time with its zone, e.g. 2026-11-20T15:00:00Z or 2026-11-20 (midnight UTC)`,
    );
  }
  return date;
}
