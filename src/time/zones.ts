// Display time zones: what a user asks to see times in (--tz, config timeZone). Storage stays UTC;
// only the text a command prints changes.
import { DateTime, IANAZone } from 'luxon';

export const TIME_ZONE_EXAMPLE = 'America/New_York';

/** The zones this Node knows (the ones luxon accepts), as a shell command prints them. */
export const LIST_ZONES = `node -p "Intl.supportedValuesOf('timeZone').join('\\n')"`;

/** Every IANA zone name this Node knows, and UTC. */
export function knownTimeZones(): string[] {
  return ['UTC', ...Intl.supportedValuesOf('timeZone')];
}

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

/** The time of day of an instant in a zone with the zone's name: "10:00 EDT", "14:00 UTC". */
export function clockInZone(iso: string, zone: string): string {
  return timeInZone(iso, zone).slice(11);
}

/** An instant to the second in a zone: "2026-03-16 10:00:00 EDT" (fractions of a second kept: "10:00:00.5 EDT"). */
export function instantInZone(iso: string, zone: string): string {
  const time = DateTime.fromISO(iso, { zone: 'utc' }).setZone(zone);
  const fraction = time.millisecond === 0 ? '' : `.${String(time.millisecond).padStart(3, '0').replace(/0+$/, '')}`;
  return `${time.toFormat('yyyy-MM-dd HH:mm:ss')}${fraction} ${zone === 'UTC' ? 'UTC' : time.toFormat('ZZZZ')}`;
}
