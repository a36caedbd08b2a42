// Which partitions an export writes and how they are grouped into partitioned COPYs (pure).
import { existsSync } from 'node:fs';
import type { RecordedFile } from './target.js';

export interface Partition {
  exchange: string;
  symbol: string;
  sessionDate: string;
  rows: number;
  fingerprint: string;
}

export interface ExportedPartition extends RecordedFile {
  exchange: string;
  symbol: string;
  sessionDate: string;
  fingerprint: string;
}

export const partitionKey = (p: { exchange: string; symbol: string; sessionDate: string }): string => `${p.exchange}|${p.symbol}|${p.sessionDate}`;

/**
 * The partitions to write (pure apart from `exists`): new ones, changed fingerprints, moved paths,
 * files deleted by hand, or all with `full`. The rest are skipped.
 */
export function stalePartitions(
  partitions: readonly Partition[],
  exported: ReadonlyMap<string, ExportedPartition>,
  pathOf: (partition: Partition) => string,
  full: boolean,
  exists: (path: string) => boolean = existsSync,
): Partition[] {
  return partitions.filter((partition) => {
    const previous = exported.get(partitionKey(partition));
    const path = pathOf(partition);
    return full || previous?.fingerprint !== partition.fingerprint || previous.path !== path || !exists(path);
  });
}

/**
 * Partitions written by one COPY: the stale partitions of consecutive session dates (of the dates
 * the selection holds), whatever their pairs, so one new session of every pair is one COPY.
 */
export interface CopyRun {
  firstDate: string;
  lastDate: string;
  partitions: Partition[];
  /**
   * Every partition of the selection between firstDate and lastDate is in the run, so the filter
   * and the date range alone select its rows; otherwise the COPY also joins the run's keys.
   */
  whole: boolean;
}

/**
 * Cuts the stale partitions into runs of consecutive session dates, at most `max` partitions each
 * (pure). `partitions` is every partition of the selection: a date with nothing stale ends a run,
 * so a run's date range never reads a session it does not write. The date range is what zone maps
 * serve (a table grows session by session, whatever the pair); a date with more stale partitions
 * than `max` is cut into several runs, each joined with its keys.
 */
export function copyRuns(partitions: readonly Partition[], stale: ReadonlySet<Partition>, max: number): CopyRun[] {
  const runs: CopyRun[] = [];
  let open: CopyRun | null = null; // the run the next date's stale partitions may extend
  for (const [date, all] of byDate(partitions)) {
    const due = all.filter((partition) => stale.has(partition));
    if (due.length === 0) open = null;
    else if (open && open.partitions.length + due.length <= max) extendRun(open, date, due, all.length);
    else {
      for (let at = 0; at < due.length; at += max)
        runs.push((open = { firstDate: date, lastDate: date, partitions: due.slice(at, at + max), whole: due.length === all.length && due.length <= max }));
    }
  }
  return runs;
}

function extendRun(run: CopyRun, date: string, due: Partition[], held: number): void {
  run.partitions.push(...due);
  run.lastDate = date;
  run.whole &&= due.length === held;
}

/** The partitions grouped by session date, oldest first. */
function byDate(partitions: readonly Partition[]): Array<[string, Partition[]]> {
  const dates = new Map<string, Partition[]>();
  for (const partition of partitions) {
    const list = dates.get(partition.sessionDate);
    if (list) list.push(partition);
    else dates.set(partition.sessionDate, [partition]);
  }
  return [...dates.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
