// The archive's journal `<archive>/_journal/pending.json`: what a sync paid for, verified and archived
// but could not load because another process held the warehouse, with the manifest rows it listed and
// its run record. The next sync or `gexwh load` reads it without the network and loads it for 0
// credits. It is small (a night's files) and rewritten whole: temp file, fsync, rename, fsync folder,
// so a crash leaves the old journal or the new one, never half of one. Only the holder of the sync
// lock writes it. The archive files themselves stay the proof of payment: a file that is archived
// with the manifest's sha256 is never paid again, journal or not.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { JournalError } from '../core/errors.js';
import { redactSecrets, type RunCounts, type RunOutcome } from '../warehouse/index.js';
import { syncFolder } from './archive-writes.js';
import { FILE_KINDS } from '../core/file-kinds.js';
import { fileVersionKey } from '../core/pairs.js';

export const JOURNAL_FOLDER = '_journal';

const fileKind = z.enum(FILE_KINDS);
const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

const journaledFile = z.object({
  exchange: z.string(),
  symbol: z.string(),
  sessionDate: date,
  file: fileKind,
  sha256: z.string(),
  bytes: z.number().int().nonnegative(),
  rows: z.number().int().nonnegative(),
  archivePath: z.string(),
  downloadedAt: z.string(),
});

const manifestRow = z.object({
  session_date: z.string(),
  file: z.string(),
  rows: z.number().int(),
  bytes: z.number().int(),
  sha256: z.string(),
  schema_version: z.number().int(),
});

const journaledListing = z.object({
  exchange: z.string(),
  symbol: z.string(),
  /** Absent when the listing started from the archive, not the warehouse: sync.listings is left as it is. */
  completeFrom: date.nullable().optional(),
  listedAt: z.string(),
  rows: z.array(manifestRow),
});

const outcomes = ['ok', 'partial', 'failed', 'interrupted', 'locked', 'dry_run'] as const satisfies readonly RunOutcome[];

const journaledRun = z.object({
  /** Set when the run's row was already opened in sync.runs (it is completed, not inserted). */
  runId: z.number().int().optional(),
  command: z.string(),
  options: z.record(z.string(), z.unknown()),
  startedAt: z.string(),
  finishedAt: z.string(),
  outcome: z.enum(outcomes),
  creditsSpent: z.number().int().nonnegative(),
  requestsSpent: z.number().int().nonnegative(),
  filesPlanned: z.number().int().nonnegative(),
  filesLoaded: z.number().int().nonnegative(),
  filesFailed: z.number().int().nonnegative(),
  filesDeferred: z.number().int().nonnegative(),
  rowsLoaded: z.number().int().nonnegative(),
  bytesDownloaded: z.number().int().nonnegative(),
  error: z.string().nullable(),
});

const journalSchema = z.object({
  version: z.literal(1),
  files: z.array(journaledFile),
  listings: z.array(journaledListing),
  runs: z.array(journaledRun),
});

export type JournaledFile = z.infer<typeof journaledFile>;
export type JournaledListing = z.infer<typeof journaledListing>;
export type JournaledRun = z.infer<typeof journaledRun>;
export type Journal = z.infer<typeof journalSchema>;

export function emptyJournal(): Journal {
  return { version: 1, files: [], listings: [], runs: [] };
}

export function journalPath(archiveRoot: string): string {
  return join(archiveRoot, JOURNAL_FOLDER, 'pending.json');
}

/** Whether the journal holds anything for the warehouse (files, manifests or run records). */
export function hasPendingWork(journal: Journal): boolean {
  return journal.files.length + journal.listings.length + journal.runs.length > 0;
}

export async function readJournal(archiveRoot: string): Promise<Journal> {
  const path = journalPath(archiveRoot);
  let text: string;
  try {
    text = await fs.readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyJournal();
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new JournalError(`the journal ${path} is not valid JSON (${(error as Error).message}); move it away: its files are still in the archive and the next sync reloads them for 0 credits`, { cause: error });
  }
  const parsed = journalSchema.safeParse(value);
  if (!parsed.success) {
    throw new JournalError(`the journal ${path} has an unexpected shape (${parsed.error.issues[0]?.message ?? 'invalid'}); move it away: its files are still in the archive`);
  }
  return parsed.data;
}

/** Replaces the journal atomically (temp + fsync + rename + folder fsync). */
export async function writeJournal(archiveRoot: string, journal: Journal): Promise<void> {
  const path = journalPath(archiveRoot);
  await fs.mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await fs.open(temp, 'wx');
  try {
    await handle.writeFile(`${JSON.stringify(journal)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.rename(temp, path);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
  await syncFolder(dirname(path));
}

/** Reads, changes and writes the journal back (the caller holds the sync lock). */
export async function updateJournal(archiveRoot: string, change: (journal: Journal) => Journal): Promise<Journal> {
  const next = change(await readJournal(archiveRoot));
  await writeJournal(archiveRoot, next);
  return next;
}

/** Pure: the journal with `files` added, one entry per file version (a later entry replaces an equal one). */
export function withFiles(journal: Journal, files: readonly JournaledFile[]): Journal {
  const byKey = new Map(journal.files.map((f) => [fileVersionKey(f), f]));
  for (const file of files) byKey.set(fileVersionKey(file), file);
  return { ...journal, files: [...byKey.values()] };
}

/** Pure: what remains once `done` (files, listings, runs already in the warehouse) is removed. */
export function withoutApplied(journal: Journal, done: { files: readonly JournaledFile[]; listings: number; runs: number }): Journal {
  const doneFiles = new Set(done.files);
  return {
    ...journal,
    files: journal.files.filter((f) => !doneFiles.has(f)),
    listings: journal.listings.slice(done.listings),
    runs: journal.runs.slice(done.runs),
  };
}

export function runOf(start: { command: string; options: Record<string, unknown>; startedAt: Date; runId?: number }, counts: RunCounts): JournaledRun {
  return {
    ...(start.runId !== undefined ? { runId: start.runId } : {}),
    command: start.command,
    options: redactSecrets(start.options) as Record<string, unknown>,
    startedAt: start.startedAt.toISOString(),
    finishedAt: (counts.finishedAt ?? new Date()).toISOString(),
    outcome: counts.outcome,
    creditsSpent: counts.creditsSpent ?? 0,
    requestsSpent: counts.requestsSpent ?? 0,
    filesPlanned: counts.filesPlanned ?? 0,
    filesLoaded: counts.filesLoaded ?? 0,
    filesFailed: counts.filesFailed ?? 0,
    filesDeferred: counts.filesDeferred ?? 0,
    rowsLoaded: counts.rowsLoaded ?? 0,
    bytesDownloaded: counts.bytesDownloaded ?? 0,
    error: counts.error ?? null,
  };
}

