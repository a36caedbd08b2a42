// Every load of bytes that did not just come off the wire (the journal, a sync's reloads and reused
// copies, verify --repair, rebuild) goes through here: each file is pinned (opened inside the archive
// and hashed through the descriptor the loader then reads: core/archive/pin.ts), the caller judges
// the digest against the manifest's or the ledger's sha256, and only what it accepts is loaded, with
// the sha256 of the bytes actually read. A file whose bytes are not its version's is never loaded:
// it moves to <archive>/_quarantine with a note. Files are pinned a chunk at a time, so a rebuild of
// a long history holds a bounded number of descriptors (or private copies).
import type { DuckDBConnection } from '@duckdb/node-api';
import pLimit from 'p-limit';
import { FILE_KINDS } from '../core/file-kinds.js';
import { errorMessage } from '../core/errors.js';
import type { FileKeyParts } from '../core/pairs.js';
import { pinArchived, type PinMode, type PinnedFile } from '../core/archive/pin.js';
import { quarantineFile } from '../core/archive/quarantine.js';
import { configurationLocked } from './keep-memory.js';
import { readOne, text } from './read-rows.js';
import { loadFiles, type LoadInput, type LoadOptions, type LoadReport } from './loader.js';

export interface ArchivedCandidate extends FileKeyParts {
  /** Relative to the archive root: the plain name or a pending version's name. */
  relativePath: string;
  /**
   * The most its bytes may be (the size the manifest, ledger or journal records; the largest of them
   * when several versions may be there): a larger file is quarantined unread. Unknown: the pin's cap.
   */
  maxBytes?: number | undefined;
}

export interface FoundBytes {
  sha256: string;
  bytes: number;
  /** What the loader will read (for a caller that must read it too, e.g. to count rows). */
  readPath: string;
}

/** Why a candidate was not loaded, for the caller's report. */
export interface NotLoaded<C> {
  candidate: C;
  kind: 'missing' | 'outside_archive' | 'unreadable' | 'mismatch' | 'refused';
  detail: string;
  /** Where a mismatching file was moved. */
  quarantinedAt?: string;
}

/** What the loader needs beyond the bytes found: the rows the file must hold, when it was downloaded. */
export interface LoadFacts {
  rows: number;
  downloadedAt: Date | string;
}

/** The caller's verdict on the bytes found: load them (their sha256 and size are recorded), or not (quarantined on a mismatch). */
export type Verdict = { load: LoadFacts } | { mismatch: string; expectedSha256: string | null } | { refuse: string };

export interface ArchivedLoadOptions extends LoadOptions {
  /** The command, for the quarantine note. */
  command: string;
  pinMode?: PinMode;
  /** Files pinned at once (default 32, the loader's batch). */
  chunkSize?: number;
}

export interface ArchivedLoadReport<C> extends LoadReport {
  notLoaded: NotLoaded<C>[];
  /** The candidate of each loaded or failed input (by input). */
  candidateOf: Map<LoadInput, C>;
}

const PIN_CONCURRENCY = 4;

export async function loadArchived<C extends ArchivedCandidate>(
  conn: DuckDBConnection,
  root: string,
  candidates: readonly C[],
  judge: (candidate: C, found: FoundBytes) => Verdict | Promise<Verdict>,
  options: ArchivedLoadOptions,
): Promise<ArchivedLoadReport<C>> {
  const report: ArchivedLoadReport<C> = { loaded: [], skipped: [], failed: [], held: [], warnings: [], rowsLoaded: 0, notLoaded: [], candidateOf: new Map() };
  let done = 0;
  const pinning = { ...options, copyBase: await copyBaseOf(conn) };
  for (const chunk of chunksOf(byKind(candidates), options.chunkSize ?? 32)) {
    // A stop signal ends the load between chunks (the loader ends it within a chunk).
    if (options.signal?.aborted) {
      report.stopped = true;
      break;
    }
    const pins: PinnedFile[] = [];
    try {
      const inputs = await pinChunk(root, chunk, judge, pinning, report, pins);
      const onProgress = (filesDone: number) => options.onProgress?.(done + filesDone + (chunk.length - inputs.length));
      const loaded = await loadFiles(conn, inputs, { ...options, onProgress });
      merge(report, loaded);
      done += chunk.length;
    } finally {
      await Promise.all(pins.map((pin) => pin.release()));
    }
  }
  return report;
}

/**
 * Where private copies go (where the platform has no /proc/self/fd): a sandboxed writer's DuckDB reads
 * no file outside the archive but its own private temp folder (0700, removed on close), so there.
 */
async function copyBaseOf(conn: DuckDBConnection): Promise<string | undefined> {
  if (!(await configurationLocked(conn))) return undefined;
  return (await readOne(conn, `SELECT current_setting('temp_directory') AS folder`, [], { folder: text })).folder;
}

