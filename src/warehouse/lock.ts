// The sync lock file `<db>.lock`: keeps two syncs apart and names the holder.
// DuckDB's own file lock is the last line of defence; this one gives a clear message, waits if
// asked, and takes over locks whose process is gone.
import { randomBytes } from 'node:crypto';
import { promises as fs, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LockError } from '../core/errors.js';

export interface LockInfo {
  pid: number;
  started_at: string;
  host: string;
}

export interface SyncLock {
  readonly path: string;
  readonly info: LockInfo;
  /** Removes the lock file if it is still ours. Idempotent. */
  release(): Promise<void>;
}

export interface AcquireOptions {
  /** Poll until the lock is free, up to this many seconds (default 0: fail at once). */
  waitSeconds?: number;
  pollMs?: number;
}

export function lockPathFor(dbPath: string): string {
  return `${resolve(dbPath)}.lock`;
}

/** Whether a pid on this host is alive; EPERM means it exists but belongs to someone else. */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A lock held by a dead pid of this host is stale, and so is one whose pid now belongs to a process
 * that started after the lock was written (the pid was reused). One from another host cannot be checked.
 */
export function isStale(info: LockInfo | undefined, thisHost: string = hostname()): boolean {
  if (!info) return true;
  if (info.host !== thisHost) return false;
  if (!isProcessAlive(info.pid)) return true;
  const started = processStartMs(info.pid);
  const locked = Date.parse(info.started_at);
  // Slack: clock ticks and boot time are coarse; only a clearly later start proves reuse.
  return started !== undefined && Number.isFinite(locked) && started > locked + 5_000;
}

/** Linux only: when a process started (epoch ms), from /proc; undefined when it cannot tell. */
export function processStartMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime, clock ticks since boot) counts from after the ")" closing the command name.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    const bootLine = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    if (!bootLine || !Number.isFinite(ticks)) return undefined;
    const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ: 100 on every mainstream Linux build
    return Number(bootLine[1]) * 1000 + (ticks / CLOCK_TICKS_PER_SECOND) * 1000;
  } catch {
    return undefined;
  }
}

export function parseLockInfo(text: string): LockInfo | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return undefined;
    const { pid, started_at, host } = value as Record<string, unknown>;
    if (typeof pid !== 'number' || typeof started_at !== 'string' || typeof host !== 'string') return undefined;
    return { pid, started_at, host };
  } catch {
    return undefined;
  }
}

export async function acquireSyncLock(dbPath: string, options: AcquireOptions = {}): Promise<SyncLock> {
  const path = lockPathFor(dbPath);
  const deadline = Date.now() + Math.max(0, options.waitSeconds ?? 0) * 1000;
  await fs.mkdir(dirname(path), { recursive: true });
  for (;;) {
    const info: LockInfo = { pid: process.pid, started_at: new Date().toISOString(), host: hostname() };
    if (await tryCreate(path, info)) return makeLock(path, info);
    const holder = await readHolder(path);
    if (holder.exists && isStale(holder.info)) {
      await removeIfUnchanged(path, holder.text);
      continue;
    }
    if (Date.now() >= deadline) throw heldError(path, holder.info);
    await sleep(Math.min(options.pollMs ?? 250, Math.max(1, deadline - Date.now())));
  }
}

/**
 * Writes the content to a private temp file, then hard-links it to the lock path: the link is
 * atomic and fails if the lock exists, so no reader ever sees a half-written lock.
 */
async function tryCreate(path: string, info: LockInfo): Promise<boolean> {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await fs.writeFile(temp, `${JSON.stringify(info)}\n`, { flag: 'wx' });
  try {
    await fs.link(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await fs.rm(temp, { force: true });
  }
}

interface Holder {
  exists: boolean;
  text: string;
  info: LockInfo | undefined;
}

async function readHolder(path: string): Promise<Holder> {
  try {
    const text = await fs.readFile(path, 'utf8');
    return { exists: true, text, info: parseLockInfo(text) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { exists: false, text: '', info: undefined };
    throw error;
  }
}

/** Removes a stale lock only if it still holds what we judged stale (narrows the takeover race). */
async function removeIfUnchanged(path: string, staleText: string): Promise<void> {
  const now = await readHolder(path);
  if (now.exists && now.text === staleText) await fs.rm(path, { force: true });
}

function heldError(path: string, info: LockInfo | undefined): LockError {
  if (!info) return new LockError(`another sync holds the lock ${path}`, { lock: path });
  return new LockError(`another sync (pid ${info.pid} on ${info.host}, since ${info.started_at}) holds the lock ${path}`, {
    lock: path,
    pid: info.pid,
    host: info.host,
    started_at: info.started_at,
  });
}

function makeLock(path: string, info: LockInfo): SyncLock {
  const mine = `${JSON.stringify(info)}\n`;
  let released = false;
  return {
    path,
    info,
    async release() {
      if (released) return;
      released = true;
      await removeIfUnchanged(path, mine);
    },
  };
}
