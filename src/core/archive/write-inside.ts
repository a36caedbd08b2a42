// The one way gexwh puts a file under one of its roots (the archive, its quarantine and journal, an
// export folder). The folder is walked from the root part by part: a part that is a link is followed
// only when it resolves inside the root, and a link out is refused before anything is created; the
// bytes go to a new temp file beside the final name (created exclusively, never through a link),
// which is fsynced, then renamed over the final name (or hard-linked to it, when the name must be
// new), and the folder fsynced. A link planted at the final name is replaced, never written through.
import { randomBytes } from 'node:crypto';
import { constants, promises as fs, type Stats } from 'node:fs';
import { basename, dirname, isAbsolute, join, normalize, sep } from 'node:path';
import { OutsideRootError } from '../errors.js';
import { syncFolder } from './fsync.js';
import { isInside } from './confine.js';

/** The file-system calls the helper makes, in one place, so a test can watch them. */
export interface WriteIo {
  /** Opens a new file for writing: fails if anything (a link too) has the name. */
  createNew(path: string): Promise<fs.FileHandle>;
  /** Opens an existing file to fsync it, never through a link. */
  openForSync(path: string): Promise<fs.FileHandle>;
  fsync(handle: fs.FileHandle, path: string): Promise<void>;
  syncFolder(folder: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  link(from: string, to: string): Promise<void>;
  remove(path: string): Promise<void>;
  lstat(path: string): Promise<Stats | undefined>;
  realpath(path: string): Promise<string>;
  mkdir(path: string): Promise<void>;
}

const NEW_FILE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
const SYNC_FILE = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);

export const nodeWriteIo: WriteIo = {
  createNew: (path) => fs.open(path, NEW_FILE, 0o644),
  openForSync: (path) => fs.open(path, SYNC_FILE),
  fsync: (handle) => handle.sync(),
  syncFolder,
  rename: (from, to) => fs.rename(from, to),
  link: (from, to) => fs.link(from, to),
  remove: (path) => fs.rm(path, { force: true }),
  lstat: (path) =>
    fs.lstat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    }),
  realpath: (path) => fs.realpath(path),
  mkdir: (path) => fs.mkdir(path).catch((error: NodeJS.ErrnoException) => (error.code === 'EEXIST' ? undefined : Promise.reject(error))),
};

export interface WriteOptions {
  /** The final name must be new: an existing entry (a link included) is an error, never replaced. Default false. */
  exclusive?: boolean;
  io?: WriteIo;
}

/**
 * `<root>/<relativeFolder>` made (each new folder's parent fsynced) and returned as a real path under
 * the root's real path: every part that is a link must resolve inside the root, else OutsideRootError
 * before anything is made. The root itself is the user's choice and is made when missing.
 */
export async function folderInside(root: string, relativeFolder: string, io: WriteIo = nodeWriteIo): Promise<string> {
  const parts = partsOf(relativeFolder);
  await makeRoot(root, io);
  const base = await io.realpath(root);
  let current = base;
  const made: string[] = [];
  for (const part of parts) {
    const next = join(current, part);
    const entry = await io.lstat(next);
    if (entry === undefined) {
      await io.mkdir(next);
      made.push(next);
    } else if (entry.isSymbolicLink()) {
      const real = await io.realpath(next);
      if (!isInside(base, real)) throw linkOut(join(root, relativeFolder), next, real, base);
      current = await folderOf(real, io);
      continue;
    } else if (!entry.isDirectory()) throw new OutsideRootError(`${next} is not a folder: cannot write under it`, { path: next });
    current = next;
  }
  for (const folder of new Set(made.map((m) => dirname(m)))) await io.syncFolder(folder);
  return current;
}

/** Writes `data` to `<root>/<relative>` whole (temp, fsync, rename, folder fsync); returns the final path. */
export async function writeFileInside(root: string, relative: string, data: string | Uint8Array, options: WriteOptions = {}): Promise<string> {
  const io = options.io ?? nodeWriteIo;
  const folder = await folderInside(root, dirname(normalize(relative)), io);
  const final = join(folder, basename(relative));
  await writeFileAt(final, data, { ...options, io });
  return final;
}

