// Reading the journal gexwh wrote before load packages: `<archive>/_journal/pending.json`, one file
// holding every waiting file, listing and run record, and `inflight.json`, the log of a running sync
// rewritten whole at each credit. Both are read with the same care as any journal file (safe-read.ts)
// and every entry is checked on its own (entries.ts). Read only: migrate.ts moves them into packages.
import { join } from 'node:path';
import { z } from 'zod';
import { checkEntries, emptyJournal, parseEnvelope, type JournaledFile, type JournaledRun, type JournalRead } from './entries.js';
import { JOURNAL_FOLDER, LEGACY_INFLIGHT, LEGACY_JOURNAL } from './layout.js';
import { readJournalFile } from './safe-read.js';

/** What `/me` said of the file credits: left (null: unlimited) and the reset instant. */
export interface QuotaSeen {
  remaining: number | null;
  reset?: string | undefined;
}

/** A stopped run's log: its record so far, the paid files it archived, what `/me` said at its start. */
export interface StoppedLog {
  version: 1;
  run: JournaledRun;
  files: JournaledFile[];
  quotaAtStart?: QuotaSeen;
}

/** The text of pending.json and what reading it gave; undefined when there is none. */
export async function readLegacyJournal(archiveRoot: string): Promise<(JournalRead & { text?: string }) | undefined> {
  const path = join(archiveRoot, JOURNAL_FOLDER, LEGACY_JOURNAL);
  const read = await readJournalFile(path);
  if ('missing' in read) return undefined;
  const envelope = 'refused' in read ? { problem: read.refused } : parseEnvelope(read.text);
  if ('problem' in envelope) {
    const what = 'refused' in read ? `the journal ${envelope.problem}` : `the journal ${path} ${envelope.problem}`;
    const unreadable = `${what}; it is not used (the next load or sync keeps it as ${path}.unreadable-<time>); its files are still in the archive, and a sync loads them from there for 0 credits`;
    return { journal: emptyJournal(), warnings: [unreadable], unreadable, ...('refused' in read ? { refused: read.refused } : {}) };
  }
  return { ...checkEntries(envelope.value, archiveRoot, new Date().toISOString()), text: 'text' in read ? read.text : '' };
}

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

export function legacyInflightPath(archiveRoot: string): string {
  return join(archiveRoot, JOURNAL_FOLDER, LEGACY_INFLIGHT);
}

/** The log a stopped run of the older layout left, or none, or why the file there cannot be used (naming it). */
export async function readLegacyInflight(archiveRoot: string): Promise<{ log: StoppedLog; text: string } | { none: true } | { problem: string }> {
  const path = legacyInflightPath(archiveRoot);
  const read = await readJournalFile(path);
  if ('missing' in read) return { none: true };
  if ('refused' in read) return { problem: read.refused };
  let parsed;
  try {
    parsed = inflightSchema.safeParse(JSON.parse(read.text));
  } catch {
    return { problem: `${path} is not valid JSON` };
  }
  return parsed.success ? { log: parsed.data as unknown as StoppedLog, text: read.text } : { problem: `${path} is not the log of a run of this version` };
}
