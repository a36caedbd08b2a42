// After a load, each journal entry it decided moves to its next state, one rename (or one small
// write) each: a loaded file to `loaded/`, one the loader refused to `failed/`, a copy that was not
// the paid bytes to `quarantined/`; an entry refused as a claim leaves a note with its reason in its
// package's `quarantined/` (kept, never used); a stored listing goes; a stored run record becomes
// `recorded.json`. A package with nothing left to load, store or show then goes as a whole. A crash
// between the warehouse's commit and a rename changes nothing: the next load finds the file loaded
// and moves it then.
import { basename, dirname, join } from 'node:path';
import type { JournaledFile, RejectedEntry } from './entries.js';
import { placesOf } from './journal.js';
import { freshName, RUN_RECORD, RUN_RECORDED, type FileState } from './layout.js';
import { makeFolder, move, removeFile, removePackage, writeNew } from './package-io.js';
import { isOpen, readPackages, type RefusedName } from './packages.js';
import { setAside, setAsideIn } from './set-aside.js';

/** The package folder a place (a file in one of its folders, or its record file) belongs to. */
function packageOf(place: string): string {
  return basename(place) === RUN_RECORD ? dirname(place) : dirname(dirname(place));
}

/** Moves a journal file to `state` in every package that holds it. */
export async function moveFile(archiveRoot: string, file: JournaledFile, state: FileState): Promise<void> {
  for (const place of placesOf(file)) {
    const folder = join(packageOf(place), state);
    await makeFolder(archiveRoot, folder);
    await move(place, join(folder, basename(place))).catch(ignoreGone);
  }
}

/**
 * Keeps a refused entry as a note in the quarantine of the package `from` was read from; with
 * `retire`, the refused file goes (a refused run record becomes recorded.json: closed, never stored),
 * or, when it was not JSON, moves beside the note as `<name>.bytes` (one rename: kept, never read).
 */
export async function quarantine(archiveRoot: string, refused: RejectedEntry, from: object, retire: boolean): Promise<void> {
  const place = placesOf(from)[0];
  if (place === undefined) return;
  const folder = join(packageOf(place), 'quarantined');
  await makeFolder(archiveRoot, folder);
  const record = basename(place) === RUN_RECORD;
  // A file that is not JSON leaves no value for the note to hold: its bytes are kept beside the note.
  const keep = retire && !record && (refused.entry === null || refused.entry === undefined) ? join(folder, `${basename(place)}${KEPT_BYTES}`) : undefined;
  await writeNew(
    join(folder, freshName('rejected')),
    keep === undefined ? refused : { ...refused, reason: `${refused.reason}; its bytes are kept as ${keep}` },
  );
  if (!retire) return;
  if (record) await move(place, join(dirname(place), RUN_RECORDED)).catch(ignoreGone);
  else if (keep !== undefined) await move(place, keep).catch(ignoreGone);
  else await removeFile(place);
}

/** The ending of a refused file's bytes kept in `quarantined/`: not `.json`, so never read as an entry. */
export const KEPT_BYTES = '.bytes';

/** Removes a listing whose rows were stored or refused. */
export async function dropListing(listing: object): Promise<void> {
  for (const place of placesOf(listing)) await removeFile(place);
}

/** A run record now in the warehouse: its file becomes recorded.json (one rename). */
export async function markRecorded(run: object): Promise<void> {
  for (const place of placesOf(run)) await move(place, join(dirname(place), RUN_RECORDED)).catch(ignoreGone);
}

/** Names the read refused (a link, a FIFO, a name gexwh never writes) are set aside beside themselves, never opened, and kept. */
export async function setAsideRefused(refused: readonly RefusedName[]): Promise<void> {
  await setAside(refused.map(({ path }) => path));
}

/** Removes every closed package with nothing left: no file waiting, no listing, no record to store, no note, nothing set aside. */
export async function dropDonePackages(archiveRoot: string): Promise<void> {
  const { packages } = await readPackages(archiveRoot);
  for (const pkg of packages) {
    if (isOpen(pkg) || !('missing' in pkg.record)) continue;
    if (pkg.files.paid.length + pkg.files.archived.length + pkg.files.quarantined.length + pkg.listings.length > 0) continue;
    // A name set aside is kept for a person to look at: its package stays (status names it).
    if ((await setAsideIn(pkg.folder)).length > 0) continue;
    await removePackage(pkg.folder);
  }
}

function ignoreGone(error: NodeJS.ErrnoException): void {
  if (error.code !== 'ENOENT') throw error;
}
