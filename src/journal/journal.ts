// The archive's journal `<archive>/_journal/pending.json`: what a sync paid for, verified and archived
// but could not load because another process held the warehouse, with the manifest rows it listed and
// its run record. The next sync or `gexwh load` reads it without the network and loads it for 0
// credits. It is small (a night's files) and rewritten whole: temp file, fsync, rename, fsync folder,
// so a crash leaves the old journal or the new one, never half of one. Only the holder of the sync
// lock writes it. The archive files themselves stay the proof of payment: a file that is archived
// with the manifest's sha256 is never paid again, journal or not.
import { promises as fs } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { redactSecrets, type RunCounts, type RunOutcome } from '../warehouse/index.js';
import { writeDurably } from './durable-write.js';
import { FILE_KINDS, isFileKind } from '../core/file-kinds.js';
import { EXCHANGES, fileVersionKey, isExchange } from '../core/pairs.js';
import { SYMBOL_PATTERN, SYMBOL_RULE } from '../core/names.js';
import { isIsoDate } from '../time/dates.js';
import { readRecordedPath } from '../core/archive/recorded-path.js';
import { errorMessage, UsageError } from '../core/errors.js';
import { folderLeavesArchive } from '../core/archive/confine.js';
import { readJournalFile } from './safe-read.js';

export const JOURNAL_FOLDER = '_journal';

// Every entry is checked with the rules a coverage row and an archive path pass (the one symbol
// pattern, venues and file kinds from their fixed lists, real dates, 64 hex digits): the journal is a
// file anyone who can write the archive can edit, and its values reach paths, SQL and terminals.
const fileKind = z.enum(FILE_KINDS);
// A manifest row's kind is checked the same way; its type stays text, as upsertManifest takes it.
const manifestFileKind = z.string().refine((value): boolean => isFileKind(value), `expected a file kind: ${FILE_KINDS.join(', ')}`);
const date = z.string().refine(isIsoDate, 'expected a date YYYY-MM-DD');
const exchange = z.string().refine((value): boolean => isExchange(value), `expected a history venue: ${EXCHANGES.join(', ')}`);
const symbol = z.string().regex(SYMBOL_PATTERN, `expected a symbol of ${SYMBOL_RULE}`);
const sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lower-case hex digits');
const count = z.number().int().nonnegative();
const instant = z.iso.datetime({ offset: true });

const journaledFile = z.object({
  exchange,
  symbol,
  sessionDate: date,
  file: fileKind,
  sha256,
  bytes: count,
  rows: count,
  /** Relative to the archive root (older journals: an absolute or working-folder-relative path, read by its name). */
  archivePath: z.string().max(4096),
  downloadedAt: instant,
});

const manifestRow = z.object({
  session_date: date,
  file: manifestFileKind,
  rows: count,
  bytes: count,
  sha256,
  schema_version: z.number().int(),
});

const journaledListing = z.object({
  exchange,
  symbol,
  /** Absent when the listing started from the archive, not the warehouse: sync.listings is left as it is. */
  completeFrom: date.nullable().optional(),
  listedAt: instant,
  rows: z.array(manifestRow),
});

const outcomes = ['ok', 'partial', 'failed', 'interrupted', 'locked', 'dry_run'] as const satisfies readonly RunOutcome[];

const journaledRun = z.object({
  /** Set when the run's row was already opened in sync.runs (it is completed, not inserted). */
  runId: z.number().int().positive().optional(),
  command: z.string().regex(/^[a-z]{1,20}$/, 'expected a command name'),
  options: z.record(z.string(), z.unknown()),
  startedAt: instant,
  finishedAt: instant,
  outcome: z.enum(outcomes),
  creditsSpent: count,
  requestsSpent: count,
  filesPlanned: count,
  filesLoaded: count,
  filesFailed: count,
  filesDeferred: count,
  rowsLoaded: count,
  bytesDownloaded: count,
  error: z.string().max(10_000).nullable(),
  /** Link answers lost (charged by the API, never received): the run cost up to this many credits more. */
  linksLost: count.optional(),
});

