// A close row that is not a session's close: levels_close gives each session's last capture held, and
// for today's session (after `sync --fill-levels` or `capture`) or any session whose file is not
// loaded yet, that capture is an intraday one (type 'intraday'). The series charts draw it apart:
// hollow, dashed from the last close, under its own legend entry "intraday 14:00 UTC", and no
// subtitle or tooltip calls it a close.
import { captureTime } from './format.js';
import type { CloseRow, SeriesData } from './types.js';

export function isIntraday(close: Pick<CloseRow, 'type'>): boolean {
  return close.type === 'intraday';
}

/** "14:00 UTC": the time of day of a capture, in the display zone ("10:00 EDT"). */
export function timeOfDay(iso: string, zone = 'UTC'): string {
  return captureTime(iso, zone).slice(11);
}

/** The legend entry of the intraday captures: "intraday 14:00 UTC" for one, "intraday captures" for several; undefined for none. */
export function intradayName(data: SeriesData, zone = 'UTC'): string | undefined {
  const intraday = data.closes.filter(isIntraday);
  if (intraday.length === 0) return undefined;
  return intraday.length === 1 ? `intraday ${timeOfDay(intraday[0]!.capturedAt, zone)}` : 'intraday captures';
}

/** " · 2026-03-16: intraday 14:00 UTC, not a close" for the subtitle; empty when every row is a close. */
export function intradayNote(data: SeriesData, zone = 'UTC'): string {
  const intraday = data.closes.filter(isIntraday);
  if (intraday.length === 0) return '';
  if (intraday.length === 1) return ` · ${intraday[0]!.sessionDate}: intraday ${timeOfDay(intraday[0]!.capturedAt, zone)}, not a close`;
  return ` · ${intraday.length} sessions end in an intraday capture (hollow), not a close`;
}

/** The closes' values with null where the row is intraday. */
export function closesOnlyValues(data: SeriesData, value: (c: CloseRow) => number | null): (number | null)[] {
  return data.closes.map((c) => (isIntraday(c) ? null : value(c)));
}

type LinePoint = number | null | { value: number | null; symbol: 'none' };

/**
 * The intraday values as a line's data: each intraday value, and the close before it (no marker) so
 * a dashed segment joins the last close to it; null elsewhere.
 */
export function intradayLineValues(data: SeriesData, value: (c: CloseRow) => number | null): LinePoint[] {
  const points: LinePoint[] = data.closes.map(() => null);
  data.closes.forEach((c, i) => {
    if (!isIntraday(c)) return;
    points[i] = value(c);
    const before = data.closes[i - 1];
    if (before !== undefined && !isIntraday(before) && points[i - 1] === null) points[i - 1] = { value: value(before), symbol: 'none' };
  });
  return points;
}
