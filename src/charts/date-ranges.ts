// A long list of session dates said in a few words: runs of consecutive sessions as ranges, a count,
// and at most a few ranges listed. TradFi sessions skip weekends, so for them a run goes on across
// a weekend (nothing can be held on a Saturday); crypto trades every day, so its runs are calendar days.

export interface DateRange {
  first: string;
  last: string;
  /** Dates of the list in this range. */
  count: number;
}

const DAY_MS = 86_400_000;

function dayNumber(date: string): number {
  return Math.round(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
}

/** Whether every day strictly between two dates is a Saturday or a Sunday. */
function onlyWeekendBetween(a: number, b: number): boolean {
  for (let day = a + 1; day < b; day++) {
    const weekday = new Date(day * DAY_MS).getUTCDay();
    if (weekday !== 0 && weekday !== 6) return false;
  }
  return true;
}

/** Sorted distinct ISO dates grouped into runs of consecutive sessions. */
export function dateRanges(dates: readonly string[], weekdaysOnly: boolean): DateRange[] {
  const sorted = [...new Set(dates)].sort();
  const ranges: DateRange[] = [];
  for (const date of sorted) {
    const last = ranges[ranges.length - 1];
    const day = dayNumber(date);
    const joins = last !== undefined && (day - dayNumber(last.last) === 1 || (weekdaysOnly && onlyWeekendBetween(dayNumber(last.last), day)));
    if (last !== undefined && joins) {
      last.last = date;
      last.count++;
    } else ranges.push({ first: date, last: date, count: 1 });
  }
  return ranges;
}

/** "41 sessions: 2026-01-05 – 2026-02-27 (40), 2026-03-03"; more than `listed` ranges end with "+N more ranges". */
export function summarizeDates(dates: readonly string[], weekdaysOnly: boolean, listed = 3): string {
  if (dates.length === 0) return 'none';
  const ranges = dateRanges(dates, weekdaysOnly);
  const total = ranges.reduce((sum, r) => sum + r.count, 0);
  const shown = ranges.slice(0, listed).map((r) => (r.count === 1 ? r.first : `${r.first} – ${r.last} (${r.count})`));
  const more = ranges.length > listed ? `, +${ranges.length - listed} more range(s)` : '';
  return `${total} session(s): ${shown.join(', ')}${more}`;
}
