// The live journal: every snapshot `gexwh capture` takes is written, as the API's JSON received and
// validated, to `<archive>/_live/pending/<exchange>/<symbol>/<as_of>.json` (temp, fsync, rename)
// before the warehouse is touched, so a notebook holding the warehouse never costs a snapshot that
// can never be fetched again. Loading derives the rows with the same pure mapping as a capture,
// inserts them (a capture key already present adds nothing) and then moves the file to
// `_live/loaded/...`, where it is kept like a paid file: `rebuild` recreates the live tables from both
// folders, and `gexwh capture --keep-days N` prunes loaded snapshots older than N days.
import { promises as fs } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { LiveJournalError } from '../core/errors.js';
import { VENUE_PATTERN } from '../core/names.js';
import { ENDPOINT_SCHEMAS, MarketSchema, SymbolSchema } from '../api/schemas.js';
import { writeLiveCapture, type LiveRows, type LiveTable } from '../warehouse/live.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import { liveLevelsRow, liveStrikeRows, termStructureRows, type CaptureKey } from './live-rows.js';
import { refuseFolderLinkOut } from './journal.js';
import { writeDurably } from './durable-write.js';
import { pairKey } from '../core/pairs.js';
import { readFolder } from '../core/archive/walk.js';
import { readJournalFile } from './safe-read.js';

export const LIVE_FOLDER = '_live';

const snapshotSchema = z.object({
  version: z.literal(1),
  key: z.object({ exchange: z.string().regex(VENUE_PATTERN), symbol: SymbolSchema, market: MarketSchema }),
  levels: ENDPOINT_SCHEMAS.levels,
  term: ENDPOINT_SCHEMAS.termOi.nullable(),
  strikes: z.array(z.object({ code: z.string(), response: ENDPOINT_SCHEMAS.gexByStrike })),
});

export type LiveSnapshot = z.infer<typeof snapshotSchema>;
export type SnapshotState = 'pending' | 'loaded';

/** Pure: where a snapshot lives; every part is validated, so nothing a server sends escapes the folder. */
export function snapshotPath(archiveRoot: string, state: SnapshotState, snapshot: Pick<LiveSnapshot, 'key' | 'levels'>): string {
  const { exchange, symbol } = snapshot.key;
  if (!VENUE_PATTERN.test(exchange) || !SymbolSchema.safeParse(symbol).success) throw new LiveJournalError(`unsafe capture key ${exchange}/${symbol}`);
  const asOf = new Date(snapshot.levels.meta.as_of);
  if (Number.isNaN(asOf.getTime())) throw new LiveJournalError(`bad as_of ${snapshot.levels.meta.as_of}`);
  // ':' is not allowed in Windows file names.
  return join(archiveRoot, LIVE_FOLDER, state, exchange, symbol, `${asOf.toISOString().replaceAll(':', '-')}.json`);
}

/** Pure: the rows of the live tables a snapshot holds. */
export function rowsOf(snapshot: LiveSnapshot): LiveRows {
  const key: CaptureKey = snapshot.key;
  return {
    live_levels: [liveLevelsRow(key, snapshot.levels.data, snapshot.levels.meta)],
    term_structure: snapshot.term ? termStructureRows(key, snapshot.term.data, snapshot.term.meta) : [],
    live_strikes: snapshot.strikes.flatMap(({ code, response }) => liveStrikeRows(key, code, response.data, response.meta.timestamp)),
  };
}

/** Writes a snapshot to the pending folder atomically; returns its path. */
export async function journalSnapshot(archiveRoot: string, snapshot: LiveSnapshot): Promise<string> {
  await refuseFolderLinkOut(archiveRoot, LIVE_FOLDER);
  const path = snapshotPath(archiveRoot, 'pending', snapshot);
  await writeDurably(path, `${JSON.stringify(snapshot)}\n`);
  return path;
}

export async function readSnapshot(path: string): Promise<LiveSnapshot> {
  const read = await readJournalFile(path);
  if (!('text' in read)) throw new LiveJournalError('refused' in read ? read.refused : `the snapshot ${path} is gone`);
  let value: unknown;
  try {
    value = JSON.parse(read.text);
  } catch (error) {
    throw new LiveJournalError(`the snapshot ${path} is not readable JSON (${(error as Error).message})`, { cause: error });
  }
  const parsed = snapshotSchema.safeParse(value);
  if (!parsed.success) throw new LiveJournalError(`the snapshot ${path} does not match the API's schemas (${parsed.error.issues[0]?.message ?? 'invalid'})`);
  return parsed.data;
}

