// Loading what the archive's journal holds (src/journal/journal.ts) into the warehouse: the manifests a
// held-out sync listed, its paid files, its run record. No credit. Used first by every sync that can
// write the warehouse, and by `gexwh load`. Idempotent: a file whose version is already loaded is
// skipped by the loader, a run already recorded is not recorded twice, so a crash between the commit
// and an entry's move to its next state (settle.ts) changes nothing on the next try.
//
// The journal's listings are claims, checked against the API's manifest before any is stored
// (claims.ts, confirm.ts): only rows the API lists with the same sha256 are stored; the files they
// explain then load only as the manifest's version. Unchecked claims wait, or with --trust-journal
// are stored marked unconfirmed.
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  expectVersion,
  loadArchived,
  loadedFiles,
  manifestRowsOf,
  recordNotArchived,
  storeListings,
  type ArchivedCandidate,
  type ArchivedLoadReport,
  type FoundBytes,
  type SchemaContract,
  type Verdict,
} from '../warehouse/index.js';
import { markUnconfirmed } from '../warehouse/unconfirmed.js';
import { loadLiveJournal } from './live-journal.js';
import { hasPendingWork, inspectJournal, type JournaledFile, type JournaledListing, type JournalView, type RejectedEntry } from './journal.js';
import { dropDonePackages, dropListing, markRecorded, moveFile, quarantine, setAsideRefused } from './settle.js';
import { migrateLegacy } from './migrate.js';
import { fileKey, pairKey } from '../core/pairs.js';
import type { StoredManifestRow } from '../core/rows.js';
import { promoteLoadedVersions } from './versions.js';
import { recordJournaledRuns } from './journaled-runs.js';
import type { OnProgress } from '../core/progress.js';
import { definedOnly } from '../core/defined.js';
import { judgeClaims, type ClaimVerdicts } from './claims.js';
import { answersFor, checkUnconfirmed, type JournalCheck } from './confirm.js';

export interface ApplyOptions {
  /** How the journal's claims are checked (the API, the run's own listing, --trust-journal). */
  check: JournalCheck;
  /** A stop signal ends the file loads early; the files not done stay in the journal. */
  signal?: AbortSignal;
  onProgress?: OnProgress;
  schemaContract?: SchemaContract;
  /**
   * The journal as the caller read it after migrating a journal of the older layout (adoptAndRead
   * does both): it is applied as read, not read again.
   */
  read?: JournalView;
}

export interface AppliedJournal {
  filesLoaded: number;
  rowsLoaded: number;
  /** Journaled files the loader refused (recorded failed_load in the ledger; still archived). */
  failed: { file: JournaledFile; error: string }[];
  /** Journaled files the `freeze` contract holds (a new layout): they stay in the journal. */
  held: { file: JournaledFile; reason: string }[];
  runsRecorded: number;
  manifestsStored: number;
  /** Live snapshots `capture` journaled while the warehouse was held, loaded now. */
  snapshotsLoaded: number;
  warnings: string[];
}

export function nothingApplied(): AppliedJournal {
  return { filesLoaded: 0, rowsLoaded: 0, failed: [], held: [], runsRecorded: 0, manifestsStored: 0, snapshotsLoaded: 0, warnings: [] };
}

/**
 * Loads the journal's content into an open, writable warehouse, then removes it from the journal:
 * the listing rows the check confirms (or the user trusts), the files they and the warehouse's own
 * manifest explain, the run records (credits at most what their spend record holds).
 */
export async function applyJournal(conn: DuckDBConnection, archiveRoot: string, options: ApplyOptions): Promise<AppliedJournal> {
  const { check, signal, onProgress, schemaContract } = options;
  const applied = nothingApplied();
  const live = await loadLiveJournal(conn, archiveRoot);
  applied.snapshotsLoaded = live.snapshots;
  for (const path of live.unreadable) applied.warnings.push(`the journaled snapshot ${path} cannot be read; it is left where it is`);
  // Rows an earlier --trust-journal stored unchecked are checked whenever the API can be asked.
  if (check.list !== undefined) await checkUnconfirmed(conn, check.list, applied.warnings);
  const read = options.read ?? (await migrateAndRead(archiveRoot, applied.warnings));
  applied.warnings.push(...read.warnings);
  await setAsideRefused(read.refusedNames);
  const { journal } = read;
  // Entries refused by this read go to their package's quarantine at once, so each warns once.
  for (const refused of journal.rejected) await quarantine(archiveRoot, refused, refused, true);
  if (!hasPendingWork(journal)) {
    await dropDonePackages(archiveRoot);
    return applied;
  }
  // Manifests first: the plan, status, the row-count checks and the files' own check read them.
  const verdicts = judgeClaims(journal.listings, await answersFor(journal.listings, check, applied.warnings), check.trust === true);
  await storeClaims(conn, verdicts, applied);
  const waiting = waitingKeys(verdicts.waiting);
  const files = journal.files.filter((file) => !waiting.has(fileKey(file)));
  const outcome = await loadJournaledFiles(conn, archiveRoot, files, applied, { signal, onProgress, schemaContract });
  applied.runsRecorded = await recordJournaledRuns(conn, journal.runs, applied.warnings);
  // A journaled newer version waits under its pending name; once loaded it takes the plain name.
  applied.warnings.push(...(await promoteLoadedVersions(conn, archiveRoot)).warnings);
  await settle(archiveRoot, { files, listings: journal.listings, runs: journal.runs, verdicts, ...outcome, failed: applied.failed.map((f) => f.file) });
  return applied;
}

