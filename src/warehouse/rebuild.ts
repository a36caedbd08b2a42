// `gexwh rebuild`: recreates the data tables from the raw archive alone (no network, no credit).
// Every file version the ledger calls loaded, or failed_load, whose archived file is intact (same
// sha256 and size) is loaded again; each load batch deletes that file's session rows and inserts them
// again in ONE transaction with its ledger row (loader reload mode), so an interrupted rebuild leaves
// every file either as before or rebuilt. Rows no loaded file explains are removed first. A file
// whose archive is missing or altered is reported and its rows are kept: a rebuild never throws
// away rows it cannot recreate. Levels rows from /history/levels fills (source 'api') have no
// archived file and are kept, until a levels file of their session loads.
// With no readable warehouse (missing, or damaged so DuckDB refuses it) there is no ledger to follow:
// rebuild-from-archive.ts keeps the damaged file aside and loads the whole archive into a fresh one.
import { existsSync } from 'node:fs';
import { inTransaction } from './transaction.js';
import { join, resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { errorMessage, LockError, NotAWarehouseError, UsageError } from '../core/errors.js';
import { identifyDbFile } from './identity.js';
import { archivedRelativeOf, groupByFile, largestRecorded } from './archive-check.js';
import { expectVersion, loadArchived, type ArchivedCandidate, type FoundBytes, type NotLoaded, type Verdict } from './archived-load.js';
import { type LedgerRow, listLedger } from './ledger.js';
import { acquireSyncLock } from './lock.js';
import { rebuildSessionCloses } from './session-closes.js';
import { isDamagedFileMessage, isDamagedWarehouseError, type Warehouse } from './open.js';
import { openWriter } from './open-writer.js';
import { rebuildFromArchive, setAsideDamaged } from './rebuild-from-archive.js';
import { finishRun, startRun } from './runs.js';
import type { FileKind } from '../core/file-kinds.js';
import { num, readRows, text } from './read-rows.js';
import { fileVersionKey } from '../core/pairs.js';
import { scanArchive } from '../core/archive/walk.js';
import type { RebuildProblem, RebuildResult } from './rebuild-result.js';
import type { OnProgress } from '../core/progress.js';

export interface RebuildOptions {
  dbPath: string;
  archiveRoot: string;
  /** Wait this long for a running sync's lock (default 0: fail at once with LockError). */
  lockWaitSeconds?: number;
  /** Wait this long for another process (a reader) to let the warehouse go (default 0), then LockError. */
  warehouseWaitSeconds?: number;
  /** Replace a --db that is not a warehouse of gexwh (kept aside, never deleted). */
  force?: boolean;
  now?: () => Date;
  /** Told as files are loaded (files done of those to rebuild). */
  onProgress?: OnProgress;
}

export async function rebuildWarehouse(options: RebuildOptions): Promise<RebuildResult> {
  if (!existsSync(resolve(options.archiveRoot))) {
    throw new UsageError(`rebuild: no archive folder at ${options.archiveRoot}`, { archive: options.archiveRoot });
  }
  const warehouseMissing = !existsSync(resolve(options.dbPath));
  // Before the lock creates any folder: a mistyped --db with an empty archive must write nothing.
  // `_live` holds the journaled live snapshots (src/journal/live-journal.ts): a capture-only archive.
  const liveJournal = existsSync(join(resolve(options.archiveRoot), '_live'));
  if (warehouseMissing && !liveJournal && (await scanArchive(options.archiveRoot)).files.length === 0) {
    throw new UsageError(`rebuild: no warehouse at ${options.dbPath} and no archived file under ${options.archiveRoot}`, {
      db: options.dbPath,
      archive: options.archiveRoot,
    });
  }
  const now = options.now ?? (() => new Date());
  const replace = await mayReplace(options);
  const lock = await acquireSyncLock(options.dbPath, { waitSeconds: options.lockWaitSeconds ?? 0 });
  try {
    if (replace) return await rebuildFromArchive({ ...options, now, damagedCopies: await setAsideDamaged(options.dbPath, now(), 'replaced'), replaced: true });
    if (!existsSync(resolve(options.dbPath))) return await rebuildFromArchive({ ...options, now, damagedCopies: [] });
    return await rebuildExisting(options, now);
  } finally {
    await lock.release();
  }
}

/**
 * A --db that exists and is not a warehouse of gexwh (a text file, another program's database) is the
 * wrong path: refused before anything is written (exit 2), unless --force, which keeps it aside.
 * Returns true when it is to be replaced.
 */
async function mayReplace(options: RebuildOptions): Promise<boolean> {
  const kind = await identifyDbFile(options.dbPath);
  if (kind !== 'not_duckdb' && kind !== 'foreign') return false;
  if (options.force) return true;
  const what = kind === 'not_duckdb' ? 'it is not a DuckDB database' : 'it is a DuckDB database of another program (no sync.migrations table)';
  throw new NotAWarehouseError(
    `rebuild: refusing to replace ${options.dbPath}: ${what}; nothing was changed. Check --db, or pass --force to keep the file aside as ${options.dbPath}.replaced-<UTC time> and create the warehouse there from the archive`,
    { db: options.dbPath },
  );
}

/** The ledger-based rebuild; a warehouse DuckDB cannot read is set aside and recreated from the archive. */
async function rebuildExisting(options: RebuildOptions, now: () => Date): Promise<RebuildResult> {
  let warehouse: Warehouse | undefined;
  try {
    warehouse = await openHeldWarehouse(options);
    await readEveryTable(warehouse.connection);
    const result = await rebuildOn(warehouse.connection, options.archiveRoot, now, options.onProgress);
    // A damaged block the scan cannot reach (an index) fails the loads that touch it; the copy kept
    // aside then holds the loads that did commit.
    if (!result.problems.some((problem) => isDamagedFileMessage(problem.detail))) return result;
  } catch (error) {
    // Only damage: a lock (exit 5), a wrong or unwritable path stay what they are.
    if (!isDamagedWarehouseError(error)) throw error;
  } finally {
    warehouse?.close();
  }
  const damagedCopies = await setAsideDamaged(options.dbPath, now());
  return rebuildFromArchive({ ...options, now, damagedCopies });
}

/** Opens the warehouse for writing, waiting for a reader; a held warehouse says so and that nothing changed. */
async function openHeldWarehouse(options: RebuildOptions): Promise<Warehouse> {
  const waitSeconds = options.warehouseWaitSeconds ?? 0;
  try {
    return await openWriter(options.dbPath, options.archiveRoot, { waitSeconds });
  } catch (error) {
    if (!(error instanceof LockError)) throw error;
    const waited = waitSeconds > 0 ? ` (waited ${waitSeconds} s)` : '';
    throw new LockError(
      `${error.message}${waited}: rebuild changed nothing; close the other program (a notebook, DBeaver, the duckdb CLI) and run gexwh rebuild again, or give it a longer --wait-lock`,
      error.hints,
      { cause: error },
    );
  }
}

/**
 * Reads every column of every row of every table, so a block failing its checksum shows here, before
 * the rebuild changes anything, and the file kept aside is the file as it was. It costs one scan of
 * the warehouse; the rebuild rewrites all of it anyway.
 */
export async function readEveryTable(conn: DuckDBConnection): Promise<void> {
  const tables = await readRows(
    conn,
    `SELECT schema_name || '.' || table_name AS name FROM duckdb_tables() WHERE database_name = current_database() AND NOT temporary`,
    [],
    { name: text },
  );
  for (const { name } of tables) {
    // The table name is a value here (query_table), never SQL text.
    await conn.run(`SELECT count(*), sum(hash(t)) FROM query_table($1) AS t`, [name]);
  }
}

/** Rebuilds on an open, writable connection whose sync lock the caller holds. */
export async function rebuildOn(
  conn: DuckDBConnection,
  archiveRoot: string,
  now: () => Date = () => new Date(),
  onProgress?: OnProgress,
): Promise<RebuildResult> {
  const runId = await startRun(conn, { command: 'rebuild', options: { archive: resolve(archiveRoot) }, startedAt: now() });
  try {
    const candidates = await rebuildCandidates(conn);
    const orphanRowsRemoved = await removeOrphanRows(conn);
    const report = await loadArchived(conn, archiveRoot, candidates, judgeRebuild, {
      reload: true,
      now,
      command: 'gexwh rebuild',
      onProgress: (done) => onProgress?.(done, candidates.length),
    });
    const problems = [
      ...report.notLoaded.flatMap((missed) => problemsOfNotLoaded(missed)),
      ...report.failed.map(({ input, error }) => problemOf(input, 'load_failed', error)),
    ].sort(byFile);
    const result: RebuildResult = {
      source: 'ledger',
      filesReloaded: report.loaded.length,
      rowsLoaded: report.rowsLoaded,
      orphanRowsRemoved,
      problems,
      runId,
      damagedCopies: [],
      skipped: [],
    };
    await finishRun(conn, runId, {
      outcome: problems.length > 0 ? 'partial' : 'ok',
      filesPlanned: report.loaded.length + report.failed.length + report.skipped.length,
      filesLoaded: report.loaded.length,
      filesFailed: problems.length,
      rowsLoaded: report.rowsLoaded,
      finishedAt: now(),
    });
    return result;
  } catch (error) {
    // Recording the failure must not hide its cause (a damaged file may refuse this write too).
    await finishRun(conn, runId, { outcome: 'failed', error: errorMessage(error), finishedAt: now() }).catch(() => undefined);
    throw error;
  }
}

/** One file of the ledger to rebuild: its versions, and what the manifest says of their rows. */
interface RebuildCandidate extends ArchivedCandidate {
  versions: LedgerRow[];
  manifestRows: Map<string, number>;
}

async function rebuildCandidates(conn: DuckDBConnection): Promise<RebuildCandidate[]> {
  const manifestRows = await manifestRowCounts(conn);
  return groupByFile(await listLedger(conn)).flatMap((versions) => {
    const first = versions[0];
    // A file never loaded nor loadable (superseded, failed_verify) has nothing to rebuild.
    if (!first || !versions.some((v) => v.status === 'loaded' || v.status === 'failed_load')) return [];
    return [
      {
        exchange: first.exchange,
        symbol: first.symbol,
        sessionDate: first.sessionDate,
        file: first.file,
        relativePath: archivedRelativeOf(first),
        maxBytes: largestRecorded(versions),
        versions,
        manifestRows,
      },
    ];
  });
}

/** The version the archived bytes are, loaded; none of them: the loaded version's bytes are missing (quarantined). */
function judgeRebuild(candidate: RebuildCandidate, found: FoundBytes): Verdict {
  const choice = chooseVersion(candidate.versions, found.sha256);
  if (!choice) return { refuse: 'nothing to rebuild' };
  const rows = choice.rows ?? candidate.manifestRows.get(fileVersionKey(choice));
  if (rows === undefined) return { refuse: `unknown_rows: neither the ledger nor the manifest knows its row count` };
  return expectVersion(choice, found, { rows, downloadedAt: choice.downloadedAt ?? new Date() }, 'the ledger');
}

/** What rebuild reports of a file it did not load: its rows are kept as they are. */
function problemsOfNotLoaded(missed: NotLoaded<RebuildCandidate>): RebuildProblem[] {
  const { candidate, kind, detail } = missed;
  const loaded = candidate.versions.find((v) => v.status === 'loaded');
  if (kind === 'refused') {
    return detail.startsWith('unknown_rows: ')
      ? [problemOf(candidate, 'unknown_rows', `${candidate.relativePath}: ${detail.slice('unknown_rows: '.length)}`)]
      : [];
  }
  // A missing copy of a file never loaded is nothing to rebuild; a link out of the archive is always named.
  if (kind === 'missing' && loaded === undefined) return [];
  const verdict = kind === 'mismatch' ? 'hash_mismatch' : kind;
  return [problemOf(candidate, verdict, `${detail}; its rows are kept as they are`)];
}

/**
 * Pure: the version to rebuild, given the sha256 found in the archive. The archived file may be
 * the loaded version or a newer download that failed to load; otherwise the loaded version is the
 * one we are missing (reported by the caller). Undefined when no version was ever loaded or
 * loadable.
 */
export function chooseVersion(versions: readonly LedgerRow[], archivedSha: string | undefined): LedgerRow | undefined {
  const loaded = versions.find((v) => v.status === 'loaded');
  if (loaded && loaded.sha256 === archivedSha) return loaded;
  const retry = versions.find((v) => v.status === 'failed_load' && v.sha256 === archivedSha);
  if (retry) return retry;
  return loaded;
}

async function manifestRowCounts(conn: DuckDBConnection): Promise<Map<string, number>> {
  const rows = await readRows(conn, `SELECT exchange, symbol, session_date::VARCHAR AS "sessionDate", file, sha256, rows FROM sync.manifest`, [], {
    exchange: text,
    symbol: text,
    sessionDate: text,
    file: text,
    sha256: text,
    rows: num,
  });
  return new Map(rows.map((row) => [fileVersionKey(row), row.rows]));
}

/** Deletes file-sourced rows of sessions with no loaded file of that kind, in one transaction. */
export async function removeOrphanRows(conn: DuckDBConnection): Promise<number> {
  // The table name is one of the fixed file kinds, never input.
  const unexplained = (table: FileKind) => `
    DELETE FROM ${table} AS t
     WHERE NOT EXISTS (SELECT 1 FROM sync.files f
                        WHERE f.status = 'loaded' AND f.file = $1
                          AND f.exchange = t.exchange AND f.symbol = t.symbol AND f.session_date = t.session_date)`;
  return await inTransaction(conn, async () => {
    const levels = await conn.run(`${unexplained('levels')} AND t.source = 'file'`, ['levels']);
    const strikes = await conn.run(unexplained('strikes_total'), ['strikes_total']);
    const byExpiry = await conn.run(unexplained('strikes_by_expiry'), ['strikes_by_expiry']);
    if (levels.rowsChanged > 0) await rebuildSessionCloses(conn);
    return levels.rowsChanged + strikes.rowsChanged + byExpiry.rowsChanged;
  });
}

function byFile(a: RebuildProblem, b: RebuildProblem): number {
  const key = (p: RebuildProblem) => `${p.exchange}|${p.symbol}|${p.session_date}|${p.file}`;
  return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
}

function problemOf(
  file: { exchange: string; symbol: string; sessionDate: string; file: string },
  kind: RebuildProblem['kind'],
  detail: string,
): RebuildProblem {
  return { kind, exchange: file.exchange, symbol: file.symbol, session_date: file.sessionDate, file: file.file, detail };
}
