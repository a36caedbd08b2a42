// The one walk of the raw archive, for rebuild, verify, the plan's state beside a writer and the
// cleanup of stale temps: the three levels of the layout, a missing root an empty archive. A link is
// followed only while it stays inside the archive (the rule of confine.ts); one that leads out is
// named in `refused` and never opened. Every other entry lands in one of three lists: daily files of
// the layout, `.part` temps of a write, and strays (anything else, named so a rebuild can say what
// it skipped). The tool's own folders (`_journal`, `_live`, `_quarantine`) are not strays.
import { promises as fs, type Dirent } from 'node:fs';
import { join, relative } from 'node:path';
import { EXCHANGES } from '../pairs.js';
import { parseArchivePath, RESERVED_FOLDERS, type ArchivedFileKey } from './layout.js';
import { isInside, leavesArchive, realRoot } from './confine.js';

export interface ArchivedFile extends ArchivedFileKey {
  path: string;
}

export interface ArchiveScan {
  /** Files of the archive layout, sorted by path. */
  files: ArchivedFile[];
  /** `.part` files in the symbol folders: writes in progress or interrupted, sorted. */
  temps: string[];
  /** Entries that are not archived daily files (not followed, not read), sorted. */
  strays: string[];
  /** Links that lead out of the archive (or nowhere): never followed, sorted by path. */
  refused: { path: string; reason: string }[];
}

/** What an entry is, a link judged by where it leads. */
type EntryKind = 'folder' | 'file' | 'other' | { refused: string };

const PART_SUFFIX = '.part';

export async function scanArchive(root: string): Promise<ArchiveScan> {
  const scan: ArchiveScan = { files: [], temps: [], strays: [], refused: [] };
  const base = await realRoot(root);
  if (base === undefined) return scan;
  const kindOf = (path: string, entry: Dirent) => entryKind(base, path, entry);
  for (const exchange of await readFolder(root)) {
    const exchangePath = join(root, exchange.name);
    if ((RESERVED_FOLDERS as readonly string[]).includes(exchange.name)) continue;
    const kind = await kindOf(exchangePath, exchange);
    if (typeof kind === 'object') scan.refused.push({ path: exchangePath, reason: kind.refused });
    else if (kind !== 'folder' || !(EXCHANGES as readonly string[]).includes(exchange.name)) scan.strays.push(exchangePath);
    else await scanExchangeFolder(root, exchangePath, scan, kindOf);
  }
  scan.files.sort((a, b) => compare(a.path, b.path));
  scan.temps.sort(compare);
  scan.strays.sort(compare);
  scan.refused.sort((a, b) => compare(a.path, b.path));
  return scan;
}

type KindOf = (path: string, entry: Dirent) => Promise<EntryKind>;

async function scanExchangeFolder(root: string, exchangePath: string, scan: ArchiveScan, kindOf: KindOf): Promise<void> {
  for (const symbol of await readFolder(exchangePath)) {
    const symbolPath = join(exchangePath, symbol.name);
    const kind = await kindOf(symbolPath, symbol);
    if (typeof kind === 'object') scan.refused.push({ path: symbolPath, reason: kind.refused });
    else if (kind !== 'folder') scan.strays.push(symbolPath);
    else await scanSymbolFolder(root, symbolPath, scan, kindOf);
  }
}

/** A plain entry by its type; a link by its target, refused when that is outside the archive or missing. */
async function entryKind(base: string, path: string, entry: Dirent): Promise<EntryKind> {
  if (!entry.isSymbolicLink()) return entry.isDirectory() ? 'folder' : entry.isFile() ? 'file' : 'other';
  let real: string;
  try {
    real = await fs.realpath(path);
  } catch (error) {
    return { refused: `${path} is a symbolic link that leads nowhere (${(error as NodeJS.ErrnoException).code ?? 'error'}): not followed` };
  }
  if (!isInside(base, real)) return { refused: leavesArchive(path, real, base) };
  const target = await fs.stat(real);
  return target.isDirectory() ? 'folder' : target.isFile() ? 'file' : 'other';
}

/** Every archived file (for rebuild and verify), sorted by path; temp files and strays are skipped. */
export async function listArchivedFiles(root: string): Promise<ArchivedFile[]> {
  return (await scanArchive(root)).files;
}

async function scanSymbolFolder(root: string, folder: string, scan: ArchiveScan, kindOf: KindOf): Promise<void> {
  for (const entry of await readFolder(folder)) {
    const path = join(folder, entry.name);
    if (entry.isFile() && entry.name.endsWith(PART_SUFFIX)) {
      scan.temps.push(path); // a sync's temp, not a file yet (a link is never one: it is never removed)
      continue;
    }
    const kind = await kindOf(path, entry);
    if (typeof kind === 'object') {
      scan.refused.push({ path, reason: kind.refused });
      continue;
    }
    const key = kind === 'file' ? parseArchivePath(relative(root, path)) : null;
    if (key === null) scan.strays.push(path);
    else scan.files.push({ ...key, path });
  }
}

/** The entries of a folder; none when it does not exist. */
export async function readFolder(folder: string): Promise<Dirent[]> {
  try {
    return await fs.readdir(folder, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
