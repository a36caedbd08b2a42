// Reading a journal file (a load package's files through package-io.ts, a live snapshot, and the
// older layout's pending.json, inflight.json and spent/ records until they are migrated) that anyone
// who can write the archive may have replaced: only a regular file is read, opened without following
// a link (a link out of the archive is never opened, and a link inside it is no journal gexwh wrote),
// without waiting on a FIFO (opened non-blocking, then refused by its type), and only up to a size a
// journal can reach, so no file can hang a run, exhaust its memory or show the bytes of another file.
import { constants, promises as fs } from 'node:fs';
import { fileTypeOf } from '../core/special-file.js';

/** Far above any journal a night's sync writes (a few MB), far below what a string can hold (~512 MB). */
export const JOURNAL_MAX_BYTES = 128 * 1024 * 1024;

const READ_CHUNK = 1024 * 1024;

/** Open flags: read-only, the last name not followed, a FIFO not waited on (0 where the platform has no such flag). */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

export type SafeRead = { text: string } | { missing: true } | { refused: string };

/** The file's text, or that it does not exist, or why it is not read (naming it). */
export async function readJournalFile(path: string, maxBytes: number = JOURNAL_MAX_BYTES): Promise<SafeRead> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(path, OPEN_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { missing: true };
    // ELOOP (Linux, macOS) and EMLINK (FreeBSD): the name is a symbolic link. ENXIO: a socket.
    if (code === 'ELOOP' || code === 'EMLINK') return { refused: `${path} is a symbolic link, not a file gexwh wrote: it is not followed` };
    if (code === 'ENXIO') return { refused: `${path} is not a regular file: it is not read` };
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { refused: `${path} is ${fileTypeOf(stat)}, not a regular file: it is not read` };
    if (stat.size > maxBytes) return { refused: tooBig(path, stat.size, maxBytes) };
    return await readCapped(handle, path, maxBytes, stat.size);
  } finally {
    await handle.close();
  }
}

/**
 * Reads at most `maxBytes` (the file may grow after the size was checked). The first read asks for
 * one byte more than the size seen (up to 1 MB), so a journal file of a few hundred bytes takes one
 * small read; a read that comes back short is the end of a regular file. The buffers are not zeroed:
 * only the bytes read are used.
 */
async function readCapped(handle: fs.FileHandle, path: string, maxBytes: number, sizeSeen: number): Promise<SafeRead> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const want = total === 0 ? sizeSeen + 1 : READ_CHUNK;
    const chunk = Buffer.allocUnsafe(Math.min(want, READ_CHUNK, maxBytes + 1 - total));
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    chunks.push(chunk.subarray(0, bytesRead));
    total += bytesRead;
    if (total > maxBytes) return { refused: tooBig(path, total, maxBytes) };
    if (bytesRead < chunk.length) break;
  }
  return { text: Buffer.concat(chunks, total).toString('utf8') };
}

function tooBig(path: string, size: number, maxBytes: number): string {
  return `${path} holds ${size} bytes, more than a journal can (at most ${maxBytes}): it is not read`;
}
