// The archive journal's state as a test sees it, whatever its layout (load packages, or the older
// pending.json and inflight.json): the files waiting to load, the listings and run records waiting
// for the warehouse, the entries refused, and the run stopped hard (its package still open). Read
// with the product's own reader, which checks each entry as every run does.
import { inspectJournal } from '../../src/journal/journal.js';
import { readOnRecord } from '../../src/journal/on-record.js';
import type { JournaledFile, JournaledListing, JournaledRun, RejectedEntry } from '../../src/journal/entries.js';
import type { StoppedRun } from '../../src/journal/stopped-runs.js';

export interface JournalState {
  files: JournaledFile[];
  listings: JournaledListing[];
  runs: JournaledRun[];
  rejected: RejectedEntry[];
  /** A run stopped hard (or running): its paid files and credits, not in the journal's lists yet. */
  stopped: StoppedRun | undefined;
}

export async function journalState(archive: string): Promise<JournalState> {
  const { journal } = await inspectJournal(archive);
  const { stopped } = await readOnRecord(archive);
  return { files: journal.files, listings: journal.listings, runs: journal.runs, rejected: journal.rejected, stopped };
}
