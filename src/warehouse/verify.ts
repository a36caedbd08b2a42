// `gexwh verify [--repair]`: re-hashes every archived file of the ledger against the ledger's and the
// manifest's sha256, and re-counts the rows each loaded file put in the tables. `repair` reloads,
// from the archive, every file with a problem whose archived copy is intact (delete its rows and
// load again in one transaction, as rebuild does), removes rows no loaded file explains, then
// checks again: what is left is what it could not repair. The CLI exits 4 when problems remain.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { NoWarehouseError } from '../core/errors.js';
import {
  archivedRelativeOf,
  copyRelativeOf,
  describeLook,
  foundSha,
  groupByFile,
  hashArchived,
  judgeArchive,
  largestRecorded,
  type ArchiveLook,
} from './archive-check.js';
import { expectVersion, loadArchived, type ArchivedCandidate } from './archived-load.js';
import { rowCountMismatches, type RowCountMismatch } from './row-count-mismatches.js';
import { type LedgerRow, listLedger } from './ledger.js';
import { listUnconfirmed } from './unconfirmed.js';
import { acquireSyncLock } from './lock.js';
import { openReader } from './open.js';
import { openWriter } from './open-writer.js';
import { chooseVersion, removeOrphanRows } from './rebuild.js';
import { fileKey } from '../core/pairs.js';
import { FILE_KINDS } from '../core/file-kinds.js';
import { oneOf, readRows, text } from './read-rows.js';
import type { OnProgress } from '../core/progress.js';

export interface VerifyOptions {
  dbPath: string;
  archiveRoot: string;
  repair?: boolean;
  /** With repair: wait this long for a running sync's lock (default 0). */
  lockWaitSeconds?: number;
  now?: () => Date;
  /** Told after each file is checked (files of the ledger, and their bytes). */
  onProgress?: OnProgress;
}

export type VerifyProblemKind =
  | 'missing_archive' // the archived file of a loaded version is gone
  | 'hash_mismatch' // the archived file's sha256 is not the loaded version's (e.g. a flipped byte)
  | 'size_mismatch'
  | 'manifest_mismatch' // the manifest lists another sha256 than the loaded one (a rebuilt file: sync fetches it)
  | 'row_count_mismatch' // the table holds another number of rows than the loaded file had
  | 'unexplained_rows' // rows of a session no loaded file of that kind explains
  | 'failed_load' // the newest version of a file never loaded
  | 'outside_archive' // the archived path leads out of the archive (a link) or is recorded outside it: not followed
  | 'unreadable' // the archived file cannot be opened (permissions, not a regular file)
  | 'unconfirmed'; // its manifest row came from a journal unchecked (load --trust-journal): the API has not confirmed it

export interface VerifyProblem {
  kind: VerifyProblemKind;
  exchange: string;
  symbol: string;
  session_date: string;
  file: string;
  detail: string;
}

export interface VerifyReport {
  /** Files (exchange, symbol, session, kind) checked. */
  checked: number;
  /** Problems left (after repair, when asked). */
  problems: VerifyProblem[];
  /** Problems found and fixed by repair. */
  repaired: VerifyProblem[];
}

export async function verifyWarehouse(options: VerifyOptions): Promise<VerifyReport> {
  if (!existsSync(resolve(options.dbPath))) throw new NoWarehouseError(options.dbPath, 'verify');
  if (!options.repair) {
    const warehouse = await openReader(options.dbPath);
    try {
      const inspection = await inspect(warehouse.connection, options.archiveRoot, new Map(), options.onProgress);
      return { checked: inspection.checked, problems: inspection.problems, repaired: [] };
    } finally {
      warehouse.close();
    }
  }
  const lock = await acquireSyncLock(options.dbPath, { waitSeconds: options.lockWaitSeconds ?? 0 });
  try {
    const warehouse = await openWriter(options.dbPath, options.archiveRoot);
    try {
      return await verifyAndRepairOn(warehouse.connection, options.archiveRoot, options.now ?? (() => new Date()), options.onProgress);
    } finally {
      warehouse.close();
    }
  } finally {
    await lock.release();
  }
}