/** Snapshot files of one state, oldest first (names are ISO instants); temps are skipped. */
export async function listSnapshots(archiveRoot: string, state: SnapshotState): Promise<string[]> {
  await refuseFolderLinkOut(archiveRoot, LIVE_FOLDER);
  const root = join(archiveRoot, LIVE_FOLDER, state);
  const found: string[] = [];
  for (const exchange of await dirs(root)) {
    for (const symbol of await dirs(join(root, exchange))) {
      for (const entry of await readFolder(join(root, exchange, symbol))) {
        if (entry.isFile() && entry.name.endsWith('.json')) found.push(join(root, exchange, symbol, entry.name));
      }
    }
  }
  return found.sort((a, b) => (basename(a) < basename(b) ? -1 : basename(a) > basename(b) ? 1 : a < b ? -1 : 1));
}

export interface LiveLoad {
  snapshots: number;
  inserted: Record<LiveTable, number>;
  /** Snapshot files that could not be read, left where they are and named. */
  unreadable: string[];
}

/**
 * Loads every pending snapshot in one transaction, then moves the files to `loaded`. A crash after
 * the commit and before a move loads that file again next time, which inserts nothing.
 */
export async function loadLiveJournal(conn: DuckDBConnection, archiveRoot: string): Promise<LiveLoad> {
  const result: LiveLoad = { snapshots: 0, inserted: { live_levels: 0, term_structure: 0, live_strikes: 0 }, unreadable: [] };
  const rows: LiveRows = { live_levels: [], term_structure: [], live_strikes: [] };
  const loaded: { path: string; snapshot: LiveSnapshot }[] = [];
  for (const path of await listSnapshots(archiveRoot, 'pending')) {
    try {
      const snapshot = await readSnapshot(path);
      const more = rowsOf(snapshot);
      rows.live_levels.push(...more.live_levels);
      rows.term_structure.push(...more.term_structure);
      rows.live_strikes.push(...more.live_strikes);
      loaded.push({ path, snapshot });
    } catch (error) {
      if (!(error instanceof LiveJournalError)) throw error;
      result.unreadable.push(path);
    }
  }
  if (loaded.length === 0) return result;
  result.inserted = await writeLiveCapture(conn, rows);
  for (const { path, snapshot } of loaded) {
    const target = snapshotPath(archiveRoot, 'loaded', snapshot);
    await fs.mkdir(dirname(target), { recursive: true });
    await fs.rename(path, target);
  }
  result.snapshots = loaded.length;
  return result;
}

/** Every journaled snapshot's rows (loaded and pending), for `rebuild`. */
export async function allJournaledRows(archiveRoot: string): Promise<{ rows: LiveRows; snapshots: number; unreadable: string[] }> {
  const rows: LiveRows = { live_levels: [], term_structure: [], live_strikes: [] };
  const unreadable: string[] = [];
  let snapshots = 0;
  for (const state of ['loaded', 'pending'] as const) {
    for (const path of await listSnapshots(archiveRoot, state)) {
      try {
        const more = rowsOf(await readSnapshot(path));
        rows.live_levels.push(...more.live_levels);
        rows.term_structure.push(...more.term_structure);
        rows.live_strikes.push(...more.live_strikes);
        snapshots++;
      } catch (error) {
        if (!(error instanceof LiveJournalError)) throw error;
        unreadable.push(path);
      }
    }
  }
  return { rows, snapshots, unreadable };
}

/** Deletes loaded snapshots whose as_of is older than `days` before `now`; returns how many. */
export async function pruneLoadedSnapshots(archiveRoot: string, days: number, now: Date = new Date()): Promise<number> {
  const cutoff = now.getTime() - days * 24 * 3600 * 1000;
  let removed = 0;
  for (const path of await listSnapshots(archiveRoot, 'loaded')) {
    const asOf = Date.parse(
      basename(path)
        .replace(/\.json$/, '')
        .replace(/T(\d{2})-(\d{2})-(\d{2})/, 'T$1:$2:$3'),
    );
    if (Number.isFinite(asOf) && asOf < cutoff) {
      await fs.rm(path, { force: true });
      removed++;
    }
  }
  return removed;
}

/** as_of of the newest term-structure snapshot per `exchange|symbol` still pending (a capture must not repeat a held close). */
export async function pendingTermCaptures(archiveRoot: string): Promise<Map<string, string>> {
  const latest = new Map<string, string>();
  for (const path of await listSnapshots(archiveRoot, 'pending')) {
    const snapshot = await readSnapshot(path).catch(() => undefined);
    if (!snapshot?.term) continue;
    const key = pairKey(snapshot.key);
    const asOf = new Date(snapshot.levels.meta.as_of).toISOString();
    if ((latest.get(key) ?? '') < asOf) latest.set(key, asOf);
  }
  return latest;
}

function basename(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}

async function dirs(folder: string): Promise<string[]> {
  return (await readFolder(folder)).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
}
