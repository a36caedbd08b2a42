// A warehouse another process holds: waiting for it (polling DuckDB's lock up to --wait-lock, a stop
// signal ends the wait), the pid DuckDB names as its holder, and the exit-5 message of a run that
// found it held (what waits in the journal, and that the next sync or load loads it for 0 credits).
import { setTimeout as sleep } from 'node:timers/promises';
import { LockError } from '../core/errors.js';
import { openWriter, parseLockHolderPid, type Warehouse } from '../warehouse/index.js';
import { journalPath } from './journal.js';

export interface HeldDetails {
  dbPath: string;
  archiveRoot: string;
  pid: number | undefined;
  waitedSeconds: number;
  /** Files in the journal, waiting to load. */
  filesWaiting: number;
  /** Of those, the files this run paid for (a sync; undefined for `load`). */
  filesPaid?: number;
}

/** Pure: the exit-5 message of a run whose load found the warehouse held. */
export function heldMessage(details: HeldDetails): string {
  const holder = details.pid === undefined ? 'another process' : `process ${details.pid}`;
  const waited = details.waitedSeconds > 0 ? ` (waited ${details.waitedSeconds} s)` : '';
  const paid = details.filesPaid === undefined ? '' : `${details.filesPaid} file(s) paid by this run are verified and archived; `;
  const files =
    details.filesWaiting > 0
      ? `${paid}${details.filesWaiting} file(s) wait in ${journalPath(details.archiveRoot)}; ` +
        `the next gexwh sync, or gexwh load (no network), loads them for 0 credits`
      : 'no paid file is waiting; nothing was lost';
  return `the warehouse ${details.dbPath} is held by ${holder}${waited}: ${files}`;
}

export function heldError(details: HeldDetails, cause?: unknown): LockError {
  return new LockError(
    heldMessage(details),
    {
      db: details.dbPath,
      ...(details.pid !== undefined ? { pid: details.pid } : {}),
      files_waiting: details.filesWaiting,
      ...(details.filesPaid !== undefined ? { files_paid: details.filesPaid } : {}),
      journal: journalPath(details.archiveRoot),
      hint: 'close the other program (a notebook, DBeaver, the duckdb CLI), or give gexwh sync a longer --wait-lock',
    },
    cause === undefined ? undefined : { cause },
  );
}

/** The pid DuckDB names in a lock error, if any. */
export function holderPidOf(error: unknown): number | undefined {
  if (error instanceof LockError && typeof error.hints.pid === 'number') return error.hints.pid;
  const cause = error instanceof Error ? error.cause : undefined;
  return cause instanceof Error ? parseLockHolderPid(cause.message) : undefined;
}

/**
 * Opens the warehouse for writing (sandboxed, the archive readable), retrying while another process
 * holds it, up to `waitSeconds`. A stop signal ends the wait at once (the caller records the run and exits).
 */
export async function openWaiting(
  { dbPath, archiveRoot }: { dbPath: string; archiveRoot: string },
  waitSeconds: number,
  signal?: AbortSignal,
  pollMs = 250,
): Promise<Warehouse> {
  const deadline = Date.now() + Math.max(0, waitSeconds) * 1000;
  for (;;) {
    try {
      return await openWriter(dbPath, archiveRoot);
    } catch (error) {
      if (!(error instanceof LockError) || Date.now() >= deadline || signal?.aborted) throw error;
      await sleep(Math.min(pollMs, Math.max(1, deadline - Date.now()))).catch(() => undefined);
    }
  }
}
