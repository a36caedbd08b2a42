// What a running sync has spent, written down as it is spent: each paid file link (its credits) before
// the download starts and each paid file once it is in the archive, in `<archive>/_journal/inflight.json`.
// A run that ends normally loads its files, writes its run record and removes the log; one that is
// stopped hard (a second Ctrl-C, kill -9, a crash) leaves it, and the next sync, `gexwh load` or
// `status` finds it: the paid files wait in the journal to be loaded for 0 credits, and the run record
// keeps the credits the API counted. The log is rewritten whole on every change, durably (temp, fsync,
// rename, folder fsync): a credit is on disk, even through a power cut, before the download it paid for starts.
import { promises as fs } from 'node:fs';
import { dirname, join } from 'node:path';
import { keepAsSpendRecord, spendRecordPath } from './spend-record.js';
import { z } from 'zod';
import type { RunCounts } from '../warehouse/index.js';
import { JOURNAL_FOLDER, refuseFolderLinkOut, runOf, updateJournal, withFiles, type JournaledFile, type JournaledRun } from './journal.js';
import { journaledFileOf } from './held.js';
import { writeDurably } from './durable-write.js';
import type { VerifiedFile } from '../core/rows.js';
import { readJournalFile } from './safe-read.js';
/** The start of a run, as its record keeps it. */
interface RunStart {
  command: string;
  options: Record<string, unknown>;
  startedAt: Date;
  /** The file credits `/me` said were left when the run started, and when they reset. */
  quotaAtStart?: QuotaSeen;
}

/** What `/me` said of the file credits: left (null: unlimited) and the reset instant. */
export interface QuotaSeen {
  remaining: number | null;
  reset?: string | undefined;
}

const INFLIGHT_NAME = 'inflight.json';

/** Why a run record came from the log: the process ended before it could write one. */
export const STOPPED_HARD = 'the process stopped before the run finished (a second signal, kill -9 or a crash); the credits were recorded as they were spent';

const inflightSchema = z.object({
  version: z.literal(1),
  run: z.object({ command: z.string(), startedAt: z.string(), creditsSpent: z.number().int().nonnegative() }).passthrough(),
  quotaAtStart: z.object({ remaining: z.number().int().nullable(), reset: z.string().optional() }).optional(),
  files: z.array(
    z
      .object({ exchange: z.string(), symbol: z.string(), sessionDate: z.string(), file: z.string(), sha256: z.string(), archivePath: z.string() })
      .passthrough(),
  ),
});

/** What the log of a run holds: its record so far and the paid files it archived. */
export interface Inflight {
  version: 1;
  run: JournaledRun;
  files: JournaledFile[];
  quotaAtStart?: QuotaSeen;
}

export function inflightPath(archiveRoot: string): string {
  return join(archiveRoot, JOURNAL_FOLDER, INFLIGHT_NAME);
}

export interface SpendLog {
  /** A file link was paid; resolves once that is written down. */
  credit(credits: number): Promise<void>;
  /** A paid file is in the archive; resolves once that is written down. */
  archived(file: VerifiedFile): Promise<void>;
  /** Counts of the run record besides credits (requests, planned files), written with the next change. */
  note(counts: Partial<RunCounts>): void;
  readonly creditsSpent: number;
  /** The run record as written down so far (outcome interrupted: what a hard stop leaves). */
  counts(): RunCounts;
  /** The paid files written down so far, in the order they arrived. */
  files(): VerifiedFile[];
  /** Writes the empty log before any link is paid: an archive that cannot take it fails here, for free. */
  ready(): Promise<void>;
  /**
   * The run is recorded and its files are loaded or journaled: the log goes. When its run record went
   * to the journal (`journaled`), the log is kept as the run's spend record, what the journal's claim
   * of credits is checked against when it is loaded.
   */
  close(options?: { journaled?: boolean }): Promise<void>;
}

