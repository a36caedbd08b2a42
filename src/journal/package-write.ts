// A closed package written at once: the entries a run hands the journal when its own package cannot
// hold them (manifests listed on a copy, archived copies it reused, a run record with no spend of its
// own), and a journal of the older layout migrated. It is made under a hidden name, file by file,
// then renamed into place: a crash leaves the whole package or none of it, and the same id written
// twice is written once.
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { CREDITS_FOLDER, creditName, freshName, jobName, LISTINGS_FOLDER, newPackageId, packagesFolder, RUN_RECORD, RUN_START } from './layout.js';
import { makeFolder, removeFolder, writeNew } from './package-io.js';
import { syncFolder } from '../core/archive/writes.js';
import type { JournaledFile, JournaledListing, JournaledRun, RejectedEntry } from './entries.js';

export interface PackageContent {
  /** The run's start (an open package: a run stopped hard, adopted by the next run). */
  start?: Record<string, unknown>;
  record?: JournaledRun;
  files?: readonly JournaledFile[];
  listings?: readonly JournaledListing[];
  rejected?: readonly RejectedEntry[];
  /** What the run wrote down as spent: one credit file. */
  spent?: { credits: number; lost: number; counts?: Record<string, unknown> };
}

/** Writes `content` as the package `id`; false when a package of that id is there already. */
export async function writePackage(archiveRoot: string, id: string, content: PackageContent): Promise<boolean> {
  const root = packagesFolder(archiveRoot);
  const final = join(root, id);
  if (await exists(final)) return false;
  const hidden = join(root, `.new-${id}`);
  await removeFolder(hidden); // left by a crash while it was made
  await makeFolder(archiveRoot, hidden);
  if (content.start !== undefined) await writeNew(join(hidden, RUN_START), content.start);
  if (content.record !== undefined) await writeNew(join(hidden, RUN_RECORD), content.record);
  await writeAll(
    archiveRoot,
    join(hidden, 'archived'),
    (content.files ?? []).map((file) => [jobName(file), file]),
  );
  await writeAll(
    archiveRoot,
    join(hidden, LISTINGS_FOLDER),
    (content.listings ?? []).map((listing) => [freshName('listing'), listing]),
  );
  await writeAll(
    archiveRoot,
    join(hidden, 'quarantined'),
    (content.rejected ?? []).map((entry) => [freshName('rejected'), entry]),
  );
  if (content.spent !== undefined) await writeAll(archiveRoot, join(hidden, CREDITS_FOLDER), [[creditName(0), content.spent]]);
  try {
    await fs.rename(hidden, final);
  } catch (error) {
    // Another process wrote the same package first (a migration both ran): theirs is kept.
    if ((error as NodeJS.ErrnoException).code !== 'ENOTEMPTY' && (error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    await removeFolder(hidden);
    return false;
  }
  await syncFolder(root);
  return true;
}

async function writeAll(archiveRoot: string, folder: string, entries: [string, unknown][]): Promise<void> {
  if (entries.length === 0) return;
  await makeFolder(archiveRoot, folder);
  const written = new Set<string>();
  for (const [name, value] of entries) {
    if (written.has(name)) continue; // one job per file version
    written.add(name);
    await writeNew(join(folder, name), value);
  }
}

async function exists(path: string): Promise<boolean> {
  return fs.lstat(path).then(
    () => true,
    (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? false : Promise.reject(error)),
  );
}

/**
 * A whole journal's entries as closed packages: one for its files, listings and refused entries, one
 * per run record (a record is checked against its own package's credits, so it brings `spent`).
 */
export async function writeJournalPackages(
  archiveRoot: string,
  journal: { files: readonly JournaledFile[]; listings: readonly JournaledListing[]; runs: readonly JournaledRun[]; rejected?: readonly RejectedEntry[] },
  idOf: (content: PackageContent) => string = () => newPackageId('held', new Date()),
  spentOf: (run: JournaledRun) => Promise<PackageContent['spent']> = () => Promise.resolve(undefined),
): Promise<void> {
  const entries = { files: journal.files, listings: journal.listings, rejected: journal.rejected ?? [] };
  if (entries.files.length + entries.listings.length + entries.rejected.length > 0) await writePackage(archiveRoot, idOf(entries), entries);
  for (const record of journal.runs) {
    const spent = await spentOf(record);
    const content = { record, ...(spent !== undefined ? { spent } : {}) };
    await writePackage(archiveRoot, idOf(content), content);
  }
}
