// `gexwh rebuild` when there is no readable warehouse (missing, or damaged: DuckDB refuses the file):
// the warehouse is recreated from the raw archive alone. A damaged file is never deleted: it is
// renamed aside with its WAL. Every archived file is hashed and its rows counted (no manifest to ask),
// then loaded by the ordinary loader, which records `loaded` ledger rows with the sha256 computed
// here: the next sync re-lists the free manifests, finds those sha256 loaded and downloads nothing.
import { promises as fs } from 'node:fs';
import { resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import pLimit from 'p-limit';
import { recordFileStatus } from './ledger.js';
import { loadFiles, type LoadInput } from './loader.js';
import { openWarehouse } from './open.js';
import { finishRun, startRun } from './runs.js';
import { errorMessage } from '../core/errors.js';
import { type ArchivedFile, scanArchive } from '../core/archive/walk.js';
import { countGzipCsvRows } from '../core/archive/row-count.js';
import { hashFile } from '../core/archive/hash.js';
import type { RebuildProblem, RebuildResult } from './rebuild-result.js';

/** Files hashed and counted at once: both stream, so a few overlap disk reads with zlib work. */
const DIGEST_CONCURRENCY = 4;

/** Pure: `20261122T101500Z`, the UTC moment in a file name. */
export function compactUtcStamp(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '');
}

/**
 * Renames the damaged file to `<db>.damaged-<UTC stamp>` (a `-2`, `-3`... suffix if taken), and its
 * WAL next to it as `<that>.wal` so the kept copy stays a consistent pair. Returns the kept paths.
 */
export async function setAsideDamaged(dbPath: string, at: Date): Promise<string[]> {
  const db = resolve(dbPath);
  const target = await freeName(`${db}.damaged-${compactUtcStamp(at)}`);
  await fs.rename(db, target);
  const kept = [target];
  if (await exists(`${db}.wal`)) {
    await fs.rename(`${db}.wal`, `${target}.wal`);
    kept.push(`${target}.wal`);
  }
  return kept;
}

async function freeName(base: string): Promise<string> {
  for (let n = 1; ; n += 1) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    if (!(await exists(candidate)) && !(await exists(`${candidate}.wal`))) return candidate;
  }
}

async function exists(path: string): Promise<boolean> {
  return fs.lstat(path).then(
    () => true,
    () => false,
  );
}

export interface ArchiveRebuildOptions {
  dbPath: string;
  archiveRoot: string;
  now: () => Date;
  /** Paths the damaged warehouse was kept under (reported as is). */
  damagedCopies: string[];
}

/** Creates a fresh warehouse at dbPath (which must not exist) and loads the whole archive into it. */
export async function rebuildFromArchive(options: ArchiveRebuildOptions): Promise<RebuildResult> {
  const warehouse = await openWarehouse(options.dbPath);
  try {
    return await rebuildFromArchiveOn(warehouse.connection, options);
  } finally {
    warehouse.close();
  }
}

async function rebuildFromArchiveOn(conn: DuckDBConnection, options: ArchiveRebuildOptions): Promise<RebuildResult> {
  const { now } = options;
  const runId = await startRun(conn, { command: 'rebuild', options: { archive: resolve(options.archiveRoot), from: 'archive' }, startedAt: now() });
  try {
    const scan = await scanArchive(options.archiveRoot);
    const digested = await digestAll(scan.files);
    const problems: RebuildProblem[] = [];
    const inputs: LoadInput[] = [];
    for (const item of digested) {
      if ('input' in item) inputs.push(item.input);
      else problems.push(await recordUnreadable(conn, item, now()));
    }
    const report = await loadFiles(conn, inputs, { now });
    problems.push(...report.failed.map(({ input, error }) => problemOf(input, error)));
    await finishRun(conn, runId, {
      outcome: problems.length > 0 ? 'partial' : 'ok',
      filesPlanned: scan.files.length,
      filesLoaded: report.loaded.length,
      filesFailed: problems.length,
      rowsLoaded: report.rowsLoaded,
      finishedAt: now(),
    });
    return {
      source: 'archive',
      filesReloaded: report.loaded.length,
      rowsLoaded: report.rowsLoaded,
      orphanRowsRemoved: 0,
      problems,
      runId,
      damagedCopies: options.damagedCopies,
      skipped: scan.strays,
    };
  } catch (error) {
    await finishRun(conn, runId, { outcome: 'failed', error: errorMessage(error), finishedAt: now() }).catch(() => undefined);
    throw error;
  }
}

/** A file whose sha256 is known but whose rows could not be counted (a broken gzip). */
interface Unreadable {
  file: ArchivedFile;
  digest: { sha256: string; bytes: number; mtime: Date } | undefined;
  error: string;
}

type Digested = { input: LoadInput } | Unreadable;

async function digestAll(files: readonly ArchivedFile[]): Promise<Digested[]> {
  const limit = pLimit(DIGEST_CONCURRENCY);
  return Promise.all(files.map((file) => limit(() => digest(file))));
}

/** sha256 and size (as the API's manifest states them), then the rows, counted by a second read. */
async function digest(file: ArchivedFile): Promise<Digested> {
  let found: Unreadable['digest'];
  try {
    const hashed = await hashFile(file.path);
    if (!hashed) throw new Error('vanished during the rebuild');
    found = { ...hashed, mtime: (await fs.stat(file.path)).mtime };
    const rows = await countGzipCsvRows(file.path);
    return { input: loadInputOf(file, found, rows) };
  } catch (error) {
    return { file, digest: found, error: `${file.path}: cannot be read: ${errorMessage(error)}` };
  }
}

function loadInputOf(file: ArchivedFile, found: { sha256: string; bytes: number; mtime: Date }, rows: number): LoadInput {
  return {
    exchange: file.exchange,
    symbol: file.symbol,
    sessionDate: file.sessionDate,
    file: file.file,
    sha256: found.sha256,
    path: file.path,
    bytes: found.bytes,
    rows,
    archivePath: file.path,
    // When the file was archived, the best knowledge left of when it was downloaded.
    downloadedAt: found.mtime,
  };
}

/** Reports the file and, when its sha256 is known, records it failed_load like a loader failure. */
async function recordUnreadable(conn: DuckDBConnection, item: Unreadable, at: Date): Promise<RebuildProblem> {
  if (item.digest) {
    const { sha256, bytes, mtime } = item.digest;
    await recordFileStatus(conn, { ...item.file, sha256, bytes, archivePath: item.file.path, downloadedAt: mtime }, 'failed_load', item.error, at);
  }
  return problemOf(item.file, item.error);
}

function problemOf(file: { exchange: string; symbol: string; sessionDate: string; file: string }, detail: string): RebuildProblem {
  return { kind: 'load_failed', exchange: file.exchange, symbol: file.symbol, session_date: file.sessionDate, file: file.file, detail };
}
