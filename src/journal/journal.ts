// The archive's journal as one view: what paid, archived files wait to load, the manifest listings
// and run records a run left for the warehouse, and the entries refused. It is read from the load
// packages (layout.ts, packages.ts), closed ones only (an open package is the spend log of a run
// going on or stopped hard: on-record.ts shows it, stopped-runs.ts closes it), and from a journal of
// the older layout not migrated yet (legacy.ts), so `status` reads an archive any version left. Every
// entry is checked on its own (entries.ts): a bad one is refused, the rest used. The archive files
// themselves stay the proof of payment: a file archived with the manifest's sha256 is never paid
// again, journal or not. Each entry read from a package keeps where it is (`placesOf`), so a load
// moves exactly those files to their next state.
import { join } from 'node:path';
import { fileVersionKey } from '../core/pairs.js';
import {
  checkFile,
  emptyJournal,
  issueOf,
  journaledListing,
  journaledRun,
  rejectedEntry,
  type Journal,
  type JournalRead,
  type RejectedEntry,
} from './entries.js';
import { isOpen, readPackages, type PackageEntry, type PackageRead, type RefusedName } from './packages.js';
export { refuseFolderLinkOut } from './packages.js';
import { JOURNAL_FOLDER, LEGACY_JOURNAL, packagesFolder, RUN_RECORD } from './layout.js';
import { readLegacyJournal } from './legacy-read.js';

export * from './entries.js';
export { JOURNAL_FOLDER } from './layout.js';

/** Where the journal's packages are (what messages name). */
export function journalPath(archiveRoot: string): string {
  return packagesFolder(archiveRoot);
}

/** The journal file of the older layout, migrated into a package by the first run that may write. */
export function legacyJournalPath(archiveRoot: string): string {
  return join(archiveRoot, JOURNAL_FOLDER, LEGACY_JOURNAL);
}

/** Where an entry read from the packages is: its file (a run: its package's record file). */
const places = new WeakMap<object, string[]>();

/** The files an entry of this view was read from (several when packages hold the same file version). */
export function placesOf(entry: object): readonly string[] {
  return places.get(entry) ?? [];
}

/** A read of the journal, with the names it refused and the packages it read (for the writer that settles them). */
export interface JournalView extends JournalRead {
  packages: PackageRead[];
  refusedNames: RefusedName[];
}

/**
 * Reads the journal, checking every entry on its own: a bad entry is refused (a warning, and the
 * next load moves it to its package's quarantine) and the rest is used. A file that is not read at
 * all (a link, a FIFO, too big) is named in `refused`; no content of it can make every later run fail.
 */
export async function inspectJournal(archiveRoot: string): Promise<JournalView> {
  return journalViewOf(archiveRoot, await readPackages(archiveRoot));
}

/** The view of packages already read (and of a journal of the older layout, read now). */
export async function journalViewOf(archiveRoot: string, read: { packages: PackageRead[]; refused: RefusedName[] }): Promise<JournalView> {
  const { packages, refused: refusedNames } = read;
  const view: JournalView = { ...viewOf(packages, archiveRoot, new Date().toISOString()), packages, refusedNames };
  for (const name of refusedNames) view.warnings.push(`the journal's ${name.reason}; it is set aside by the next load`);
  if (refusedNames[0] !== undefined) view.refused = refusedNames[0].reason;
  const legacy = await readLegacyJournal(archiveRoot);
  if (legacy === undefined) return view;
  mergeInto(view, legacy);
  return view;
}

export async function readJournal(archiveRoot: string): Promise<Journal> {
  return (await inspectJournal(archiveRoot)).journal;
}

type Reject = (kind: RejectedEntry['kind'], where: string, entry: unknown, reason: string) => void;

