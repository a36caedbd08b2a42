// --since/--until against the coverage, before anything is listed or spent. Pure. A window that holds
// no session of any selected pair (a wrong year in a cron line) is a usage error naming the coverage's
// first and last session, not a nightly "sync ok" that syncs nothing.
import { UsageError } from '../core/errors.js';
import type { Pair } from '../core/pairs.js';
import { pairKey } from '../core/pairs.js';
import type { CoverageRow } from '../core/rows.js';
import type { DateRange } from './selection.js';

/** How the user gave each date (`--since`, or `"since" in config file PATH`), for the message. */
export interface DateLabels {
  since?: string;
  until?: string;
}

/** Throws a UsageError when [since, until] overlaps the file dates of none of the selected pairs. */
export function checkDatesInCoverage(range: DateRange, pairs: readonly Pair[], coverage: readonly CoverageRow[], labels: DateLabels = {}): void {
  if (range.since === undefined && range.until === undefined) return;
  const selected = new Set(pairs.map(pairKey));
  const spans = coverage
    .filter((row) => selected.has(pairKey(row)) && row.files_first_date !== null && row.files_last_date !== null)
    .map((row) => ({ first: row.files_first_date!, last: row.files_last_date! }));
  // Nothing dated to check against (no pair selected, or a coverage without file dates): the plan says so.
  if (spans.length === 0) return;
  const since = range.since ?? '0000-00-00';
  const until = range.until ?? '9999-99-99';
  if (spans.some((span) => span.first <= until && span.last >= since)) return;
  const first = spans.map((span) => span.first).sort()[0]!;
  const last = spans
    .map((span) => span.last)
    .sort()
    .at(-1)!;
  throw new UsageError(
    `${windowText(range, labels)}: outside the coverage of the selection (first session ${first}, last session ${last}); nothing would be synced`,
    {
      coverage_first: first,
      coverage_last: last,
    },
  );
}

function windowText(range: DateRange, labels: DateLabels): string {
  const parts: string[] = [];
  if (range.since !== undefined) parts.push(`${labels.since ?? '--since'} ${range.since}`);
  if (range.until !== undefined) parts.push(`${labels.until ?? '--until'} ${range.until}`);
  return parts.join(' to ');
}