/** Starts the log of one run (the caller holds the sync lock: one log at a time). */
export function openSpendLog(archiveRoot: string, start: RunStart & { runId?: number }, requestsSpent: () => number = () => 0): SpendLog {
  const path = inflightPath(archiveRoot);
  const files: VerifiedFile[] = [];
  let counts: RunCounts = { outcome: 'interrupted', creditsSpent: 0, error: STOPPED_HARD };
  let wanted = 0;
  let written = 0;
  let writing: Promise<void> | undefined;

  const snapshot = (): Inflight => ({
    version: 1,
    run: runOf(start, { ...counts, requestsSpent: requestsSpent() }),
    files: files.map(journaledFileOf),
    ...(start.quotaAtStart !== undefined ? { quotaAtStart: start.quotaAtStart } : {}),
  });
  // Writes coalesce: a change waits for a write that started after it, so each caller's change is
  // on disk when its promise resolves, and concurrent downloads share writes.
  const flush = async (): Promise<void> => {
    const mine = ++wanted;
    while (written < mine) {
      if (writing === undefined) {
        const upTo = wanted;
        writing = writeWhole(path, snapshot()).then(() => void (written = upTo));
        writing.finally(() => (writing = undefined)).catch(() => undefined);
      }
      await writing;
    }
  };
  return {
    credit(credits) {
      counts = { ...counts, creditsSpent: (counts.creditsSpent ?? 0) + credits };
      return flush();
    },
    archived(file) {
      files.push(file);
      counts = { ...counts, bytesDownloaded: (counts.bytesDownloaded ?? 0) + file.bytes };
      return flush();
    },
    note(more) {
      counts = { ...counts, ...more };
    },
    get creditsSpent() {
      return counts.creditsSpent ?? 0;
    },
    counts: () => ({ ...counts, requestsSpent: requestsSpent() }),
    ready: () => flush(),
    files: () => [...files],
    async close({ journaled = false } = {}) {
      await writing?.catch(() => undefined);
      if (journaled) {
        await keepAsSpendRecord(archiveRoot, path, start.startedAt.toISOString());
        return;
      }
      await fs.rm(path, { force: true });
      // The journal folder goes with the log when nothing else waits in it, as a sync left it before.
      await fs.rmdir(dirname(path)).catch(() => undefined);
    },
  };
}

function writeWhole(path: string, value: Inflight): Promise<void> {
  return writeDurably(path, `${JSON.stringify(value)}\n`);
}

/** A log left by a run that stopped hard, as status shows it; undefined when there is none. */
export async function readInflight(archiveRoot: string): Promise<Inflight | undefined> {
  const read = await inspectInflight(archiveRoot);
  return 'log' in read ? read.log : undefined;
}

/** The log a stopped run left, or none, or why the file there cannot be used (naming it). */
export async function inspectInflight(archiveRoot: string): Promise<{ log: Inflight } | { none: true } | { problem: string }> {
  await refuseFolderLinkOut(archiveRoot, JOURNAL_FOLDER);
  const path = inflightPath(archiveRoot);
  const read = await readJournalFile(path);
  if ('missing' in read) return { none: true };
  if ('refused' in read) return { problem: read.refused };
  let parsed;
  try {
    parsed = inflightSchema.safeParse(JSON.parse(read.text));
  } catch {
    return { problem: `${path} is not valid JSON` };
  }
  return parsed.success ? { log: parsed.data as unknown as Inflight } : { problem: `${path} is not the log of a run of this version` };
}

/**
 * Moves what a run that stopped hard left (its paid files, its run record) into the journal, where
 * the next load picks them up; the caller holds the sync lock, so no run is writing the log. A log
 * that cannot be read is set aside with a note; its files are still found by the archive check.
 */
export async function adoptStoppedRun(archiveRoot: string, quotaNow?: QuotaSeen): Promise<{ files: number; credits: number; note?: string }> {
  const path = inflightPath(archiveRoot);
  const read = await inspectInflight(archiveRoot);
  if ('none' in read) return { files: 0, credits: 0 };
  if ('problem' in read) {
    // Renaming moves the name itself (a link or a FIFO is never opened); the content stays for a person to see.
    const aside = `${path}.unreadable-${Date.now()}`;
    await fs.rename(path, aside);
    return {
      files: 0,
      credits: 0,
      note: `the log of a stopped run could not be read and was set aside as ${aside}; its archived files are still used for 0 credits (${read.problem})`,
    };
  }
  const left = reconciled(read.log, quotaNow);
  await updateJournal(archiveRoot, (journal) => ({ ...withFiles(journal, left.files), runs: [...journal.runs, left.run] }));
  // The record keeps what was reconciled from /me (links lost), which the log itself does not hold.
  await writeDurably(spendRecordPath(archiveRoot, left.run.startedAt), `${JSON.stringify(left)}\n`);
  await fs.rm(path, { force: true });
  return { files: left.files.length, credits: left.run.creditsSpent };
}

/**
 * Pure: the stopped run with the credits the API charged beyond what its log wrote down (a link the
 * API answered as the process died, never read), from `/me` then and now within the same quota
 * window, recorded as charged, not received (links lost). Unchanged when `/me` cannot tell.
 */
export function reconciled(log: Inflight, quotaNow: QuotaSeen | undefined): Inflight {
  const then = log.quotaAtStart;
  if (then?.remaining == null || quotaNow?.remaining == null || then.reset === undefined || then.reset !== quotaNow.reset) return log;
  const unreceived = then.remaining - quotaNow.remaining - log.run.creditsSpent - (log.run.linksLost ?? 0);
  if (unreceived <= 0) return log;
  const note = `${unreceived} credit(s) charged by the API, not received (link answers lost as the process stopped; from /me)`;
  return { ...log, run: { ...log.run, linksLost: (log.run.linksLost ?? 0) + unreceived, error: log.run.error === null ? note : `${log.run.error}; ${note}` } };
}