/** Pure but for the clock: the closed packages' entries, each checked; one entry per file version. */
export function viewOf(packages: readonly PackageRead[], archiveRoot: string, at: string): JournalRead {
  const journal = emptyJournal();
  const warnings: string[] = [];
  const byVersion = new Map<string, object>();
  const reject: Reject = (kind, where, entry, reason) => {
    const refused = { kind, reason, rejectedAt: at, entry };
    places.set(refused, [where]);
    journal.rejected.push(refused);
    warnings.push(`journal ${kind} entry ${where} (${preview(entry)}) refused: ${reason}; moved to its package's quarantine, never used`);
  };
  for (const pkg of packages.filter((p) => !isOpen(p))) {
    addFiles(pkg, archiveRoot, journal, byVersion, reject);
    addListings(pkg, journal, reject);
    addRecord(pkg, journal, reject);
    for (const entry of pkg.files.quarantined) {
      const known = rejectedEntry.safeParse('value' in entry.read ? entry.read.value : undefined);
      if (known.success) journal.rejected.push(known.data);
    }
  }
  return { journal, warnings };
}

function addFiles(pkg: PackageRead, archiveRoot: string, journal: Journal, byVersion: Map<string, object>, reject: Reject): void {
  for (const job of pkg.files.archived) {
    const value = valueOf(job);
    const checked = 'problem' in value ? { reason: value.problem } : checkFile(value.value, archiveRoot);
    if ('reason' in checked) reject('file', job.path, 'value' in value ? value.value : null, checked.reason);
    else addFile(journal, byVersion, checked.file, job.path);
  }
}

function addListings(pkg: PackageRead, journal: Journal, reject: Reject): void {
  for (const entry of pkg.listings) {
    const value = valueOf(entry);
    const parsed = journaledListing.safeParse('value' in value ? value.value : undefined);
    if (parsed.success) remember(journal.listings, parsed.data, entry.path);
    else reject('listing', entry.path, 'value' in value ? value.value : null, 'problem' in value ? value.problem : issueOf(parsed.error));
  }
}

function addFile(journal: Journal, byVersion: Map<string, object>, file: Journal['files'][number], path: string): void {
  const key = fileVersionKey(file);
  const earlier = byVersion.get(key);
  if (earlier !== undefined) {
    places.set(earlier, [...placesOf(earlier), path]);
    return;
  }
  byVersion.set(key, file);
  remember(journal.files, file, path);
}

function addRecord(pkg: PackageRead, journal: Journal, reject: Reject): void {
  if ('missing' in pkg.record) return;
  const where = join(pkg.folder, RUN_RECORD);
  const value = 'value' in pkg.record ? pkg.record.value : null;
  const parsed = journaledRun.safeParse(value);
  if (parsed.success) remember(journal.runs, parsed.data, where);
  else reject('run', where, value, 'problem' in pkg.record ? pkg.record.problem : issueOf(parsed.error));
}

function remember<T extends object>(list: T[], entry: T, path: string): void {
  places.set(entry, [path]);
  list.push(entry);
}

function valueOf(entry: PackageEntry): { value: unknown } | { problem: string } {
  if ('value' in entry.read) return { value: entry.read.value };
  if ('problem' in entry.read) return { problem: entry.read.problem };
  return { problem: `${entry.path} could not be read` };
}

/** Adds what a journal of the older layout holds (read only: a run that may write migrates it). */
function mergeInto(view: JournalView, legacy: JournalRead): void {
  const known = new Set(view.journal.files.map(fileVersionKey));
  view.journal.files.push(...legacy.journal.files.filter((file) => !known.has(fileVersionKey(file))));
  view.journal.listings.push(...legacy.journal.listings);
  view.journal.runs.push(...legacy.journal.runs);
  view.journal.rejected.push(...legacy.journal.rejected);
  view.warnings.push(...legacy.warnings);
  if (legacy.unreadable !== undefined) view.unreadable = legacy.unreadable;
  if (legacy.refused !== undefined) view.refused = legacy.refused;
}

/** A short, escaped picture of an entry for a warning (JSON escapes control characters). */
function preview(entry: unknown): string {
  const text = JSON.stringify(entry) ?? String(entry);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

export { isOpen };
