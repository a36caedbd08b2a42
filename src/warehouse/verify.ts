// `gexwh verify [--repair]`: re-hashes every archived file of the ledger against the ledger's and the
// manifest's sha256, and re-counts the rows each loaded file put in the tables. `repair` reloads,
// from the archive, every file with a problem whose archived copy is intact (delete its rows and
// load again in one transaction, as rebuild does), removes rows no loaded file explains, then
// checks again: what is left is what it could not repair. The CLI exits 4 when problems remain.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { UsageError } from '../core/errors.js';
import { archivedPathOf, groupByFile, judgeArchive, loadInputOf } from './archive-check.js';
import { rowCountMismatches, type RowCountMismatch } from './row-count-mismatches.js';
import { type LedgerRow, listLedger } from './ledger.js';
import { loadFiles, type LoadInput } from './loader.js';
import { acquireSyncLock } from './lock.js';
import { openWarehouse } from './open.js';
import { chooseVersion, removeOrphanRows } from './rebuild.js';
import { fileKey } from '../core/pairs.js';
import { type FileDigest, hashFile } from '../core/archive/hash.js';

export interface VerifyOptions {
  dbPath: string;
  archiveRoot: string;
  repair?: boolean;
  /** With repair: wait this long for a running sync's lock (default 0). */
  lockWaitSeconds?: number;
  now?: () => Date;
}

export type VerifyProblemKind =
  | 'missing_archive' // the archived file of a loaded version is gone
  | 'hash_mismatch' // the archived file's sha256 is not the loaded version's (e.g. a flipped byte)
  | 'size_mismatch'
  | 'manifest_mismatch' // the manifest lists another sha256 than the loaded one (a rebuilt file: sync fetches it)
  | 'row_count_mismatch' // the table holds another number of rows than the loaded file had
  | 'unexplained_rows' // rows of a session no loaded file of that kind explains
  | 'failed_load'; // the newest version of a file never loaded

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
  if (!existsSync(resolve(options.dbPath))) throw new UsageError(`verify: no warehouse at ${options.dbPath}`, { db: options.dbPath });
  if (!options.repair) {
    const warehouse = await openWarehouse(options.dbPath, { readOnly: true });
    try {
      const inspection = await inspect(warehouse.connection, options.archiveRoot, new Map());
      return { checked: inspection.checked, problems: inspection.problems, repaired: [] };
    } finally {
      warehouse.close();
    }
  }
  const lock = await acquireSyncLock(options.dbPath, { waitSeconds: options.lockWaitSeconds ?? 0 });
  try {
    const warehouse = await openWarehouse(options.dbPath);
    try {
      return await verifyAndRepairOn(warehouse.connection, options.archiveRoot, options.now ?? (() => new Date()));
    } finally {
      warehouse.close();
    }
  } finally {
    await lock.release();
  }
}

/** Verify, repair what the archive allows, verify again (on a writable connection, lock held). */
export async function verifyAndRepairOn(conn: DuckDBConnection, archiveRoot: string, now: () => Date = () => new Date()): Promise<VerifyReport> {
  const digests = new Map<string, FileDigest | undefined>();
  const before = await inspect(conn, archiveRoot, digests);
  if (before.problems.length === 0) return { checked: before.checked, problems: [], repaired: [] };
  if (before.problems.some((p) => p.kind === 'unexplained_rows')) await removeOrphanRows(conn);
  if (before.fixes.length > 0) await loadFiles(conn, before.fixes, { reload: true, now });
  // Repair does not touch the archive, so the digests of the first pass still hold.
  const after = await inspect(conn, archiveRoot, digests);
  const left = new Set(after.problems.map(problemId));
  return { checked: after.checked, problems: after.problems, repaired: before.problems.filter((p) => !left.has(problemId(p))) };
}

interface Inspection {
  checked: number;
  problems: VerifyProblem[];
  /** The intact archived version to reload for each file with a problem. */
  fixes: LoadInput[];
}

async function inspect(conn: DuckDBConnection, archiveRoot: string, digests: Map<string, FileDigest | undefined>): Promise<Inspection> {
  const manifest = await manifestShas(conn);
  const mismatches = new Map((await rowCountMismatches(conn)).map((m) => [fileKey(m), m]));
  const inspection: Inspection = { checked: 0, problems: [], fixes: [] };
  for (const versions of groupByFile(await listLedger(conn))) {
    const first = versions[0];
    if (!first) continue;
    const path = archivedPathOf(archiveRoot, first);
    if (!digests.has(path)) digests.set(path, await hashFile(path));
    const found = digests.get(path);
    const problems = await inspectFile(versions, path, found, manifest, mismatches);
    if (problems === undefined) continue;
    inspection.checked += 1;
    inspection.problems.push(...problems);
    const fix = problems.length > 0 ? repairInput(versions, path, found) : undefined;
    if (fix) inspection.fixes.push(fix);
  }
  for (const orphan of mismatches.values()) {
    if (orphan.sha256 !== null) continue;
    inspection.problems.push(problem('unexplained_rows', orphan, `${orphan.actual} rows with no loaded ${orphan.file} file`));
  }
  return inspection;
}

