// The journal's entries and the rules each is read by: a paid file waiting to load, a manifest
// listing a run made, a run record, and an entry refused. The journal is files anyone who can write
// the archive can edit, and its values reach paths, SQL and terminals: every entry is checked on its
// own when read, and one that fails is refused (kept with its reason, never used) without costing
// the others. Pure but for the clock.
import { z } from 'zod';
import { redactSecrets, type RunCounts, type RunOutcome } from '../warehouse/index.js';
import { FILE_KINDS, isFileKind } from '../core/file-kinds.js';
import { EXCHANGES, fileVersionKey, isExchange } from '../core/pairs.js';
import { SYMBOL_PATTERN, SYMBOL_RULE } from '../core/names.js';
import { isIsoDate } from '../time/dates.js';
import { readRecordedPath } from '../core/archive/recorded-path.js';
import { errorMessage } from '../core/errors.js';

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

export const journaledFile = z.object({
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

export const journaledListing = z.object({
  exchange,
  symbol,
  /** Absent when the listing started from the archive, not the warehouse: sync.listings is left as it is. */
  completeFrom: date.nullable().optional(),
  listedAt: instant,
  rows: z.array(manifestRow),
});

const outcomes = ['ok', 'partial', 'failed', 'interrupted', 'locked', 'dry_run'] as const satisfies readonly RunOutcome[];

export const journaledRun = z.object({
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
export const rejectedEntry = z.object({
  kind: z.enum(['file', 'listing', 'run']),
  reason: z.string(),
  rejectedAt: z.string(),
  entry: z.unknown(),
});

/** The envelope alone: entries are checked one by one, so one bad entry costs only itself. */
export const journalEnvelope = z.object({
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
export type JournalEnvelope = z.infer<typeof journalEnvelope>;
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

export function parseEnvelope(text: string): { value: JournalEnvelope } | { problem: string } {
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
export function checkEntries(envelope: JournalEnvelope, archiveRoot: string, at: string): JournalRead {
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
export function checkFile(entry: unknown, archiveRoot: string): { file: JournaledFile } | { reason: string } {
  const parsed = journaledFile.safeParse(entry);
  if (!parsed.success) return { reason: issueOf(parsed.error) };
  const place = readRecordedPath(parsed.data.archivePath, parsed.data, archiveRoot);
  if ('refused' in place) return { reason: `archivePath: ${place.refused}` };
  return { file: { ...parsed.data, archivePath: place.relative } };
}

/** The first problem, with the field it is about: `symbol: expected a symbol of ...`. */
export function issueOf(error: z.ZodError): string {
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
