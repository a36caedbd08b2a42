// Display time zones: what a user asks to see times in (--tz, config timeZone). Storage stays UTC;
// only the text a command prints changes.
import { DateTime, IANAZone } from 'luxon';

export const TIME_ZONE_EXAMPLE = 'America/New_York';

/** UTC, or an IANA zone name luxon knows (Europe/Berlin, America/New_York). */
export function isTimeZone(zone: string): boolean {
  return zone === 'UTC' || IANAZone.isValidZone(zone);
}

/** 2026-03-16T14:00:00Z in America/New_York → "2026-03-16 10:00 EDT"; in UTC "2026-03-16 14:00 UTC". */
export function timeInZone(iso: string, zone: string): string {
  const time = DateTime.fromISO(iso, { zone: 'utc' }).setZone(zone);
  const name = zone === 'UTC' ? 'UTC' : time.toFormat('ZZZZ');
  return `${time.toFormat('yyyy-MM-dd HH:mm')} ${name}`;
}
