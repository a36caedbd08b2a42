// The spend record of a run whose record went to the journal: its spend log, kept under
// `<archive>/_journal/spent/<started-at>.json` until the run record is in the warehouse. The journal's
// run entries are claims anyone who can write the archive can edit; the credits a journaled run may
// record are at most what its spend log wrote down as the credits were paid (each fsynced before its
// download started). A claim beyond it is refused with a warning, never stored.
import { promises as fs } from 'node:fs';
import { dirname, join } from 'node:path';
import { JOURNAL_FOLDER } from './journal.js';
import { readJournalFile } from './safe-read.js';
import { syncFolder } from '../core/archive/writes.js';

const SPENT_FOLDER = 'spent';

/** Pure: the file-name form of an ISO instant (no ':', not allowed on Windows). */
function stampOf(instant: string): string {
  return new Date(instant).toISOString().replace(/[-:]/g, '');
}

/** Whether an instant read from a journal can name a file (a real date). */
function isSafeStamp(instant: string): boolean {
  return Number.isFinite(Date.parse(instant));
}

export function spendRecordPath(archiveRoot: string, startedAt: string): string {
  return join(archiveRoot, JOURNAL_FOLDER, SPENT_FOLDER, `${stampOf(startedAt)}.json`);
}

/** Moves a run's spend log to its spend record (one rename, then both folders fsynced). */
export async function keepAsSpendRecord(archiveRoot: string, logPath: string, startedAt: string): Promise<void> {
  const target = spendRecordPath(archiveRoot, startedAt);
  await fs.mkdir(dirname(target), { recursive: true });
  try {
    await fs.rename(logPath, target);
  } catch (error) {
    // A run that paid nothing wrote no log: there is nothing to keep, and a claim of it records 0.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  await syncFolder(dirname(target));
  await syncFolder(dirname(logPath));
}

/** The credits (and links lost) a run's spend record holds; 0 when there is none or it cannot be read (a claim then records nothing). */
export async function recordedSpend(archiveRoot: string, run: { command: string; startedAt: string }): Promise<{ credits: number; linksLost: number }> {
  const none = { credits: 0, linksLost: 0 };
  if (!isSafeStamp(run.startedAt)) return none;
  const read = await readJournalFile(spendRecordPath(archiveRoot, run.startedAt));
  if (!('text' in read)) return none;
  try {
    const log = JSON.parse(read.text) as { run?: { command?: unknown; startedAt?: unknown; creditsSpent?: unknown; linksLost?: unknown } };
    const same = log.run?.command === run.command && typeof log.run.startedAt === 'string' && Date.parse(log.run.startedAt) === Date.parse(run.startedAt);
    return same ? { credits: countOf(log.run?.creditsSpent), linksLost: countOf(log.run?.linksLost) } : none;
  } catch {
    return none;
  }
}

function countOf(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;
}

/** The run's record is in the warehouse: its spend record goes (and the folder, once empty). */
export async function dropSpendRecord(archiveRoot: string, startedAt: string): Promise<void> {
  if (!isSafeStamp(startedAt)) return;
  const path = spendRecordPath(archiveRoot, startedAt);
  await fs.rm(path, { force: true });
  await fs.rmdir(dirname(path)).catch(() => undefined);
}
