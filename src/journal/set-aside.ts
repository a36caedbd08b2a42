// Names in the journal's packages that the read refused (a link, a FIFO, a device, a file over the
// size cap, a name gexwh never writes) are set aside beside themselves as `.unreadable-<name>`,
// never opened, and kept: whoever planted or broke them can be looked at, and `status` names them
// until a person removes them. A package holding one is never removed with the packages left with
// nothing to do. Nothing here follows a link or opens a set-aside name.
import { basename, dirname, join } from 'node:path';
import { promises as fs } from 'node:fs';
import { syncFolder } from '../core/archive/writes.js';
import { packagesFolder } from './layout.js';
import { entriesOf } from './package-io.js';

export const SET_ASIDE_PREFIX = '.unreadable-';

/** Renames each refused name beside itself (the name moves; what it points to is never opened). */
export async function setAside(paths: readonly string[]): Promise<void> {
  for (const path of paths) {
    await fs.rename(path, join(dirname(path), `${SET_ASIDE_PREFIX}${basename(path)}`)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    await syncFolder(dirname(path));
  }
}

/** Every set-aside name in the journal's packages: beside the packages, in a package, in a package's folders. */
export async function setAsideNames(archiveRoot: string): Promise<string[]> {
  const root = packagesFolder(archiveRoot);
  const found: string[] = [];
  for (const entry of await entriesOf(root)) {
    if (entry.name.startsWith(SET_ASIDE_PREFIX)) found.push(join(root, entry.name));
    else if (entry.folder && !entry.name.startsWith('.')) found.push(...(await setAsideIn(join(root, entry.name))));
  }
  return found;
}

/** The set-aside names in one package (its top level and its folders, one level down, links never followed). */
export async function setAsideIn(folder: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await entriesOf(folder)) {
    const path = join(folder, entry.name);
    if (entry.name.startsWith(SET_ASIDE_PREFIX)) found.push(path);
    else if (entry.folder) for (const inner of await entriesOf(path)) if (inner.name.startsWith(SET_ASIDE_PREFIX)) found.push(join(path, inner.name));
  }
  return found;
}
