// `gexwh rebuild` when there is no readable warehouse (missing, or damaged: DuckDB refuses the file):
// the warehouse is recreated from the raw archive alone. A damaged file is never deleted: it is
// renamed aside with its WAL. Every archived file is pinned (hashed through the descriptor the loader
// then reads) and its rows counted from that same file (no manifest to ask), then loaded by the
// ordinary loader, which records `loaded` ledger rows with the sha256 of the bytes read: the next sync
// re-lists the free manifests, finds those sha256 loaded and downloads nothing. A link out of the
// archive is never followed: it is a problem of the rebuild, named, like a file that cannot be read.
import { promises as fs } from 'node:fs';
import { relative, resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { OnProgress } from '../core/progress.js';
import { recordFileStatus } from './ledger.js';
import { loadArchived, type ArchivedCandidate, type FoundBytes, type Verdict } from './archived-load.js';
import { openWriter } from './open-writer.js';
import { finishRun, startRun } from './runs.js';
import { errorMessage } from '../core/errors.js';
import { type ArchivedFile, scanArchive } from '../core/archive/walk.js';
import { countGzipCsvRows } from '../core/archive/row-count.js';
import { parseArchivePath } from '../core/archive/layout.js';
import type { RebuildProblem, RebuildResult } from './rebuild-result.js';

/** Pure: `20261122T101500Z`, the UTC moment in a file name. */
export function compactUtcStamp(at: Date): string {
  return at
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
}

/**
 * Renames the damaged file to `<db>.damaged-<UTC stamp>` (a `-2`, `-3`... suffix if taken), and its
 * WAL next to it as `<that>.wal` so the kept copy stays a consistent pair. Returns the kept paths.
 */
export async function setAsideDamaged(dbPath: string, at: Date, label: 'damaged' | 'replaced' = 'damaged'): Promise<string[]> {
  const db = resolve(dbPath);
  const target = await freeName(`${db}.${label}-${compactUtcStamp(at)}`);
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
  /** The file kept aside was not a warehouse of gexwh, replaced on --force. */
  replaced?: boolean;
  /** Told as files are loaded (files done of those archived). */
  onProgress?: OnProgress;
}

/** Creates a fresh warehouse at dbPath (which must not exist) and loads the whole archive into it. */
export async function rebuildFromArchive(options: ArchiveRebuildOptions): Promise<RebuildResult> {
  const warehouse = await openWriter(options.dbPath, options.archiveRoot);
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
    const candidates = await Promise.all(scan.files.map((file) => candidateOf(options.archiveRoot, file)));
    const report = await loadArchived(conn, options.archiveRoot, candidates, countRows, {
      now,
      command: 'gexwh rebuild (from the archive alone)',
      onProgress: (done) => options.onProgress?.(done, candidates.length),
    });
    const problems: RebuildProblem[] = scan.refused.map((link) => linkProblem(options.archiveRoot, link));
    for (const missed of report.notLoaded) problems.push(await recordUnreadable(conn, missed.candidate, missed.detail, now()));
    problems.push(...report.failed.map(({ input, error }) => problemOf(input, error)));
    await finishRun(conn, runId, {
      outcome: problems.length > 0 ? 'partial' : 'ok',
      filesPlanned: scan.files.length + scan.refused.length,
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
      ...(options.replaced ? { replaced: true } : {}),
      skipped: scan.strays,
    };
  } catch (error) {
    await finishRun(conn, runId, { outcome: 'failed', error: errorMessage(error), finishedAt: now() }).catch(() => undefined);
    throw error;
  }
}

/** An archived file to load; `digest` keeps the bytes found, for a failed_load row when they cannot be counted. */
interface ArchiveCandidate extends ArchivedCandidate {
  /** Where it is, as the walk named it. */
  path: string;
  mtime: Date | undefined;
  digest?: FoundBytes;
}

async function candidateOf(root: string, file: ArchivedFile): Promise<ArchiveCandidate> {
  const stat = await fs.stat(file.path).catch(() => undefined);
  return {
    exchange: file.exchange,
    symbol: file.symbol,
    sessionDate: file.sessionDate,
    file: file.file,
    relativePath: relative(root, file.path),
    path: file.path,
    mtime: stat?.mtime,
  };
}

/** Any bytes load (there is no manifest to match): their rows are counted from the file the loader reads. */
async function countRows(candidate: ArchiveCandidate, found: FoundBytes): Promise<Verdict> {
  candidate.digest = found;
  try {
    // When the file was archived: the best knowledge left of when it was downloaded.
    return { load: { rows: await countGzipCsvRows(found.readPath), downloadedAt: candidate.mtime ?? new Date() } };
  } catch (error) {
    return { refuse: `cannot be read: ${errorMessage(error)}` };
  }
}

/** Reports the file and, when its sha256 is known, records it failed_load like a loader failure. */
async function recordUnreadable(conn: DuckDBConnection, candidate: ArchiveCandidate, detail: string, at: Date): Promise<RebuildProblem> {
  const error = detail.startsWith('cannot be read') ? `${candidate.path}: ${detail}` : detail;
  if (candidate.digest) {
    const { sha256, bytes } = candidate.digest;
    await recordFileStatus(
      conn,
      { ...candidate, sha256, bytes, archivePath: candidate.relativePath, downloadedAt: candidate.mtime ?? null },
      'failed_load',
      error,
      at,
    );
  }
  return problemOf(candidate, error);
}

/** A link in the archive that leads out of it: named, never followed (the file it stands for is not loaded). */
function linkProblem(root: string, link: { path: string; reason: string }): RebuildProblem {
  const inArchive = relative(root, link.path);
  const key = parseArchivePath(inArchive);
  const [exchange = '', symbol = ''] = inArchive.split(/[\\/]/);
  return {
    kind: 'outside_archive',
    exchange,
    symbol,
    session_date: key?.sessionDate ?? '',
    file: key?.file ?? '',
    detail: `${link.reason}; the file is not in the warehouse`,
  };
}

function problemOf(file: { exchange: string; symbol: string; sessionDate: string; file: string }, detail: string): RebuildProblem {
  return { kind: 'load_failed', exchange: file.exchange, symbol: file.symbol, session_date: file.sessionDate, file: file.file, detail };
}
