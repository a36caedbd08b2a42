// Reading the journal's load packages (layout.ts) as they are on disk: for each package its run's
// start and record, its paid files by state, its listings, the credits its run wrote down. Nothing
// is trusted yet (entries.ts checks each entry); nothing is followed: a package that is a link, a
// name gexwh never writes, a job file that is a link, a FIFO or too big is named as refused, and the
// rest of the journal is read; a journal folder that is a link out of the archive is not read at all.
import { join } from 'node:path';
import { UsageError } from '../core/errors.js';
import { folderLeavesArchive } from '../core/archive/confine.js';
import { entriesOf, readJson, type JsonRead } from './package-io.js';
import {
  CREDITS_FOLDER,
  FILE_STATES,
  isEntryName,
  isPackageId,
  JOURNAL_FOLDER,
  LISTINGS_FOLDER,
  packagesFolder,
  RUN_RECORD,
  RUN_RECORDED,
  RUN_START,
  type FileState,
} from './layout.js';

/** One file of a package: where it is and what reading it gave. */
export interface PackageEntry {
  name: string;
  path: string;
  read: JsonRead;
}

/** What a run wrote down as spent: credits, link answers lost (from /me), and its counts so far. */
export interface SpentSoFar {
  credits: number;
  linksLost: number;
  counts: Record<string, unknown>;
}

export interface PackageRead {
  id: string;
  folder: string;
  start: JsonRead;
  record: JsonRead;
  /** The run's record is in the warehouse (its record file renamed to recorded.json). */
  recorded: boolean;
  /** Files by state; only waiting, paid and quarantined files are read (the others are names). */
  files: Record<FileState, PackageEntry[]>;
  listings: PackageEntry[];
  spent: SpentSoFar;
}

/** A name in the journal's folders that was not read, and why. */
export interface RefusedName {
  path: string;
  reason: string;
}

/** States whose files are read: the others are terminal and only counted. */
const READ_STATES: ReadonlySet<FileState> = new Set<FileState>(['paid', 'archived', 'quarantined']);

/** A package is open while its run has a start and no record: a run going on, or stopped hard. */
export function isOpen(pkg: PackageRead): boolean {
  return !('missing' in pkg.start) && 'missing' in pkg.record && !pkg.recorded;
}

/**
 * The journal's folders (`_journal`, `_live`) must be the archive's own: one that is a link out of
 * the archive is never read or written through (a usage error naming it, before anything is paid).
 */
export async function refuseFolderLinkOut(archiveRoot: string, folder: string): Promise<void> {
  const reason = await folderLeavesArchive(archiveRoot, folder);
  if (reason === undefined) return;
  throw new UsageError(
    `${reason}; gexwh keeps its journal inside the archive: replace the link with a folder (move its content in if it is yours) and run again`,
    {
      path: join(archiveRoot, folder),
    },
  );
}

/** Every package under `<archive>/_journal/packages`, oldest first, and the names refused on the way. */
export async function readPackages(archiveRoot: string): Promise<{ packages: PackageRead[]; refused: RefusedName[] }> {
  await refuseFolderLinkOut(archiveRoot, JOURNAL_FOLDER);
  const root = packagesFolder(archiveRoot);
  const refused: RefusedName[] = [];
  const packages: PackageRead[] = [];
  for (const entry of await entriesOf(root)) {
    if (entry.name.startsWith('.')) continue; // a package being made or removed
    const path = join(root, entry.name);
    if (!entry.folder || !isPackageId(entry.name)) {
      refused.push({ path, reason: `${path} is ${entry.folder ? 'a folder' : 'a file or link'} gexwh never writes there: it is not read` });
      continue;
    }
    packages.push(await readPackage(entry.name, path, refused));
  }
  return { packages, refused };
}

async function readPackage(id: string, folder: string, refused: RefusedName[]): Promise<PackageRead> {
  const names = new Map((await entriesOf(folder)).map((entry) => [entry.name, entry]));
  const files = {} as Record<FileState, PackageEntry[]>;
  for (const state of FILE_STATES) files[state] = await readEntries(join(folder, state), names.get(state), READ_STATES.has(state), refused);
  const listings = await readEntries(join(folder, LISTINGS_FOLDER), names.get(LISTINGS_FOLDER), true, refused);
  const credits = await readEntries(join(folder, CREDITS_FOLDER), names.get(CREDITS_FOLDER), true, refused);
  return {
    id,
    folder,
    start: await readJson(join(folder, RUN_START)),
    record: await readJson(join(folder, RUN_RECORD)),
    recorded: names.get(RUN_RECORDED)?.file === true,
    files,
    listings,
    spent: spentOf(credits),
  };
}

/** The entries of one of a package's folders; a folder that is a link or a file is refused, not followed. */
async function readEntries(folder: string, seen: { folder: boolean } | undefined, read: boolean, refused: RefusedName[]): Promise<PackageEntry[]> {
  if (seen === undefined) return [];
  if (!seen.folder) {
    refused.push({ path: folder, reason: `${folder} is not a folder gexwh wrote: it is not read` });
    return [];
  }
  const entries: PackageEntry[] = [];
  for (const entry of await entriesOf(folder)) {
    if (entry.name.startsWith('.') || !entry.name.endsWith('.json')) continue; // a temp, or a name set aside
    const path = join(folder, entry.name);
    if (!isEntryName(entry.name)) {
      refused.push({ path, reason: `${path} is not a name gexwh writes: it is not read` });
      continue;
    }
    const got: JsonRead = read ? await readJson(path) : { value: null };
    if ('refused' in got) refused.push({ path, reason: got.refused });
    else entries.push({ name: entry.name, path, read: got });
  }
  return entries;
}

/** Pure: the credits and lost links a run's credit files hold, and the counts the newest one carries. */
export function spentOf(credits: readonly PackageEntry[]): SpentSoFar {
  const spent: SpentSoFar = { credits: 0, linksLost: 0, counts: {} };
  for (const entry of credits) {
    if (!('value' in entry.read) || typeof entry.read.value !== 'object' || entry.read.value === null) continue;
    const value = entry.read.value as { credits?: unknown; lost?: unknown; counts?: unknown };
    spent.credits += countOf(value.credits);
    spent.linksLost += countOf(value.lost);
    if (typeof value.counts === 'object' && value.counts !== null) spent.counts = value.counts as Record<string, unknown>;
  }
  return spent;
}

export function countOf(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;
}
