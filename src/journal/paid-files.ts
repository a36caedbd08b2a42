// Files written in a package's `paid/` whose bytes were never moved on: a run killed (kill -9, a
// second signal, a crash) between taking a file's credit and archiving its bytes. `status` names
// them ("paid, bytes not archived"); the next run that holds the sync lock settles each once: bytes
// in the archive with the record's sha256 and size (the kill fell between the archive's rename and
// the journal's) → `archived/`, loaded for 0 credits; no such bytes → `failed/` with the reason (the
// link, valid minutes, is gone: the plan buys the file again). A `paid/` record beside a `failed/`
// one of the same name is a move a crash cut short (failed/ is written first): it only goes.
import { join } from 'node:path';
import { hashArchived } from '../core/archive/pin.js';
import { checkFile, type JournaledFile } from './entries.js';
import type { FileState } from './layout.js';
import { makeFolder, move, removeFile, writeNew } from './package-io.js';
import type { PackageEntry, PackageRead } from './packages.js';

/** A paid file whose bytes are not archived, as `status` names it. */
export interface PaidNotArchived {
  /** `<venue> <symbol> <date> <kind>`, or the record's path when it cannot be read. */
  name: string;
  record: string;
}

/** States a paid/ record may already have reached: a copy there means the move was done. */
const MOVED_ON: readonly FileState[] = ['archived', 'loaded', 'failed'];

/** Pure: the paid/ records of `packages` not moved on yet. */
export function paidNotArchived(packages: readonly PackageRead[]): PaidNotArchived[] {
  return packages.flatMap((pkg) => leftIn(pkg).map((entry) => ({ name: nameOf(entry), record: entry.path })));
}

/** `<venue> <symbol> <date> <kind>` of a record, or its path when it does not say. */
function nameOf(entry: PackageEntry): string {
  const value = recordOf(entry);
  const parts = [value.exchange, value.symbol, value.sessionDate, value.file];
  return parts.every((part) => typeof part === 'string') ? parts.join(' ') : entry.path;
}

function recordOf(entry: PackageEntry): Partial<Record<keyof JournaledFile, unknown>> {
  const value = 'value' in entry.read ? entry.read.value : null;
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
}

function leftIn(pkg: PackageRead): PackageEntry[] {
  const moved = new Set(MOVED_ON.flatMap((state) => pkg.files[state].map((entry) => entry.name)));
  return pkg.files.paid.filter((entry) => !moved.has(entry.name));
}

/**
 * Settles the paid/ records of every package but `own` (the running sync's): each moves to
 * `archived/` or `failed/` (one rename, or one new file and one removal). Returns what it found, for
 * the run to tell: how many records moved, the files archived after all, the names of those whose bytes were lost.
 */
export async function settlePaid(
  archiveRoot: string,
  packages: readonly PackageRead[],
  own: string | undefined,
): Promise<{ settled: number; archived: number; lost: string[] }> {
  const found = { settled: 0, archived: 0, lost: [] as string[] };
  for (const pkg of packages.filter((p) => p.folder !== own)) {
    const left = new Set(leftIn(pkg));
    for (const entry of pkg.files.paid) {
      found.settled++;
      const outcome = left.has(entry) ? await settleOne(archiveRoot, pkg.folder, entry) : await removeFile(entry.path); // moved already: the old name goes
      if (outcome === 'archived') found.archived++;
      if (outcome === 'lost') found.lost.push(nameOf(entry));
    }
  }
  return found;
}

async function settleOne(archiveRoot: string, folder: string, entry: PackageEntry): Promise<'archived' | 'lost'> {
  if (await bytesArchived(archiveRoot, entry)) {
    await makeFolder(archiveRoot, join(folder, 'archived'));
    await move(entry.path, join(folder, 'archived', entry.name));
    return 'archived';
  }
  await makeFolder(archiveRoot, join(folder, 'failed'));
  await writeNew(join(folder, 'failed', entry.name), { ...recordOf(entry), reason: LOST, failedAt: new Date().toISOString() });
  await removeFile(entry.path);
  return 'lost';
}

const LOST = 'the run stopped before its bytes were archived; its credit is on the run record, and the next sync buys it again';

/** True when the archive holds the record's bytes (its sha256 and size), read inside the archive only. */
async function bytesArchived(archiveRoot: string, entry: PackageEntry): Promise<boolean> {
  const checked = checkFile('value' in entry.read ? entry.read.value : undefined, archiveRoot);
  if ('reason' in checked) return false;
  const found = await hashArchived(archiveRoot, checked.file.archivePath, { maxBytes: checked.file.bytes });
  return found.kind === 'hashed' && found.sha256 === checked.file.sha256 && found.bytes === checked.file.bytes;
}
