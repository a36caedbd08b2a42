// The bytes hashed are the bytes loaded. An archived file that did not just come off the wire is
// opened once, inside the archive (confine.ts), checked to be the file the confined path names, and
// hashed through that open descriptor; the loader then reads that same open file. On Linux it reads
// /proc/self/fd/N, which reaches the open file whatever is renamed over its name later; elsewhere it
// reads a private copy written while hashing, in a fresh folder of the system's temp dir that only
// this user can enter. Either way, nothing can be swapped in between the hash and the load.
// A file larger than the caller's recorded size (else than ARCHIVED_MAX_BYTES) is refused on its
// fstat size before a byte is read or copied: a sparse file planted at the name costs no disk, yet
// would take an hour per terabyte to hash (and, copied, fill the temp folder).
import { createHash } from 'node:crypto';
import { constants, existsSync, promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { errorMessage } from '../errors.js';
import { isInside, leavesArchive, locateInArchive, realRoot, type Located } from './confine.js';
import { fileTypeOf } from '../special-file.js';

export type PinMode = 'descriptor' | 'copy';

export interface PinnedFile {
  /** Where the tool looked: `<root>/<relative>`. */
  path: string;
  /** What the loader reads: the open file itself, or its private copy. */
  readPath: string;
  sha256: string;
  bytes: number;
  /** Closes the descriptor or removes the copy. Idempotent. */
  release(): Promise<void>;
}

/** A file larger than it may be: refused on its size, before a byte of it is read. */
export interface Oversized {
  kind: 'oversized';
  path: string;
  /** Its size when it was opened. */
  bytes: number;
  /** The most it may hold: the size recorded for it, else ARCHIVED_MAX_BYTES. */
  maxBytes: number;
  /** True when maxBytes is the size recorded for the file (a ledger, a manifest, a journal record). */
  recorded: boolean;
  reason: string;
}

export type PinOutcome =
  | { kind: 'pinned'; file: PinnedFile }
  | Exclude<Located, { kind: 'found' }>
  | { kind: 'unreadable'; path: string; reason: string }
  | Oversized;

/**
 * The most an archived file whose size nothing recorded may hold before it is read: the download's
 * own cap (api/download.ts), so no file gexwh wrote is larger. A sparse file of a terabyte costs no
 * disk yet hours to hash; its size alone refuses it.
 */
export const ARCHIVED_MAX_BYTES = 4 * 1024 ** 3;

/** What the caller knows of the file's size. */
export interface PinLimits {
  /** The largest size the caller would accept (the bytes a ledger, manifest or journal records); undefined: unknown. */
  maxBytes?: number | undefined;
}

/** /proc/self/fd where the platform has it; a private copy elsewhere. */
export function defaultPinMode(): PinMode {
  return hasProcFd() ? 'descriptor' : 'copy';
}

function hasProcFd(): boolean {
  return process.platform === 'linux' && existsSync('/proc/self/fd');
}

const CHUNK = 1 << 20;

/**
 * Opens, checks and hashes `<root>/<relativePath>`; the caller releases what it pinned. A copy is
 * written in a fresh folder under `copyBase` (default: the system's temp dir).
 */
export async function pinArchived(
  root: string,
  relativePath: string,
  mode: PinMode = defaultPinMode(),
  copyBase = tmpdir(),
  limits: PinLimits = {},
): Promise<PinOutcome> {
  const located = await locateInArchive(root, relativePath);
  if (located.kind !== 'found') return located;
  const base = (await realRoot(root)) ?? root;
  let handle: fs.FileHandle;
  try {
    // O_NOFOLLOW: the name realpath returned must not have become a link since. O_NONBLOCK: a FIFO
    // planted at the name would block open() in a libuv thread until a writer came (verify, rebuild and
    // load hung for good, deaf to SIGTERM); it is refused by its type below. A regular file ignores it.
    handle = await fs.open(located.real, constants.O_RDONLY | constants.O_NOFOLLOW | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    return openFailure(located.path, error);
  }
  try {
    const opened = await checkOpened(handle, located.real, base);
    if ('problem' in opened || 'notAFile' in opened) {
      await handle.close();
      // Not a file (a folder, a FIFO, a device) is unreadable, not a way out of the archive.
      return 'problem' in opened
        ? { kind: 'refused', path: located.path, reason: opened.problem }
        : { kind: 'unreadable', path: located.path, reason: opened.notAFile };
    }
    // Judged on fstat's size before a byte is read (or copied): a larger file cannot be the version wanted.
    const limit = limitOf(limits);
    if (opened.size > limit.maxBytes) {
      await handle.close();
      return oversized(located.path, opened.size, limit);
    }
    const file =
      mode === 'descriptor' ? await pinDescriptor(handle, located.path, limit.maxBytes) : await pinCopy(handle, located.path, copyBase, limit.maxBytes);
    return { kind: 'pinned', file };
  } catch (error) {
    await handle.close().catch(() => undefined);
    return { kind: 'unreadable', path: located.path, reason: errorMessage(error) };
  }
}

function openFailure(path: string, error: unknown): PinOutcome {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return { kind: 'missing', path };
  if (code === 'ELOOP') return { kind: 'refused', path, reason: `${path} became a symbolic link while it was opened: not followed` };
  // A socket cannot be opened as a file.
  if (code === 'ENXIO') return { kind: 'unreadable', path, reason: `${path} is a socket, not a regular file: not read` };
  return { kind: 'unreadable', path, reason: errorMessage(error) };
}

/**
 * The open file must be a regular file inside the archive, the one its confined name names now: a
 * folder above it swapped for a link between realpath and open would otherwise go unseen.
 */
async function checkOpened(handle: fs.FileHandle, real: string, base: string): Promise<{ problem: string } | { notAFile: string } | { size: number }> {
  const opened = await handle.stat();
  if (!opened.isFile()) return { notAFile: `${real} is ${fileTypeOf(opened)}, not a regular file: not read` };
  if (hasProcFd()) {
    const actual = await fs.readlink(`/proc/self/fd/${handle.fd}`);
    if (!isInside(base, actual)) return { problem: leavesArchive(real, actual, base) };
  }
  const now = await fs.realpath(real).catch(() => undefined);
  const there = now === undefined ? undefined : await fs.lstat(now).catch(() => undefined);
  if (now === undefined || !isInside(base, now) || there?.ino !== opened.ino || there.dev !== opened.dev) {
    return { problem: `${real} changed while it was being opened: not read` };
  }
  return { size: opened.size };
}

function limitOf(limits: PinLimits): { maxBytes: number; recorded: boolean } {
  return limits.maxBytes === undefined ? { maxBytes: ARCHIVED_MAX_BYTES, recorded: false } : { maxBytes: limits.maxBytes, recorded: true };
}

function oversized(path: string, bytes: number, limit: { maxBytes: number; recorded: boolean }): Oversized {
  const most = limit.recorded ? `the ${limit.maxBytes} bytes recorded for it` : `the ${limit.maxBytes} bytes any file gexwh downloads may hold`;
  return { kind: 'oversized', path, bytes, ...limit, reason: `${path} holds ${bytes} bytes, more than ${most}: not read` };
}

async function pinDescriptor(handle: fs.FileHandle, path: string, maxBytes: number): Promise<PinnedFile> {
  const digest = await readAll(handle, maxBytes, () => undefined);
  return { path, readPath: `/proc/self/fd/${handle.fd}`, ...digest, release: once(() => handle.close()) };
}

async function pinCopy(handle: fs.FileHandle, path: string, copyBase: string, maxBytes: number): Promise<PinnedFile> {
  const folder = await fs.mkdtemp(join(copyBase, 'gexwh-load-'));
  const readPath = join(folder, basename(path));
  const release = once(() => fs.rm(folder, { recursive: true, force: true }));
  try {
    const copy = await fs.open(readPath, 'wx', 0o600);
    try {
      const digest = await readAll(handle, maxBytes, (chunk) => copy.write(chunk));
      return { path, readPath, ...digest, release };
    } finally {
      await copy.close();
    }
  } catch (error) {
    await release();
    throw error;
  } finally {
    await handle.close();
  }
}

/**
 * Streams the whole file through sha256, handing each chunk to `sink` (the private copy) on the way.
 * A file that grows past `maxBytes` while it is read (its size was judged when it was opened) is not read on.
 */
async function readAll(handle: fs.FileHandle, maxBytes: number, sink: (chunk: Buffer) => unknown): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(CHUNK);
  let bytes = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, CHUNK, bytes);
    if (bytesRead === 0) break;
    const chunk = buffer.subarray(0, bytesRead);
    hash.update(chunk);
    await sink(chunk);
    bytes += bytesRead;
    if (bytes > maxBytes) throw new Error(`it grew past ${maxBytes} bytes while it was read: not read on`);
  }
  return { sha256: hash.digest('hex'), bytes };
}

function once(action: () => Promise<unknown>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= action().then(() => undefined));
}

/** The sha256 and size of an archived file read inside the archive (links out refused), then let go. */
export async function hashArchived(
  root: string,
  relativePath: string,
  limits: PinLimits = {},
): Promise<Exclude<PinOutcome, { kind: 'pinned' }> | { kind: 'hashed'; path: string; sha256: string; bytes: number }> {
  // Hashing alone needs no copy: the descriptor is read and closed.
  const pinned = await pinArchived(root, relativePath, 'descriptor', undefined, limits);
  if (pinned.kind !== 'pinned') return pinned;
  await pinned.file.release();
  return { kind: 'hashed', path: pinned.file.path, sha256: pinned.file.sha256, bytes: pinned.file.bytes };
}
