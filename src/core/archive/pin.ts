// The bytes hashed are the bytes loaded. An archived file that did not just come off the wire is
// opened once, inside the archive (confine.ts), checked to be the file the confined path names, and
// hashed through that open descriptor; the loader then reads that same open file. On Linux it reads
// /proc/self/fd/N, which reaches the open file whatever is renamed over its name later; elsewhere it
// reads a private copy written while hashing, in a fresh folder of the system's temp dir that only
// this user can enter. Either way, nothing can be swapped in between the hash and the load.
import { createHash } from 'node:crypto';
import { constants, existsSync, promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { errorMessage } from '../errors.js';
import { isInside, leavesArchive, locateInArchive, realRoot, type Located } from './confine.js';

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

export type PinOutcome = { kind: 'pinned'; file: PinnedFile } | Exclude<Located, { kind: 'found' }> | { kind: 'unreadable'; path: string; reason: string };

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
export async function pinArchived(root: string, relativePath: string, mode: PinMode = defaultPinMode(), copyBase = tmpdir()): Promise<PinOutcome> {
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
    const problem = await checkOpened(handle, located.real, base);
    if (problem !== undefined) {
      await handle.close();
      return { kind: 'refused', path: located.path, reason: problem };
    }
    return { kind: 'pinned', file: mode === 'descriptor' ? await pinDescriptor(handle, located.path) : await pinCopy(handle, located.path, copyBase) };
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
  if (code === 'ENXIO') return { kind: 'refused', path, reason: `${path} is not a regular file` };
  return { kind: 'unreadable', path, reason: errorMessage(error) };
}

/**
 * The open file must be a regular file inside the archive, the one its confined name names now: a
 * folder above it swapped for a link between realpath and open would otherwise go unseen.
 */
async function checkOpened(handle: fs.FileHandle, real: string, base: string): Promise<string | undefined> {
  const opened = await handle.stat();
  if (!opened.isFile()) return `${real} is not a regular file`;
  if (hasProcFd()) {
    const actual = await fs.readlink(`/proc/self/fd/${handle.fd}`);
    if (!isInside(base, actual)) return leavesArchive(real, actual, base);
  }
  const now = await fs.realpath(real).catch(() => undefined);
  const there = now === undefined ? undefined : await fs.lstat(now).catch(() => undefined);
  if (now === undefined || !isInside(base, now) || there?.ino !== opened.ino || there.dev !== opened.dev) {
    return `${real} changed while it was being opened: not read`;
  }
  return undefined;
}

async function pinDescriptor(handle: fs.FileHandle, path: string): Promise<PinnedFile> {
  const digest = await readAll(handle, () => undefined);
  return { path, readPath: `/proc/self/fd/${handle.fd}`, ...digest, release: once(() => handle.close()) };
}

async function pinCopy(handle: fs.FileHandle, path: string, copyBase: string): Promise<PinnedFile> {
  const folder = await fs.mkdtemp(join(copyBase, 'gexwh-load-'));
  const readPath = join(folder, basename(path));
  const release = once(() => fs.rm(folder, { recursive: true, force: true }));
  try {
    const copy = await fs.open(readPath, 'wx', 0o600);
    try {
      const digest = await readAll(handle, (chunk) => copy.write(chunk));
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

/** Streams the whole file through sha256, handing each chunk to `sink` (the private copy) on the way. */
async function readAll(handle: fs.FileHandle, sink: (chunk: Buffer) => unknown): Promise<{ sha256: string; bytes: number }> {
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
): Promise<Exclude<PinOutcome, { kind: 'pinned' }> | { kind: 'hashed'; path: string; sha256: string; bytes: number }> {
  // Hashing alone needs no copy: the descriptor is read and closed.
  const pinned = await pinArchived(root, relativePath, 'descriptor');
  if (pinned.kind !== 'pinned') return pinned;
  await pinned.file.release();
  return { kind: 'hashed', path: pinned.file.path, sha256: pinned.file.sha256, bytes: pinned.file.bytes };
}