/** One file's problems: of its loaded version, else of a newest failed_load; undefined when neither is there to check. */
async function inspectFile(
  versions: readonly LedgerRow[],
  path: string,
  found: FileDigest | undefined,
  manifest: Map<string, string>,
  mismatches: Map<string, RowCountMismatch>,
): Promise<VerifyProblem[] | undefined> {
  const loaded = versions.find((v) => v.status === 'loaded');
  if (loaded) {
    const problems = checkLoaded(loaded, path, found, manifest.get(fileKey(loaded)));
    const counts = mismatches.get(fileKey(loaded));
    if (counts) problems.push(problem('row_count_mismatch', loaded, `the table holds ${counts.actual} rows of this file, the ledger says ${counts.expected}`));
    return problems;
  }
  const newest = versions[versions.length - 1];
  if (newest?.status !== 'failed_load') return undefined;
  // A newer version waits under its own pending name beside the loaded one (src/sync/versions.ts).
  const copyPath = newest.archivePath ?? path;
  const copy = copyPath === path ? found : await hashFile(copyPath);
  return [problem('failed_load', newest, `never loaded: ${newest.error ?? 'no error recorded'}`), ...checkFailedCopy(newest, copyPath, copy)];
}

/** Archive and manifest checks of the loaded version (pure). */
export function checkLoaded(loaded: LedgerRow, path: string, found: FileDigest | undefined, manifestSha: string | undefined): VerifyProblem[] {
  const problems: VerifyProblem[] = [];
  const verdict = judgeArchive(loaded, found);
  if (verdict === 'missing') problems.push(problem('missing_archive', loaded, `${path} is missing`));
  if (verdict === 'hash_mismatch') problems.push(problem('hash_mismatch', loaded, `${path} has sha256 ${found?.sha256 ?? '?'}, the ledger says ${loaded.sha256}`));
  if (verdict === 'size_mismatch') problems.push(problem('size_mismatch', loaded, `${path} has ${found?.bytes ?? '?'} bytes, the ledger says ${loaded.bytes ?? '?'}`));
  if (manifestSha !== undefined && manifestSha !== loaded.sha256) {
    problems.push(problem('manifest_mismatch', loaded, `the manifest lists sha256 ${manifestSha}, the loaded version is ${loaded.sha256} (run gexwh sync to fetch it)`));
  }
  return problems;
}

/** A failed_load version is loaded again from its archived copy: say when that copy is gone or wrong (pure). */
export function checkFailedCopy(failed: LedgerRow, path: string, found: FileDigest | undefined): VerifyProblem[] {
  const next = 'the next sync downloads it again (1 credit, within the budget)';
  const verdict = judgeArchive(failed, found);
  if (verdict === 'missing') return [problem('missing_archive', failed, `${path} is missing (a failed_load version); ${next}`)];
  if (verdict === 'hash_mismatch' || verdict === 'size_mismatch') {
    return [problem(verdict, failed, `${path} has sha256 ${found?.sha256 ?? '?'} and ${found?.bytes ?? '?'} bytes, the failed_load version is ${failed.sha256}; ${next}`)];
  }
  return [];
}

/** The version repair can load: the loaded or a failed-to-load version whose archive is intact. */
function repairInput(versions: readonly LedgerRow[], path: string, found: FileDigest | undefined): LoadInput | undefined {
  const choice = chooseVersion(versions, found?.sha256);
  if (!choice || choice.rows === null || judgeArchive(choice, found) !== 'ok') return undefined;
  return loadInputOf(choice, path, choice.rows);
}

async function manifestShas(conn: DuckDBConnection): Promise<Map<string, string>> {
  const reader = await conn.runAndReadAll(`SELECT exchange, symbol, session_date::VARCHAR AS session_date, file, sha256 FROM sync.manifest`);
  const result = new Map<string, string>();
  for (const row of reader.getRowObjectsJS()) {
    const key = fileKey({ exchange: String(row.exchange), symbol: String(row.symbol), sessionDate: String(row.session_date), file: row.file as LedgerRow['file'] });
    result.set(key, String(row.sha256));
  }
  return result;
}

function problem(kind: VerifyProblemKind, file: { exchange: string; symbol: string; sessionDate: string; file: string }, detail: string): VerifyProblem {
  return { kind, exchange: file.exchange, symbol: file.symbol, session_date: file.sessionDate, file: file.file, detail };
}

function problemId(p: VerifyProblem): string {
  return `${p.kind}|${p.exchange}|${p.symbol}|${p.session_date}|${p.file}`;
}