/** An entry the tool refused to use, kept (never loaded) so a person can see what it was. */
const rejectedEntry = z.object({
  kind: z.enum(['file', 'listing', 'run']),
  reason: z.string(),
  rejectedAt: z.string(),
  entry: z.unknown(),
});

/** The envelope alone: entries are checked one by one, so one bad entry costs only itself. */
const journalEnvelope = z.object({
  version: z.literal(1),
  files: z.array(z.unknown()),
  listings: z.array(z.unknown()),
  runs: z.array(z.unknown()),
  rejected: z.array(z.unknown()).optional(),
});

export type JournaledFile = z.infer<typeof journaledFile>;
export type JournaledListing = z.infer<typeof journaledListing>;
export type JournaledRun = z.infer<typeof journaledRun>;
export type RejectedEntry = z.infer<typeof rejectedEntry>;
export interface Journal {
  version: 1;
  files: JournaledFile[];
  listings: JournaledListing[];
  runs: JournaledRun[];
  /** Entries refused by an earlier read, kept as they were. */
  rejected: RejectedEntry[];
}

export function emptyJournal(): Journal {
  return { version: 1, files: [], listings: [], runs: [], rejected: [] };
}

export function journalPath(archiveRoot: string): string {
  return join(archiveRoot, JOURNAL_FOLDER, 'pending.json');
}

/**
 * The journal's folders (`_journal`, `_live`) must be the archive's own: one that is a link out of
 * the archive is never read or written through (a usage error naming it, before anything is paid).
 */
export async function refuseFolderLinkOut(archiveRoot: string, folder: string): Promise<void> {
  const reason = await folderLeavesArchive(archiveRoot, folder);
  if (reason === undefined) return;
  throw new UsageError(
    `${reason}; gexwh keeps its journal inside the archive: replace the link with a folder (move its content in if it is yours) and run again`,
    {
      path: join(archiveRoot, folder),
    },
  );
}

/** Whether the journal holds anything for the warehouse (files, manifests or run records). */
export function hasPendingWork(journal: Journal): boolean {
  return journal.files.length + journal.listings.length + journal.runs.length > 0;
}

/** What a read of the journal found: its usable entries, and what it refused this time. */
export interface JournalRead {
  journal: Journal;
  /** Entries refused by this read (each also in journal.rejected), one warning each. */
  warnings: string[];
  /** Why the whole file could not be used (not JSON, not a journal); undefined when it could. */
  unreadable?: string;
  /** Set when the file was not even read (a link, a FIFO or device, too big): why, naming it. */
  refused?: string;
}

/**
 * Reads the journal, checking every entry on its own: a bad entry is refused (kept in `rejected`,
 * never loaded) and the rest is used. A file that is not a journal at all reads as empty, with the
 * reason: no content of it can make every later run fail. The next write sets such a file aside.
 */
export async function inspectJournal(archiveRoot: string): Promise<JournalRead> {
  await refuseFolderLinkOut(archiveRoot, JOURNAL_FOLDER);
  const path = journalPath(archiveRoot);
  const read = await readJournalFile(path);
  if ('missing' in read) return { journal: emptyJournal(), warnings: [] };
  const envelope = 'refused' in read ? { problem: read.refused } : parseEnvelope(read.text);
  if ('problem' in envelope) {
    const what = 'refused' in read ? `the journal ${envelope.problem}` : `the journal ${path} ${envelope.problem}`;
    const unreadable = `${what}; it is not used (the next write keeps it as ${path}.unreadable-<time>); its files are still in the archive, and a sync loads them from there for 0 credits`;
    return { journal: emptyJournal(), warnings: [unreadable], unreadable, ...('refused' in read ? { refused: read.refused } : {}) };
  }
  return checkEntries(envelope.value, archiveRoot, new Date().toISOString());
}

export async function readJournal(archiveRoot: string): Promise<Journal> {
  return (await inspectJournal(archiveRoot)).journal;
}

