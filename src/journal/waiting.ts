// What the journal holds, as `status` shows it: files, runs and snapshots waiting to load, and the
// entries refused. Readable whoever holds the warehouse.
import { journalPath, type JournalRead } from './journal.js';

/** What the journal holds, for `status` (readable whoever holds the warehouse). */
export interface WaitingSummary {
  /** Live snapshots journaled by `capture`, not loaded yet. */
  snapshots: number;
  files: number;
  bytes: number;
  runs: number;
  journal: string;
  oldest: string | null;
  /** Entries the tool refused (kept in the journal's rejected list, never loaded). */
  rejected: number;
  /** Their reasons, the first few. */
  rejectedReasons: string[];
  /** Why the journal file cannot be used at all, when it cannot. */
  problem: string | null;
}

export function waitingOf(read: JournalRead, archiveRoot: string, snapshots: number): WaitingSummary {
  const { journal } = read;
  const dates = journal.files.map((f) => f.downloadedAt).sort();
  return {
    snapshots,
    files: journal.files.length,
    bytes: journal.files.reduce((sum, f) => sum + f.bytes, 0),
    runs: journal.runs.length,
    journal: journalPath(archiveRoot),
    oldest: dates[0] ?? null,
    rejected: journal.rejected.length,
    rejectedReasons: journal.rejected.slice(0, 3).map((entry) => `${entry.kind}: ${entry.reason}`),
    problem: read.unreadable ?? null,
  };
}