/** Verify, repair what the archive allows, verify again (on a writable connection, lock held). */
export async function verifyAndRepairOn(
  conn: DuckDBConnection,
  archiveRoot: string,
  now: () => Date = () => new Date(),
  onProgress?: OnProgress,
): Promise<VerifyReport> {
  const looks = new Map<string, ArchiveLook>();
  const before = await inspect(conn, archiveRoot, looks, onProgress);
  if (before.problems.length === 0) return { checked: before.checked, problems: [], repaired: [] };
  if (before.problems.some((p) => p.kind === 'unexplained_rows')) await removeOrphanRows(conn);
  if (before.fixes.length > 0) {
    // Hashed again as it loads: a copy changed since the first pass is quarantined, not loaded.
    const judge = (fix: RepairCandidate, found: Parameters<typeof expectVersion>[1]) =>
      expectVersion(fix.version, found, { rows: fix.rows, downloadedAt: fix.version.downloadedAt ?? now() }, 'the ledger');
    const repaired = await loadArchived(conn, archiveRoot, before.fixes, judge, { reload: true, now, command: 'gexwh verify --repair' });
    for (const missed of repaired.notLoaded) looks.delete(missed.candidate.relativePath);
  }
  const after = await inspect(conn, archiveRoot, looks);
  const left = new Set(after.problems.map(problemId));
  return { checked: after.checked, problems: after.problems, repaired: before.problems.filter((p) => !left.has(problemId(p))) };
}

/** A version repair reloads: the loaded or a failed-to-load version whose archived copy is intact. */
interface RepairCandidate extends ArchivedCandidate {
  version: LedgerRow;
  rows: number;
}

interface Inspection {
  checked: number;
  problems: VerifyProblem[];
  /** The intact archived version to reload for each file with a problem. */
  fixes: RepairCandidate[];
}

async function inspect(conn: DuckDBConnection, archiveRoot: string, looks: Map<string, ArchiveLook>, onProgress?: OnProgress): Promise<Inspection> {
  const manifest = await manifestShas(conn);
  const mismatches = new Map((await rowCountMismatches(conn)).map((m) => [fileKey(m), m]));
  const inspection: Inspection = { checked: 0, problems: [], fixes: [] };
  // Every name looked at is one file's (its plain or pending name): none of its versions is larger than the largest.
  const look = async (relative: string, versions: readonly LedgerRow[]) => {
    if (!looks.has(relative)) looks.set(relative, await hashArchived(archiveRoot, relative, { maxBytes: largestRecorded(versions) }));
    return looks.get(relative)!;
  };
  const files = groupByFile(await listLedger(conn));
  const meter = progressOver(files, onProgress);
  for (const versions of files) {
    const first = versions[0];
    if (!first) continue;
    const relative = archivedRelativeOf(first);
    const found = await look(relative, versions);
    meter(versions);
    const problems = await inspectFile(versions, found, manifest, mismatches, { root: archiveRoot, look });
    if (problems === undefined) continue;
    inspection.checked += 1;
    inspection.problems.push(...problems);
    const fix = problems.length > 0 ? repairCandidate(versions, relative, found) : undefined;
    if (fix) inspection.fixes.push(fix);
  }
  for (const orphan of mismatches.values()) {
    if (orphan.sha256 !== null) continue;
    inspection.problems.push(problem('unexplained_rows', orphan, `${orphan.actual} rows with no loaded ${orphan.file} file`));
  }
  for (const mark of await listUnconfirmed(conn)) {
    const detail = `the manifest row (sha256 ${mark.sha256}) came from the archive's journal unchecked (gexwh load --trust-journal): the API's manifest has not confirmed it, nor the file loaded under it`;
    inspection.problems.push(problem('unconfirmed', mark, detail));
  }
  return inspection;
}

/** A progress callback over the ledger's files: each one checked adds its bytes (those of its newest version). */
function progressOver(files: readonly (readonly LedgerRow[])[], onProgress: OnProgress | undefined): (versions: readonly LedgerRow[]) => void {
  const bytesOf = (versions: readonly LedgerRow[]) => versions[versions.length - 1]?.bytes ?? 0;
  const totalBytes = files.reduce((sum, versions) => sum + bytesOf(versions), 0);
  let done = 0;
  let bytes = 0;
  return (versions) => {
    done += 1;
    bytes += bytesOf(versions);
    onProgress?.(done, files.length, bytes, totalBytes);
  };
}