/** A journal of the older layout moves into packages first (what it refused is told once), then the journal is read. */
async function migrateAndRead(archiveRoot: string, warnings: string[]): Promise<JournalView> {
  warnings.push(...(await migrateLegacy(archiveRoot)));
  return inspectJournal(archiveRoot);
}

/** Each entry the load decided, moved to its next state; the packages left with nothing go. */
async function settle(
  archiveRoot: string,
  done: {
    files: readonly JournaledFile[];
    listings: readonly JournaledListing[];
    runs: readonly object[];
    verdicts: ClaimVerdicts;
    refused: Map<JournaledFile, RejectedEntry>;
    quarantined: Set<JournaledFile>;
    notDone: Set<JournaledFile>;
    failed: readonly JournaledFile[];
  },
): Promise<void> {
  const failed = new Set(done.failed);
  for (const file of done.files) {
    if (done.notDone.has(file)) continue;
    const refusal = done.refused.get(file);
    if (refusal !== undefined) await quarantine(archiveRoot, refusal, file, true);
    else await moveFile(archiveRoot, file, done.quarantined.has(file) ? 'quarantined' : failed.has(file) ? 'failed' : 'loaded');
  }
  for (const { listing, row, reason } of done.verdicts.refused)
    await quarantine(archiveRoot, refusal('listing', { ...listing, rows: [row] }, reason), listing, false);
  const waiting = new Set<object>(done.verdicts.waiting);
  for (const listing of done.listings) if (!waiting.has(listing)) await dropListing(listing);
  for (const run of done.runs) await markRecorded(run);
  await dropDonePackages(archiveRoot);
}

/** The confirmed rows (as the API lists them) and the trusted ones (marked unconfirmed) go to sync.manifest. */
async function storeClaims(conn: DuckDBConnection, verdicts: ClaimVerdicts, applied: AppliedJournal): Promise<void> {
  for (const { listing, row, reason } of verdicts.refused) {
    applied.warnings.push(`the journal's listing of ${listing.exchange}/${listing.symbol} ${row.session_date} ${row.file} ${reason}`);
  }
  const stored = [...verdicts.confirmed, ...verdicts.trusted];
  await storeListings(conn, stored);
  applied.manifestsStored += stored.length;
  const unchecked = verdicts.trusted.flatMap((l) =>
    l.rows.map((row) => ({ exchange: l.exchange, symbol: l.symbol, sessionDate: row.session_date, file: row.file, sha256: row.sha256 })),
  );
  await markUnconfirmed(conn, unchecked);
  if (unchecked.length > 0) {
    applied.warnings.push(
      `${unchecked.length} manifest row(s) of the journal were stored unchecked (--trust-journal) and are marked unconfirmed: gexwh verify names the files loaded under them until a run with a key checks them against the API's manifest`,
    );
  }
  const rows = verdicts.waiting.reduce((sum, l) => sum + l.rows.length, 0);
  if (rows > 0) {
    const pairs = [...new Set(verdicts.waiting.map((l) => pairKey(l).replace('|', '/')))].join(', ');
    applied.warnings.push(
      `${rows} manifest row(s) the journal claims (${pairs}) are not checked against the API's manifest (no key configured, or the API could not be asked): ` +
        `they and the files they list wait in the journal; a gexwh sync or gexwh load with a key (GEX_API_KEY or --api-key-file, and a base URL) checks them (a listing request, no credit), ` +
        `or gexwh load --trust-journal loads them unchecked, marked unconfirmed`,
    );
  }
}

/** The files whose manifest rows wait for a check: they wait with them. */
function waitingKeys(listings: readonly JournaledListing[]): Set<string> {
  return new Set(
    listings.flatMap((l) => l.rows.map((row) => fileKey({ exchange: l.exchange, symbol: l.symbol, sessionDate: row.session_date, file: row.file }))),
  );
}

function refusal(kind: RejectedEntry['kind'], entry: unknown, reason: string): RejectedEntry {
  return { kind, reason, rejectedAt: new Date().toISOString(), entry };
}

/**
 * The journal's files, each loaded only if its bytes are the manifest's version of that file (the
 * journal's own sha256 is a claim, like its path): the bytes are hashed as they are loaded
 * (warehouse/archived-load.ts). A copy that is not the manifest's is quarantined and recorded so
 * the planner downloads the file again; an entry no manifest row explains is refused.
 */
