// The raw archive: `<root>/<exchange>/<symbol>/<session_date>_<file>.csv.gz`. Paths are
// built only from validated parts, so nothing a server sends can point outside the archive. Files are
// written to a temp name in their final folder, fsynced, renamed, and the folder fsynced: after a
// crash a file is either whole under its final name or a stale `.part` that removeStaleTemps() drops.

import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, promises as fs, type Dirent } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { Writable } from 'node:stream';
import { getSystemErrorMap } from 'node:util';
import { UnsafeResponseError } from '../core/errors.js';
import { isIsoDate } from '../time/dates.js';
import { SYMBOL_PATTERN, SYMBOL_RULE } from '../core/names.js';
import { FILE_KINDS, type FileKind } from '../core/file-kinds.js';
import { type Exchange, EXCHANGES } from '../core/pairs.js';

const ARCHIVE_SUFFIX = '.csv.gz';
const TEMP_NAME = /^\..+\.[0-9a-f]{12}\.part$/;

export interface ArchivedFileKey {
  exchange: Exchange;
  symbol: string;
  sessionDate: string;
  file: FileKind;
}

function describe(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

function checkParts(exchange: string, symbol: string, sessionDate: string, file: string): void {
  if (!(EXCHANGES as readonly string[]).includes(exchange)) {
    throw new UnsafeResponseError(`archive: refusing exchange ${describe(exchange)}; allowed: ${EXCHANGES.join(', ')}`);
  }
  if (!SYMBOL_PATTERN.test(symbol)) {
    throw new UnsafeResponseError(`archive: refusing symbol ${describe(symbol)}; allowed: ${SYMBOL_RULE}`);
  }
  if (!isIsoDate(sessionDate)) {
    throw new UnsafeResponseError(`archive: refusing session date ${describe(sessionDate)}; expected YYYY-MM-DD`);
  }
  if (!(FILE_KINDS as readonly string[]).includes(file)) {
    throw new UnsafeResponseError(`archive: refusing file kind ${describe(file)}; allowed: ${FILE_KINDS.join(', ')}`);
  }
}

/** `<root>/<exchange>/<symbol>/<date>_<file>.csv.gz`; UnsafeResponseError for any part that could escape. */
export function archivePath(root: string, exchange: string, symbol: string, sessionDate: string, file: string): string {
  checkParts(exchange, symbol, sessionDate, file);
  const path = join(root, exchange, symbol, `${sessionDate}_${file}${ARCHIVE_SUFFIX}`);
  // Belt and braces: the validated parts cannot escape, and this proves it for the resolved path.
  const inside = relative(resolve(root), resolve(path));
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) {
    throw new UnsafeResponseError(`archive: path ${describe(path)} resolves outside the archive`);
  }
  return path;
}

/**
 * Where a newer version of an archived file waits until its rows are loaded: beside the loaded
 * version, `<date>_<file>.<first 12 hex of its sha256>.csv.gz`, never over it. Rebuild and verify
 * read only the plain name, so until the new version is loaded they see the old one, whole.
 */
export function pendingVersionPath(root: string, exchange: string, symbol: string, sessionDate: string, file: string, sha256: string): string {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new UnsafeResponseError(`archive: refusing sha256 ${describe(sha256)}; expected 64 hex digits`);
  const plain = archivePath(root, exchange, symbol, sessionDate, file);
  return join(dirname(plain), `${sessionDate}_${file}.${sha256.slice(0, 12)}${ARCHIVE_SUFFIX}`);
}

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
  makeFolder(folder);
  return join(folder, `.${basename(finalPath)}.${randomBytes(6).toString('hex')}.part`);
}

/**
 * mkdir -p. Node's recursive mkdir says ENOENT when a parent cannot be created (a read-only or
 * forbidden archive), which hides the cause: then the folders are made one by one, so the real
 * code (EROFS, EACCES) is thrown and the download stage knows the archive is not writable.
 */