/** Pins every file of a chunk and judges it; returns the loader's inputs, pinned files in `pins`. */
async function pinChunk<C extends ArchivedCandidate>(
  root: string,
  chunk: readonly C[],
  judge: (candidate: C, found: FoundBytes) => Verdict | Promise<Verdict>,
  options: ArchivedLoadOptions & { copyBase: string | undefined },
  report: ArchivedLoadReport<C>,
  pins: PinnedFile[],
): Promise<LoadInput[]> {
  const limit = pLimit(PIN_CONCURRENCY);
  // Pinned and judged a few at a time (a judge may read the file too: rebuild counts its rows).
  const judged = await Promise.all(
    chunk.map((candidate) =>
      limit(async () => {
        const outcome = await pinArchived(root, candidate.relativePath, options.pinMode, options.copyBase, { maxBytes: candidate.maxBytes });
        if (outcome.kind === 'pinned') pins.push(outcome.file);
        return { candidate, outcome, verdict: outcome.kind === 'pinned' ? await judge(candidate, outcome.file) : undefined };
      }),
    ),
  );
  const inputs: LoadInput[] = [];
  for (const { candidate, outcome, verdict } of judged) {
    if (outcome.kind === 'oversized' && outcome.recorded) {
      // What a read would have ended in (not the version recorded), without the read.
      const mismatch = `${outcome.bytes} bytes, more than the ${outcome.maxBytes} bytes recorded for it (not read)`;
      report.notLoaded.push(await quarantine(root, candidate, { ...outcome, sha256: null }, { mismatch, expectedSha256: null }, options.command));
      continue;
    }
    if (outcome.kind !== 'pinned' || verdict === undefined) {
      if (outcome.kind !== 'pinned') report.notLoaded.push(notPinned(candidate, outcome));
      continue;
    }
    if ('load' in verdict) {
      const { sha256, bytes, readPath, path } = outcome.file;
      const input: LoadInput = { ...keyOf(candidate), ...verdict.load, sha256, bytes, path: readPath, archivePath: candidate.relativePath, source: path };
      report.candidateOf.set(input, candidate);
      inputs.push(input);
    } else if ('refuse' in verdict) {
      report.notLoaded.push({ candidate, kind: 'refused', detail: verdict.refuse });
    } else {
      await outcome.file.release();
      report.notLoaded.push(await quarantine(root, candidate, outcome.file, verdict, options.command));
    }
  }
  return inputs;
}

function notPinned<C extends ArchivedCandidate>(candidate: C, outcome: Exclude<Awaited<ReturnType<typeof pinArchived>>, { kind: 'pinned' }>): NotLoaded<C> {
  if (outcome.kind === 'missing') return { candidate, kind: 'missing', detail: `${outcome.path} is missing` };
  if (outcome.kind === 'refused') return { candidate, kind: 'outside_archive', detail: outcome.reason };
  if (outcome.kind === 'oversized') return { candidate, kind: 'unreadable', detail: outcome.reason };
  return { candidate, kind: 'unreadable', detail: `${outcome.path} cannot be read: ${outcome.reason}` };
}

async function quarantine<C extends ArchivedCandidate>(
  root: string,
  candidate: C,
  found: { path: string; sha256: string | null; bytes: number },
  verdict: { mismatch: string; expectedSha256: string | null },
  command: string,
): Promise<NotLoaded<C>> {
  const note = { reason: verdict.mismatch, expectedSha256: verdict.expectedSha256, foundSha256: found.sha256, foundBytes: found.bytes, command };
  let movedTo: string | undefined;
  let where: string;
  try {
    movedTo = await quarantineFile(root, candidate.relativePath, note);
    where = movedTo === undefined ? 'it has gone from the archive since' : `moved to ${movedTo}`;
  } catch (error) {
    where = `left where it is (${errorMessage(error)})`;
  }
  return {
    candidate,
    kind: 'mismatch',
    detail: `${found.path}: ${verdict.mismatch}; not loaded, ${where}`,
    ...(movedTo !== undefined ? { quarantinedAt: movedTo } : {}),
  };
}

function keyOf(key: FileKeyParts): FileKeyParts {
  return { exchange: key.exchange, symbol: key.symbol, sessionDate: key.sessionDate, file: key.file };
}

/** Stable: one kind's files stay in their order (two versions of a file load in the order given). */
function byKind<C extends FileKeyParts>(candidates: readonly C[]): C[] {
  return FILE_KINDS.flatMap((kind) => candidates.filter((c) => c.file === kind));
}

function chunksOf<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += Math.max(1, size)) chunks.push(items.slice(i, i + Math.max(1, size)));
  return chunks;
}

function merge(into: LoadReport, from: LoadReport): void {
  into.loaded.push(...from.loaded);
  into.skipped.push(...from.skipped);
  into.failed.push(...from.failed);
  into.held.push(...from.held);
  into.rowsLoaded += from.rowsLoaded;
  if (from.stopped) into.stopped = true;
  // The loader names an unknown column once per call: once per report here.
  const seen = new Set(into.warnings.map(warningKey));
  for (const warning of from.warnings) if (!seen.has(warningKey(warning))) into.warnings.push(warning);
}

function warningKey(warning: string): string {
  return warning.split('; first seen in ')[0] ?? warning;
}

/** The usual verdict: the bytes must be `expected` (the manifest's or the ledger's version); then they load as it. */
export function expectVersion(expected: { sha256: string; bytes: number | null }, found: FoundBytes, load: LoadFacts, whose: string): Verdict {
  if (found.sha256 === expected.sha256 && (expected.bytes === null || found.bytes === expected.bytes)) return { load };
  return {
    mismatch: `sha256 ${found.sha256} (${found.bytes} bytes), ${whose} says ${expected.sha256}${expected.bytes === null ? '' : ` (${expected.bytes} bytes)`}`,
    expectedSha256: expected.sha256,
  };
}