async function loadJournaledFiles(
  conn: DuckDBConnection,
  archiveRoot: string,
  files: readonly JournaledFile[],
  applied: AppliedJournal,
  { signal, onProgress, schemaContract }: { signal: AbortSignal | undefined; onProgress: OnProgress | undefined; schemaContract: SchemaContract | undefined },
): Promise<{ refused: Map<JournaledFile, RejectedEntry>; quarantined: Set<JournaledFile>; notDone: Set<JournaledFile> }> {
  const quarantined = new Set<JournaledFile>();
  if (files.length === 0) return { refused: new Map(), quarantined, notDone: new Set() };
  const manifest = await manifestRowsOf(conn, files);
  const loaded = await loadedFiles(conn, files);
  const refused = new Map<JournaledFile, RejectedEntry>();
  const candidates: (ArchivedCandidate & { entry: JournaledFile; expected: StoredManifestRow })[] = [];
  for (const entry of files) {
    const expected = manifest.get(fileKey(entry));
    if (expected === undefined) {
      const reason =
        'no manifest row lists this file, so its bytes cannot be checked; it stays in the archive, where a sync that lists it uses it for 0 credits';
      refused.set(entry, refusal('file', entry, reason));
      applied.warnings.push(`journal file ${describeEntry(entry)} refused: ${reason}`);
    } else if (loaded.get(fileKey(entry)) !== expected.sha256) {
      if (entry.sha256 !== expected.sha256)
        applied.warnings.push(`journal file ${describeEntry(entry)} says sha256 ${entry.sha256}; the manifest's version ${expected.sha256} is what may load`);
      // Either version may be there: the manifest's loads, the journal's own is refused (judgeJournaled).
      candidates.push({ ...entry, relativePath: entry.archivePath, maxBytes: Math.max(entry.bytes, expected.bytes), entry, expected });
    }
  }
  const report = await loadArchived(conn, archiveRoot, candidates, judgeJournaled, {
    command: "the journal's load (gexwh load, or the start of gexwh sync)",
    ...definedOnly({ signal, schemaContract, onProgress: onProgress && ((done: number) => onProgress(done, candidates.length)) }),
  });
  applied.filesLoaded = report.loaded.length;
  applied.rowsLoaded = report.rowsLoaded;
  applied.warnings.push(...report.warnings);
  for (const { input, error } of report.failed) {
    const candidate = report.candidateOf.get(input);
    if (candidate) applied.failed.push({ file: candidate.entry, error });
  }
  const held = heldEntries(report, applied);
  for (const missed of report.notLoaded) {
    if (missed.kind === 'refused') {
      applied.warnings.push(`journal file ${describeEntry(missed.candidate.entry)} not loaded: ${missed.detail}`);
      continue;
    }
    await recordNotArchived(conn, { ...missed.candidate.entry, sha256: missed.candidate.expected.sha256, archivePath: null }, missed.detail);
    applied.failed.push({ file: missed.candidate.entry, error: missed.detail });
    quarantined.add(missed.candidate.entry);
  }
  return { refused, quarantined, notDone: new Set([...unfinished(report, candidates).map((candidate) => candidate.entry), ...held]) };
}

/** Held by the freeze contract: still paid and archived, still waiting in the journal. */
function heldEntries(report: ArchivedLoadReport<{ entry: JournaledFile } & ArchivedCandidate>, applied: AppliedJournal): Set<JournaledFile> {
  const held = new Set<JournaledFile>();
  for (const { input, reason } of report.held) {
    const candidate = report.candidateOf.get(input);
    if (candidate === undefined) continue;
    applied.held.push({ file: candidate.entry, reason });
    applied.warnings.push(reason);
    held.add(candidate.entry);
  }
  return held;
}

/** The candidates a stop signal kept the loader from: neither loaded, failed, skipped nor set aside. */
export function unfinished<C extends ArchivedCandidate>(report: ArchivedLoadReport<C>, candidates: readonly C[]): C[] {
  if (!report.stopped) return [];
  const finished = new Set<C>(report.notLoaded.map((missed) => missed.candidate));
  for (const input of [...report.loaded, ...report.skipped, ...report.failed.map((f) => f.input)]) {
    const candidate = report.candidateOf.get(input);
    if (candidate !== undefined) finished.add(candidate);
  }
  return candidates.filter((candidate) => !finished.has(candidate));
}

/**
 * The manifest's version loads; the version the entry names, when the manifest has moved on from it,
 * is left where it is (a genuine older copy, not a bad one); any other bytes are quarantined.
 */
function judgeJournaled(candidate: { entry: JournaledFile; expected: StoredManifestRow }, found: FoundBytes): Verdict {
  const { entry, expected } = candidate;
  if (found.sha256 === entry.sha256 && entry.sha256 !== expected.sha256) {
    return { refuse: `it is the version ${entry.sha256}, and the manifest now lists ${expected.sha256}: the file is planned again` };
  }
  return expectVersion(expected, found, { rows: expected.rows, downloadedAt: entry.downloadedAt }, 'the manifest');
}

function describeEntry(entry: JournaledFile): string {
  return `${entry.exchange}/${entry.symbol} ${entry.sessionDate} ${entry.file}`;
}