/** One file's problems: of its loaded version, else of a newest failed_load; undefined when neither is there to check. */
async function inspectFile(
  versions: readonly LedgerRow[],
  found: ArchiveLook,
  manifest: Map<string, string>,
  mismatches: Map<string, RowCountMismatch>,
  archive: { root: string; look: (relative: string, versions: readonly LedgerRow[]) => Promise<ArchiveLook> },
): Promise<VerifyProblem[] | undefined> {
  const loaded = versions.find((v) => v.status === 'loaded');
  if (loaded) {
    const problems = checkLoaded(loaded, found, manifest.get(fileKey(loaded)));
    const counts = mismatches.get(fileKey(loaded));
    if (counts) problems.push(problem('row_count_mismatch', loaded, `the table holds ${counts.actual} rows of this file, the ledger says ${counts.expected}`));
    return problems;
  }
  const newest = versions[versions.length - 1];
  if (newest?.status !== 'failed_load') return undefined;
  const never = problem('failed_load', newest, `never loaded: ${newest.error ?? 'no error recorded'}`);
  // A newer version waits under its own pending name beside the loaded one (src/journal/versions.ts).
  const copy = copyRelativeOf(newest, archive.root);
  if ('refused' in copy)
    return [
      never,
      problem(
        'outside_archive',
        newest,
        `the ledger's archive path is refused: ${copy.refused}; the next sync downloads it again (1 credit, within the budget)`,
      ),
    ];
  return [never, ...checkFailedCopy(newest, await archive.look(copy.relative, versions))];
}

/** Archive and manifest checks of the loaded version (pure). */
export function checkLoaded(loaded: LedgerRow, found: ArchiveLook, manifestSha: string | undefined): VerifyProblem[] {
  const problems: VerifyProblem[] = [];
  const verdict = judgeArchive(loaded, found);
  if (verdict !== 'ok') problems.push(problem(verdictKind(verdict), loaded, describeLook(verdict, found, loaded, 'the ledger')));
  if (manifestSha !== undefined && manifestSha !== loaded.sha256) {
    problems.push(
      problem('manifest_mismatch', loaded, `the manifest lists sha256 ${manifestSha}, the loaded version is ${loaded.sha256} (run gexwh sync to fetch it)`),
    );
  }
  return problems;
}

/** A failed_load version is loaded again from its archived copy: say when that copy is gone or wrong (pure). */
export function checkFailedCopy(failed: LedgerRow, found: ArchiveLook): VerifyProblem[] {
  const verdict = judgeArchive(failed, found);
  if (verdict === 'ok') return [];
  const detail = describeLook(verdict, found, failed, 'the failed_load version');
  return [problem(verdictKind(verdict), failed, `${detail} (a failed_load version); the next sync downloads it again (1 credit, within the budget)`)];
}

function verdictKind(verdict: Exclude<ReturnType<typeof judgeArchive>, 'ok'>): VerifyProblemKind {
  return verdict === 'missing' ? 'missing_archive' : verdict;
}

/** The version repair can load: the loaded or a failed-to-load version whose archive is intact. */
function repairCandidate(versions: readonly LedgerRow[], relativePath: string, found: ArchiveLook): RepairCandidate | undefined {
  const choice = chooseVersion(versions, foundSha(found));
  if (!choice || choice.rows === null || judgeArchive(choice, found) !== 'ok') return undefined;
  return {
    exchange: choice.exchange,
    symbol: choice.symbol,
    sessionDate: choice.sessionDate,
    file: choice.file,
    relativePath,
    maxBytes: choice.bytes ?? undefined,
    version: choice,
    rows: choice.rows,
  };
}

async function manifestShas(conn: DuckDBConnection): Promise<Map<string, string>> {
  const rows = await readRows(conn, `SELECT exchange, symbol, session_date::VARCHAR AS "sessionDate", file, sha256 FROM sync.manifest`, [], {
    exchange: text,
    symbol: text,
    sessionDate: text,
    file: oneOf(FILE_KINDS),
    sha256: text,
  });
  return new Map(rows.map((row) => [fileKey(row), row.sha256]));
}

function problem(kind: VerifyProblemKind, file: { exchange: string; symbol: string; sessionDate: string; file: string }, detail: string): VerifyProblem {
  return { kind, exchange: file.exchange, symbol: file.symbol, session_date: file.sessionDate, file: file.file, detail };
}

function problemId(p: VerifyProblem): string {
  return `${p.kind}|${p.exchange}|${p.symbol}|${p.session_date}|${p.file}`;
}
