// Where a sync's run is recorded, decided in this one place for every way a run ends (done, held
// out of the warehouse, failed or stopped): in the warehouse when it could be opened for writing,
// else in the archive's journal, for the next sync or `gexwh load` to carry in. The paid files the
// run did not load wait in the journal whichever it is, written first; the spend log goes last, kept
// as the run's spend record when the run went to the journal.
import type { RunCounts } from '../warehouse/index.js';
import { journalFiles, journalListings, journalRun, recordRun, type PendingManifests, type RunStartRecord } from '../journal/held.js';
import type { JournaledListing } from '../journal/journal.js';
import type { ManifestListing } from './listing.js';
import type { SpendLog } from '../journal/spend-log.js';
import type { SyncStore } from './state-source.js';
import type { VerifiedFile } from '../core/rows.js';

/** What a run is recorded with, besides its counts: its storage, the archive, its start, its spend log (absent for a plan). */
export interface RunBook {
  store: SyncStore;
  archiveRoot: string;
  start: RunStartRecord;
  log: SpendLog | undefined;
}

/** The warehouse opened for writing, or who holds it. */
export type Writer = Awaited<ReturnType<SyncStore['writer']>>;

/** What the run leaves besides its record: paid files not loaded, and the manifests it listed when they are not stored yet. */
export interface LeftOver {
  files: readonly VerifiedFile[];
  listed?: ManifestListing['listed'];
}

/**
 * Records the run where `writer` says (the warehouse, or the journal when it is held); true when it
 * went to the journal. A plan beside no warehouse leaves no trace, not even in the archive.
 */
export async function recordRunIn(book: RunBook, writer: Writer, counts: RunCounts, left: LeftOver): Promise<boolean> {
  const { store, archiveRoot, start, log } = book;
  if (store.mode === 'none') return false;
  const pending = pendingOf(store.mode, left.listed);
  const journaled = !('conn' in writer);
  await journalFiles(archiveRoot, left.files, journaled ? pending : STORED);
  if ('conn' in writer) await recordRun(writer.conn, start, store.runId, counts, pending);
  else await journalRun(archiveRoot, start, store.runId, counts);
  await log?.close({ journaled });
  return journaled;
}

/** Before the load waits for the warehouse: the manifests listed without it go to the journal (a kill during the wait loses nothing); returns them. */
export async function journalListed(book: RunBook, listed: ManifestListing['listed']): Promise<JournaledListing[]> {
  const pending = pendingOf(book.store.mode, listed);
  await journalFiles(book.archiveRoot, [], pending);
  return pending.listings;
}

/** Manifests stored already: nothing of them waits. */
const STORED: PendingManifests = { listings: [], stored: true };

/** The listed manifests as the journal keeps them; stored already when the run planned in the warehouse itself. */
function pendingOf(mode: SyncStore['mode'], listed: ManifestListing['listed'] | undefined): PendingManifests {
  if (listed === undefined) return STORED;
  return { listings: journalListings(listed, mode === 'archive'), stored: mode === 'warehouse' };
}
