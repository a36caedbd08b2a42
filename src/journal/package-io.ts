// The journal's few file operations, each durable and each O(1): a new small file (written through
// the archive's one write path, core/archive/write-inside.ts: temp created exclusively and never
// through a link, fsynced, linked to a name that must be new, folder fsynced), a rename from one
// state's folder to another's (both folders fsynced after), and a removal (folder fsynced). Folders
// are made with folderInside, so a part that is a link out of the archive is refused before anything
// is written. Reads go through safe-read.ts: regular files only, no link followed, a size cap.
import { promises as fs } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { folderInside, writeFileAt } from '../core/archive/write-inside.js';
import { syncFolder } from '../core/archive/writes.js';
import { readFolder } from '../core/archive/walk.js';
import { errorMessage } from '../core/errors.js';
import { readJournalFile } from './safe-read.js';

/** Makes `folder` (under the archive root) and returns it; a link out of the archive is refused. */
export async function makeFolder(archiveRoot: string, folder: string): Promise<string> {
  await folderInside(archiveRoot, relative(archiveRoot, folder));
  return folder;
}

/** Writes a new file durably; its name must be new (an existing entry, a link included, is an error). */
export async function writeNew(path: string, value: unknown): Promise<void> {
  await writeFileAt(path, `${JSON.stringify(value)}\n`, { exclusive: true });
}

/** Writes a small file durably, replacing what has its name (a listing whose rows were partly stored). */
export async function writeOver(path: string, value: unknown): Promise<void> {
  await writeFileAt(path, `${JSON.stringify(value)}\n`);
}

/** Renames `from` to `to` (the name moves; a link is never opened), then fsyncs both folders. */
export async function move(from: string, to: string): Promise<void> {
  await fs.rename(from, to);
  await syncFolder(dirname(to));
  if (dirname(from) !== dirname(to)) await syncFolder(dirname(from));
}

/** Removes a file (gone already is fine), then fsyncs its folder. */
export async function removeFile(path: string): Promise<void> {
  await fs.rm(path, { force: true });
  await syncFolder(dirname(path));
}

/**
 * Removes a whole folder: first renamed to a hidden name beside it (one atomic step, so a crash never
 * leaves half a package that reads as a package), then deleted.
 */
export async function removeFolder(folder: string): Promise<void> {
  const hidden = join(dirname(folder), `.gone-${basename(folder)}`);
  try {
    await fs.rename(folder, hidden);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  await syncFolder(dirname(folder));
  await fs.rm(hidden, { recursive: true, force: true });
}

/** Removes a package; the journal's folders go with it when nothing else is in them, as a sync left them before. */
export async function removePackage(folder: string): Promise<void> {
  await removeFolder(folder);
  const packages = dirname(folder);
  if (
    await fs.rmdir(packages).then(
      () => true,
      () => false,
    )
  )
    await fs.rmdir(dirname(packages)).catch(() => undefined);
}

/** The entries of a folder, sorted by name, with their kind as lstat sees it (a link is a link). */
export async function entriesOf(folder: string): Promise<{ name: string; folder: boolean; file: boolean }[]> {
  const entries = await readFolder(folder);
  return entries
    .map((entry) => ({ name: entry.name, folder: entry.isDirectory(), file: entry.isFile() }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** `refused`: not read at all (a link, a FIFO, too big); `problem`: read, but not JSON. */
export type JsonRead = { value: unknown } | { missing: true } | { refused: string } | { problem: string };

/** A journal file's JSON, or that it is absent, or why it is not used (naming it). */
export async function readJson(path: string): Promise<JsonRead> {
  const read = await readJournalFile(path);
  if (!('text' in read)) return read;
  try {
    return { value: JSON.parse(read.text) as unknown };
  } catch (error) {
    // The parser quotes the text it choked on: escaped, so no byte of the file reaches a terminal raw.
    return { problem: `${path} is not valid JSON (${JSON.stringify(errorMessage(error)).slice(1, -1)})` };
  }
}
