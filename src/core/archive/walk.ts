// The one walk of the raw archive, for rebuild, verify, the plan's state beside a writer and the
// cleanup of stale temps: the three levels of the layout, links never followed, a missing root an
// empty archive. Every entry lands in one of three lists: daily files of the layout, `.part` temps of
// a write, and strays (anything else, named so a rebuild can say what it skipped).
import { promises as fs, type Dirent } from 'node:fs';
import { join, relative } from 'node:path';
import { EXCHANGES } from '../pairs.js';
import { parseArchivePath, type ArchivedFileKey } from './layout.js';

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
}

const PART_SUFFIX = '.part';

export async function scanArchive(root: string): Promise<ArchiveScan> {
  const scan: ArchiveScan = { files: [], temps: [], strays: [] };
  for (const exchange of await readFolder(root)) {
    const exchangePath = join(root, exchange.name);
    if (!exchange.isDirectory() || !(EXCHANGES as readonly string[]).includes(exchange.name)) {
      scan.strays.push(exchangePath);
      continue;
    }
    for (const symbol of await readFolder(exchangePath)) {
      const symbolPath = join(exchangePath, symbol.name);
      if (!symbol.isDirectory()) scan.strays.push(symbolPath);
      else await scanSymbolFolder(root, symbolPath, scan);
    }
  }
  scan.files.sort((a, b) => compare(a.path, b.path));
  scan.temps.sort(compare);
  scan.strays.sort(compare);
  return scan;
}

/** Every archived file (for rebuild and verify), sorted by path; temp files and strays are skipped. */
export async function listArchivedFiles(root: string): Promise<ArchivedFile[]> {
  return (await scanArchive(root)).files;
}

async function scanSymbolFolder(root: string, folder: string, scan: ArchiveScan): Promise<void> {
  for (const entry of await readFolder(folder)) {
    const path = join(folder, entry.name);
    if (entry.isFile() && entry.name.endsWith(PART_SUFFIX)) {
      scan.temps.push(path); // a sync's temp, not a file yet
      continue;
    }
    const key = entry.isFile() ? parseArchivePath(relative(root, path)) : null;
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