function parseEnvelope(text: string): { value: z.infer<typeof journalEnvelope> } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // JSON.parse quotes the text it choked on: escaped, so no byte of the file reaches a terminal raw.
    return { problem: `is not valid JSON (${JSON.stringify(errorMessage(error)).slice(1, -1)})` };
  }
  const parsed = journalEnvelope.safeParse(value);
  if (!parsed.success) return { problem: `is not a journal of this version (${issueOf(parsed.error)})` };
  return { value: parsed.data };
}

/** Pure but for the clock: each entry checked; the refused ones moved to `rejected` with their reason. */
export function checkEntries(envelope: z.infer<typeof journalEnvelope>, archiveRoot: string, at: string): JournalRead {
  const journal = emptyJournal();
  journal.rejected = (envelope.rejected ?? []).map((entry) => {
    const known = rejectedEntry.safeParse(entry);
    return known.success ? known.data : { kind: 'file' as const, reason: 'an unreadable rejected entry', rejectedAt: at, entry };
  });
  const warnings: string[] = [];
  const reject = (kind: RejectedEntry['kind'], index: number, entry: unknown, reason: string) => {
    journal.rejected.push({ kind, reason, rejectedAt: at, entry });
    warnings.push(`journal ${kind} entry ${index + 1} (${preview(entry)}) refused: ${reason}; kept in the journal's rejected list, never used`);
  };
  envelope.files.forEach((entry, i) => {
    const checked = checkFile(entry, archiveRoot);
    if ('reason' in checked) reject('file', i, entry, checked.reason);
    else journal.files.push(checked.file);
  });
  envelope.listings.forEach((entry, i) => {
    const parsed = journaledListing.safeParse(entry);
    if (parsed.success) journal.listings.push(parsed.data);
    else reject('listing', i, entry, issueOf(parsed.error));
  });
  envelope.runs.forEach((entry, i) => {
    const parsed = journaledRun.safeParse(entry);
    if (parsed.success) journal.runs.push(parsed.data);
    else reject('run', i, entry, issueOf(parsed.error));
  });
  return { journal, warnings };
}

/** A file entry's values, and its archive path read under the root (never the working folder). */
function checkFile(entry: unknown, archiveRoot: string): { file: JournaledFile } | { reason: string } {
  const parsed = journaledFile.safeParse(entry);
  if (!parsed.success) return { reason: issueOf(parsed.error) };
  const place = readRecordedPath(parsed.data.archivePath, parsed.data, archiveRoot);
  if ('refused' in place) return { reason: `archivePath: ${place.refused}` };
  return { file: { ...parsed.data, archivePath: place.relative } };
}

/** The first problem, with the field it is about: `symbol: expected a symbol of ...`. */
function issueOf(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid';
  const field = issue.path.join('.');
  return field === '' ? issue.message : `${field}: ${issue.message}`;
}

/** A short, escaped picture of an entry for a warning (JSON escapes control characters). */
function preview(entry: unknown): string {
  const text = JSON.stringify(entry) ?? String(entry);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/** Replaces the journal atomically (temp + fsync + rename + folder fsync). */
export async function writeJournal(archiveRoot: string, journal: Journal): Promise<void> {
  await refuseFolderLinkOut(archiveRoot, JOURNAL_FOLDER);
  const path = journalPath(archiveRoot);
  await fs.mkdir(dirname(path), { recursive: true });
  await setAsideUnreadable(path);
  await writeDurably(path, `${JSON.stringify(journal)}\n`);
}

/** A journal no read can use is kept beside the new one, never overwritten: a person may want it. */
async function setAsideUnreadable(path: string): Promise<void> {
  const read = await readJournalFile(path);
  if ('missing' in read || ('text' in read && !('problem' in parseEnvelope(read.text)))) return;
  const stamp = new Date()
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
  await fs.rename(path, `${path}.unreadable-${stamp}`);
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
    ...linksLostOf(counts),
  };
}

/** Links lost are written only when there are some (older journals never had the field). */
function linksLostOf(counts: RunCounts): { linksLost?: number } {
  return (counts.linksLost ?? 0) > 0 ? { linksLost: counts.linksLost! } : {};
}