/**
 * Writes `data` whole at `final`, in a folder the caller has already checked (the journal's, refused
 * when it is a link out of the archive): a new temp file beside it (created exclusively, never through
 * a link), fsynced, renamed over the name (or linked to a name that must be new), the folder fsynced.
 * After a crash or a power cut the file is the old one or the new one, never half.
 */
export async function writeFileAt(final: string, data: string | Uint8Array, options: WriteOptions = {}): Promise<void> {
  const io = options.io ?? nodeWriteIo;
  const temp = tempBeside(final);
  const handle = await io.createNew(temp);
  try {
    await handle.writeFile(data);
    await io.fsync(handle, temp);
  } catch (error) {
    await handle.close();
    await io.remove(temp);
    throw error;
  }
  await handle.close();
  await commit(temp, final, options.exclusive === true, io);
}

/**
 * Puts a finished file (written elsewhere on the same file system, e.g. by DuckDB into a staging
 * folder) at `<root>/<relative>`: fsynced, renamed into its folder, the folder fsynced.
 */
export async function placeFileInside(root: string, file: string, relative: string, options: WriteOptions = {}): Promise<string> {
  const io = options.io ?? nodeWriteIo;
  const handle = await io.openForSync(file);
  try {
    await io.fsync(handle, file);
  } finally {
    await handle.close();
  }
  const folder = await folderInside(root, dirname(normalize(relative)), io);
  const final = join(folder, basename(relative));
  await commit(file, final, options.exclusive === true, io);
  return final;
}

/**
 * Makes a finished temp file beside `final` the file at `final`: fsync it (opened without following
 * a link), rename it over the name (or link it to a name that must be new), fsync the folder. For
 * callers whose folder is already checked (the sync's download into the archive).
 */
export async function commitFile(temp: string, final: string, options: WriteOptions = {}): Promise<void> {
  const io = options.io ?? nodeWriteIo;
  const handle = await io.openForSync(temp);
  try {
    await io.fsync(handle, temp);
  } finally {
    await handle.close();
  }
  await commit(temp, final, options.exclusive === true, io);
}

/** A fresh hidden temp name beside `final`, ending in `.part` (what the archive's walk knows as a temp). */
export function tempBeside(final: string): string {
  return join(dirname(final), `.${basename(final)}.${randomBytes(6).toString('hex')}.part`);
}

async function commit(temp: string, final: string, exclusive: boolean, io: WriteIo): Promise<void> {
  try {
    if (exclusive) {
      // link() fails on any existing entry and never follows one: the name is new or nothing happens.
      await io.link(temp, final);
      await io.remove(temp);
    } else await io.rename(temp, final);
  } catch (error) {
    await io.remove(temp);
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new OutsideRootError(`${final} exists already (a link or a file put there): not replaced`, { path: final }, { cause: error });
    }
    throw error;
  }
  await io.syncFolder(dirname(final));
}

function partsOf(relativeFolder: string): string[] {
  if (isAbsolute(relativeFolder)) throw new Error(`folderInside: ${relativeFolder} is not relative to the root`);
  const parts = normalize(relativeFolder)
    .split(sep)
    .filter((part) => part !== '' && part !== '.');
  if (parts.includes('..')) throw new Error(`folderInside: ${relativeFolder} climbs out of the root`);
  return parts;
}

async function makeRoot(root: string, io: WriteIo): Promise<void> {
  if ((await io.lstat(root)) !== undefined) return;
  await fs.mkdir(root, { recursive: true });
  await io.syncFolder(dirname(root));
}

async function folderOf(real: string, io: WriteIo): Promise<string> {
  const entry = await io.lstat(real);
  if (entry === undefined || !entry.isDirectory()) throw new OutsideRootError(`${real} is not a folder: cannot write under it`, { path: real });
  return real;
}

function linkOut(wanted: string, link: string, real: string, base: string): OutsideRootError {
  return new OutsideRootError(
    `cannot write under ${wanted}: ${link} is a symbolic link to ${real}, outside ${base}: not followed (gexwh never writes through a link out of its folder); remove the link or choose another folder`,
    { path: link, target: real, root: base },
  );
}
