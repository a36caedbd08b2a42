// After a load, each journal entry it decided moves to its next state, one rename (or one small
// write) each: a loaded file to `loaded/`, one the loader refused to `failed/`, a copy that was not
// the paid bytes to `quarantined/`; an entry refused as a claim leaves a note with its reason in its
// package's `quarantined/` (kept, never used); a stored listing goes; a stored run record becomes
// `recorded.json`. A package with nothing left to load, store or show then goes as a whole. A crash
// between the warehouse's commit and a rename changes nothing: the next load finds the file loaded
// and moves it then.
import { promises as fs } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { JournaledFile, RejectedEntry } from './entries.js';
import { placesOf } from './journal.js';
import { freshName, RUN_RECORD, RUN_RECORDED, type FileState } from './layout.js';
import { makeFolder, move, removeFile, removePackage, writeNew } from './package-io.js';
import { isOpen, readPackages, type RefusedName } from './packages.js';
import { syncFolder } from '../core/archive/writes.js';

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
 * `retire`, the refused file goes (a refused run record becomes recorded.json: closed, never stored).
 */
export async function quarantine(archiveRoot: string, refused: RejectedEntry, from: object, retire: boolean): Promise<void> {
  const place = placesOf(from)[0];
  if (place === undefined) return;
  const folder = join(packageOf(place), 'quarantined');
  await makeFolder(archiveRoot, folder);
  await writeNew(join(folder, freshName('rejected')), refused);
  if (!retire) return;
  if (basename(place) === RUN_RECORD) await move(place, join(dirname(place), RUN_RECORDED)).catch(ignoreGone);
  else await removeFile(place);
}

/** Removes a listing whose rows were stored or refused. */
export async function dropListing(listing: object): Promise<void> {
  for (const place of placesOf(listing)) await removeFile(place);
}

/** A run record now in the warehouse: its file becomes recorded.json (one rename). */
export async function markRecorded(run: object): Promise<void> {
  for (const place of placesOf(run)) await move(place, join(dirname(place), RUN_RECORDED)).catch(ignoreGone);
}

/** Names the read refused (a link, a FIFO, a name gexwh never writes) are set aside beside themselves, never opened. */
export async function setAsideRefused(refused: readonly RefusedName[]): Promise<void> {
  for (const { path } of refused) {
    await fs.rename(path, join(dirname(path), `.unreadable-${basename(path)}`)).catch(ignoreGone);
    await syncFolder(dirname(path));
  }
}

/** Removes every closed package with nothing left: no file waiting, no listing, no record to store, no note. */
export async function dropDonePackages(archiveRoot: string): Promise<void> {
  const { packages } = await readPackages(archiveRoot);
  for (const pkg of packages) {
    if (isOpen(pkg) || !('missing' in pkg.record)) continue;
    if (pkg.files.paid.length + pkg.files.archived.length + pkg.files.quarantined.length + pkg.listings.length > 0) continue;
    await removePackage(pkg.folder);
  }
}

function ignoreGone(error: NodeJS.ErrnoException): void {
  if (error.code !== 'ENOENT') throw error;
}