function makeFolder(folder: string): void {
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

/**
 * Opens a temp file of the archive for writing (truncating it). Every archive write goes through
 * here, which is why the test hook lives here and nowhere else.
 */
export function createArchiveWriteStream(tempPath: string): Writable {
  const fault = writeFaultFromEnv(process.env.GEXWH_TEST_ARCHIVE_WRITE_ERROR);
  archiveWrites++;
  if (fault !== undefined && archiveWrites > fault.after) return failingWriteStream(fault.code, tempPath);
  return createWriteStream(tempPath, { flags: 'w' });
}

// TEST HOOK, not a setting. A full disk or a read-only archive cannot be made on a CI machine
// without privileges, so the reliability tests set GEXWH_TEST_ARCHIVE_WRITE_ERROR=CODE[:after=N]
// (CODE: ENOSPC, EDQUOT, EROFS, EACCES or EPERM): the first N archive writes of the process succeed,
// every later one fails with a NodeJS.ErrnoException of that code, as the file system would.
const HOOK_CODES = ['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM'] as const;
let archiveWrites = 0;

export function writeFaultFromEnv(value: string | undefined): { code: string; after: number } | undefined {
  if (value === undefined || value === '') return undefined;
  const match = /^([A-Z]+)(?::after=(\d+))?$/.exec(value);
  if (match === null || !(HOOK_CODES as readonly string[]).includes(match[1]!)) {
    throw new Error(`GEXWH_TEST_ARCHIVE_WRITE_ERROR: expected one of ${HOOK_CODES.join(', ')} with an optional :after=N`);
  }
  return { code: match[1]!, after: Number(match[2] ?? 0) };
}

/** A stream that fails on open like the file system does: same code, errno, syscall, message. */
function failingWriteStream(code: string, path: string): Writable {
  const errno = -(osConstants.errno as Record<string, number>)[code]!;
  const description = getSystemErrorMap().get(errno)?.[1] ?? code;
  const syscall = code === 'ENOSPC' || code === 'EDQUOT' ? 'write' : 'open';
  const error: NodeJS.ErrnoException = Object.assign(new Error(`${code}: ${description}, ${syscall} '${path}'`), { code, errno, syscall, path });
  return new Writable({ construct: (callback) => callback(error) });
}

/** Makes a complete temp file the archived file: fsync it, rename it, fsync the folder. */
export async function commitToArchive(tempPath: string, finalPath: string): Promise<void> {
  if (resolve(dirname(tempPath)) !== resolve(dirname(finalPath))) {
    throw new Error(`commitToArchive: temp file ${tempPath} is not in the folder of ${finalPath}`);
  }
  const handle = await fs.open(tempPath, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(tempPath, finalPath);
  await syncFolder(dirname(finalPath));
  const folder = resolve(dirname(finalPath));
  for (const parent of [...parentsToSync]) {
    if (parent !== folder && !folder.startsWith(parent.endsWith(sep) ? parent : `${parent}${sep}`)) continue;
    await syncFolder(parent);
    parentsToSync.delete(parent);
  }
}

/** fsync a folder so a rename survives a power cut; not possible on every platform (Windows). */
export async function syncFolder(folder: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(folder, 'r');
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EBADF') throw error;
  } finally {
    await handle?.close();
  }
}

/**
 * Deletes leftover temp files (`.<name>.<hex>.part`) of an interrupted run, in the archive's
 * exchange/symbol folders. Call it only while holding the sync lock: a running sync's temps look the
 * same. Symbolic links are never followed. Returns the paths removed.
 */
export async function removeStaleTemps(root: string): Promise<string[]> {
  const removed: string[] = [];
  for (const folder of await symbolFolders(root)) {
    for (const entry of await readFolder(folder)) {
      if (entry.isFile() && TEMP_NAME.test(entry.name)) {
        const path = join(folder, entry.name);
        await fs.rm(path, { force: true });
        removed.push(path);
      }
    }
  }
  return removed;
}

async function readFolder(folder: string): Promise<Dirent[]> {
  try {
    return await fs.readdir(folder, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** `<root>/<exchange>/<symbol>` folders of known exchanges (real folders, not links). */
async function symbolFolders(root: string): Promise<string[]> {
  const folders: string[] = [];
  for (const exchange of await readFolder(root)) {
    if (!exchange.isDirectory() || !(EXCHANGES as readonly string[]).includes(exchange.name)) continue;
    for (const symbol of await readFolder(join(root, exchange.name))) {
      if (symbol.isDirectory()) folders.push(join(root, exchange.name, symbol.name));
    }
  }
  return folders;
}

/** The key of an archived file from its path relative to the root, or null if it is not one. */
export function parseArchivePath(relativePath: string): ArchivedFileKey | null {
  const parts = relativePath.split(/[\\/]/);
  if (parts.length !== 3) return null;
  const [exchange, symbol, name] = parts as [string, string, string];
  const match = /^(\d{4}-\d{2}-\d{2})_([a-z_]+)\.csv\.gz$/.exec(name);
  if (match === null) return null;
  const [, sessionDate, file] = match as unknown as [string, string, string];
  try {
    checkParts(exchange, symbol, sessionDate, file);
  } catch {
    return null;
  }
  return { exchange: exchange as Exchange, symbol, sessionDate, file: file as FileKind };
}

/** Every archived file (for rebuild and verify), sorted by path; temp files and strays are skipped. */
export async function listArchivedFiles(root: string): Promise<Array<ArchivedFileKey & { path: string }>> {
  const found: Array<ArchivedFileKey & { path: string }> = [];
  for (const folder of await symbolFolders(root)) {
    for (const entry of await readFolder(folder)) {
      if (!entry.isFile()) continue;
      const path = join(folder, entry.name);
      const key = parseArchivePath(relative(root, path));
      if (key !== null) found.push({ ...key, path });
    }
  }
  return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
