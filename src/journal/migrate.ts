// The journal of the older layout moved into load packages, by the first run that may write the
// journal (it holds the sync lock): pending.json's files, listings and refused entries become one
// closed package, each of its run records a package of its own with the credits its spend record
// (`spent/<start>.json`) held, and inflight.json, the log of a sync stopped hard, an open package the
// next step adopts. Package ids come from the content, so a migration a crash interrupted is done
// again without doubling anything; the old file goes only once its packages are in place. A file that
// cannot be read is set aside beside itself, never deleted.
import { sha256OfText as sha256 } from '../core/hash.js';
import { promises as fs } from 'node:fs';
import { dirname, join } from 'node:path';
import { JOURNAL_FOLDER, LEGACY_JOURNAL, LEGACY_SPENT_FOLDER, legacyPackageId } from './layout.js';
import { readLegacyInflight, readLegacyJournal, legacyInflightPath } from './legacy-read.js';
import { writeJournalPackages, writePackage, type PackageContent } from './package-write.js';
import { removeFile } from './package-io.js';
import { syncFolder } from '../core/archive/writes.js';
import { readJournalFile } from './safe-read.js';
import { countOf } from './packages.js';
import type { JournaledRun } from './entries.js';

/** Moves every journal file of the older layout into packages; returns what a person should be told. */
export async function migrateLegacy(archiveRoot: string): Promise<string[]> {
  return [...(await migratePending(archiveRoot)), ...(await migrateInflight(archiveRoot))];
}

async function migratePending(archiveRoot: string): Promise<string[]> {
  const path = join(archiveRoot, JOURNAL_FOLDER, LEGACY_JOURNAL);
  const read = await readLegacyJournal(archiveRoot);
  if (read === undefined) return [];
  if (read.text === undefined) {
    const aside = await setAside(path);
    return [`${(read.refused ?? read.unreadable ?? '').replace(/ \(the next load or sync keeps it as .*?\)/, '')}; it was set aside as ${aside}`];
  }
  const text = read.text;
  const idOf = (content: PackageContent) => legacyPackageId(sha256(content.record !== undefined ? JSON.stringify(content.record) : text));
  await writeJournalPackages(archiveRoot, read.journal, idOf, (run) => legacySpend(archiveRoot, run));
  const { journal } = read;
  await removeFile(path);
  for (const run of journal.runs) await fs.rm(legacySpendPath(archiveRoot, run.startedAt), { force: true });
  await fs.rmdir(join(archiveRoot, JOURNAL_FOLDER, LEGACY_SPENT_FOLDER)).catch(() => undefined);
  return read.warnings;
}

async function migrateInflight(archiveRoot: string): Promise<string[]> {
  const path = legacyInflightPath(archiveRoot);
  const read = await readLegacyInflight(archiveRoot);
  if ('none' in read) return [];
  if ('problem' in read) {
    const aside = await setAside(path, String(Date.now()));
    return [`the log of a stopped run could not be read and was set aside as ${aside}; its archived files are still used for 0 credits (${read.problem})`];
  }
  const { run, files, quotaAtStart } = read.log;
  const start = {
    version: 1,
    command: run.command,
    options: run.options,
    startedAt: run.startedAt,
    ...(run.runId !== undefined ? { runId: run.runId } : {}),
    ...(quotaAtStart !== undefined ? { quotaAtStart } : {}),
  };
  const counts = { requestsSpent: run.requestsSpent, filesPlanned: run.filesPlanned, filesDeferred: run.filesDeferred };
  const spent = { credits: countOf(run.creditsSpent), lost: countOf(run.linksLost), counts };
  await writePackage(archiveRoot, legacyPackageId(sha256(read.text)), { start, files, spent });
  await removeFile(path);
  return [];
}

/** The credits an older run's spend record held (0 when none matches the run). */
async function legacySpend(archiveRoot: string, run: JournaledRun): Promise<{ credits: number; lost: number }> {
  if (!Number.isFinite(Date.parse(run.startedAt))) return { credits: 0, lost: 0 };
  const read = await readJournalFile(legacySpendPath(archiveRoot, run.startedAt));
  if (!('text' in read)) return { credits: 0, lost: 0 };
  try {
    const log = JSON.parse(read.text) as { run?: { command?: unknown; startedAt?: unknown; creditsSpent?: unknown; linksLost?: unknown } };
    const same = log.run?.command === run.command && typeof log.run.startedAt === 'string' && Date.parse(log.run.startedAt) === Date.parse(run.startedAt);
    return same ? { credits: countOf(log.run?.creditsSpent), lost: countOf(log.run?.linksLost) } : { credits: 0, lost: 0 };
  } catch {
    return { credits: 0, lost: 0 };
  }
}

function legacySpendPath(archiveRoot: string, startedAt: string): string {
  const stamp = Number.isFinite(Date.parse(startedAt)) ? new Date(startedAt).toISOString().replace(/[-:]/g, '') : 'none';
  return join(archiveRoot, JOURNAL_FOLDER, LEGACY_SPENT_FOLDER, `${stamp}.json`);
}

/** Renames the name itself (a link or a FIFO is never opened); the content stays for a person to see. */
async function setAside(path: string, stamp: string = compactStamp()): Promise<string> {
  const aside = `${path}.unreadable-${stamp}`;
  await fs.rename(path, aside);
  await syncFolder(dirname(path));
  return aside;
}

function compactStamp(): string {
  return new Date()
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
}
