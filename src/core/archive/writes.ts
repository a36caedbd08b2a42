// Writes to the raw archive (its layout is src/core/archive/layout.ts). Files are written to a temp
// name in their final folder, fsynced, renamed, and the folder fsynced: after a crash a file is either
// whole under its final name or a stale `.part` that removeStaleTemps() drops.

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, promises as fs } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { TEMP_NAME } from './layout.js';
import { scanArchive } from './walk.js';
import { syncFolder } from './fsync.js';
import { commitFile } from './write-inside.js';

export { syncFolder };

/** Moves a loaded version from its pending name to the plain one (replacing the older version), durably. */
export async function promoteVersion(pendingPath: string, plainPath: string): Promise<void> {
  if (resolve(dirname(pendingPath)) !== resolve(dirname(plainPath))) {
    throw new Error(`promoteVersion: ${pendingPath} is not in the folder of ${plainPath}`);
  }
  await fs.rename(pendingPath, plainPath);
  await syncFolder(dirname(plainPath));
}

/**
 * A fresh temp name next to `finalPath` (same folder, so the rename is atomic), hidden and ending
 * in `.part`. Creates the folder, so the caller can open the temp file for writing right away.
 */
export function tempPathFor(finalPath: string): string {
  const folder = dirname(finalPath);
  ensureFolder(folder);
  return join(folder, `.${basename(finalPath)}.${randomBytes(6).toString('hex')}.part`);
}

/**
 * mkdir -p (the new folders' parents fsynced by the next commit to the archive). Node's recursive mkdir says ENOENT when a parent cannot be created (a read-only or
 * forbidden archive), which hides the cause: then the folders are made one by one, so the real
 * code (EROFS, EACCES) is thrown and the download stage knows the archive is not writable.
 */
export function ensureFolder(folder: string): void {
  if (existsSync(folder)) return;
  try {
    const first = mkdirSync(folder, { recursive: true });
    if (first !== undefined) rememberNewFolders(first, folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    makeFolderStepByStep(folder);
    rememberNewFolders(folder, folder);
  }
}

/**
 * A new folder is an entry in its parent, lost in a power cut unless the parent is fsynced too:
 * the parents of the folders made from `first` down to `last` are synced by the next commit.
 */
const parentsToSync = new Set<string>();

function rememberNewFolders(first: string, last: string): void {
  for (let folder = resolve(last); ; folder = dirname(folder)) {
    parentsToSync.add(dirname(folder));
    if (folder === resolve(first) || dirname(folder) === folder) break;
  }
}

function makeFolderStepByStep(folder: string): void {
  const parent = dirname(folder);
  if (parent !== folder && !existsSync(parent)) makeFolderStepByStep(parent);
  try {
    mkdirSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** Makes a complete temp file the archived file: fsync it, rename it, fsync the folder (write-inside.ts's commit). */
export async function commitToArchive(tempPath: string, finalPath: string): Promise<void> {
  if (resolve(dirname(tempPath)) !== resolve(dirname(finalPath))) {
    throw new Error(`commitToArchive: temp file ${tempPath} is not in the folder of ${finalPath}`);
  }
  await commitFile(tempPath, finalPath);
  const folder = resolve(dirname(finalPath));
  for (const parent of [...parentsToSync]) {
    if (parent !== folder && !folder.startsWith(parent.endsWith(sep) ? parent : `${parent}${sep}`)) continue;
    await syncFolder(parent);
    parentsToSync.delete(parent);
  }
}

/**
 * Deletes leftover temp files (`.<name>.<hex>.part`) of an interrupted run, in the archive's
 * exchange/symbol folders. Call it only while holding the sync lock: a running sync's temps look the
 * same. Symbolic links are never followed. Returns the paths removed.
 */
export async function removeStaleTemps(root: string): Promise<string[]> {
  const removed: string[] = [];
  for (const path of (await scanArchive(root)).temps) {
    if (!TEMP_NAME.test(basename(path))) continue;
    await fs.rm(path, { force: true });
    removed.push(path);
  }
  return removed;
}
