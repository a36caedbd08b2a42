// Where a sync reads the state it plans from, so that another process holding the warehouse never
// stops the remote part (list, plan, download, verify, archive):
// - 'warehouse': the warehouse opened read-write for a short phase (the usual case);
// - 'copy': another process has it READ_ONLY (a notebook, DBeaver): the sync tables are copied into
//   memory through a READ_ONLY attach, which DuckDB allows beside other readers;
// - 'archive': another process has it read-write, so nothing can be read: the plan starts from an
//   empty state, each manifest is listed from the newest session the archive holds, and the archive
//   itself says what was paid (a file archived with the manifest's sha256 costs no credit).
// Only 'warehouse' writes the warehouse; the other modes leave their work in the journal.
import type { DuckDBConnection } from '@duckdb/node-api';
import { LockError } from '../core/errors.js';
import {
  openWarehouse,
  readListingState,
  recordListing,
  startRun,
  upsertCoverage,
  upsertManifest,
  type ListingState,
} from '../warehouse/index.js';
import { copySyncState, emptyStateCopy, type StateCopy } from '../warehouse/snapshot.js';
import { readJournal } from './journal.js';
import { applyJournal, holderPidOf, nothingApplied, type AppliedJournal } from './load-pending.js';
import { type Pair, pairKey } from '../core/pairs.js';
import type { CoverageRow } from '../core/rows.js';
import { listArchivedFiles } from '../core/archive/walk.js';

export type StateMode = 'warehouse' | 'copy' | 'archive';

export interface SyncState {
  mode: StateMode;
  /** The run's row in sync.runs, when the warehouse could be written at the start. */
  runId?: number;
  /** How much of each pair's manifest is held, by `exchange|symbol`. */
  held: Map<string, ListingState>;
  /** What the start loaded from the journal (a previous run's waiting files). */
  waiting: AppliedJournal;
  /** The pid DuckDB named as the holder, once the warehouse was found held. */
  holderPid?: number;
  /** The in-memory copy planned on in modes 'copy' and 'archive'. */
  copy?: StateCopy;
}

export interface BeginOptions {
  dbPath: string;
  archiveRoot: string;
  command: string;
  recordedOptions: Record<string, unknown>;
  startedAt: Date;
  pairs: Pair[];
  coverage: CoverageRow[];
}

/** Phase 1: load what the journal holds, open the run record, read the listing state; never waits. */
export async function beginSyncState(options: BeginOptions, warn: (message: string) => void): Promise<SyncState> {
  let warehouse;
  try {
    warehouse = await openWarehouse(options.dbPath);
  } catch (error) {
    if (!(error instanceof LockError)) throw error;
    return await fallBack(options, holderPidOf(error), warn);
  }
  try {
    const conn = warehouse.connection;
    const waiting = await applyJournal(conn, options.archiveRoot);
    const runId = await startRun(conn, { command: options.command, options: options.recordedOptions, startedAt: options.startedAt });
    await upsertCoverage(conn, options.coverage, new Date());
    return { mode: 'warehouse', runId, held: await listingStates(conn, options.pairs), waiting };
  } finally {
    warehouse.close();
  }
}

/**
 * The warehouse was found held (at the start or before planning): plan on a copy of its sync state,
 * or, when even a READ_ONLY attach is refused, from the archive alone.
 */
export async function fallBack(options: Pick<BeginOptions, 'dbPath' | 'archiveRoot' | 'pairs'>, pid: number | undefined, warn: (message: string) => void, runId?: number): Promise<SyncState> {
  const holder = pid === undefined ? 'another process' : `process ${pid}`;
  const base = { waiting: nothingApplied(), ...(pid !== undefined ? { holderPid: pid } : {}), ...(runId !== undefined ? { runId } : {}) };
  try {
    const copy = await copySyncState(options.dbPath);
    await addJournaledManifests(copy.connection, options.archiveRoot);
    warn(`the warehouse is held by ${holder}: planning from a read-only copy of its state; the load waits for it (--wait-lock)`);
    return { ...base, mode: 'copy', copy, held: await listingStates(copy.connection, options.pairs) };
  } catch (error) {
    if (!(error instanceof LockError)) throw error;
  }
  const copy = await emptyStateCopy();
  await addJournaledManifests(copy.connection, options.archiveRoot);
  warn(
    `the warehouse is held read-write by ${holder}, so not even its state can be read: planning from the archive ` +
      `(archived files are never paid again; files deferred by earlier runs wait for a run that can read the warehouse)`,
  );
  return { ...base, mode: 'archive', copy, held: await archivedListingStates(options.archiveRoot, options.pairs) };
}

async function listingStates(conn: DuckDBConnection, pairs: Pair[]): Promise<Map<string, ListingState>> {
  const states = new Map<string, ListingState>();
  for (const pair of pairs) states.set(pairKey(pair), await readListingState(conn, pair.exchange, pair.symbol));
  return states;
}

/** Manifests a previous held-out run listed are part of the state the plan must see. */
async function addJournaledManifests(conn: DuckDBConnection, archiveRoot: string): Promise<void> {
  const journal = await readJournal(archiveRoot);
  for (const listing of journal.listings) {
    await upsertManifest(conn, listing.exchange, listing.symbol, listing.rows, listing.listedAt);
    if (listing.completeFrom !== undefined) await recordListing(conn, listing.exchange, listing.symbol, listing.completeFrom, new Date(listing.listedAt));
  }
}

/**
 * With no readable warehouse, each pair's manifest is listed from the newest session the archive
 * holds (files are archived only after their manifest rows were stored, so nothing newer is missed).
 */
async function archivedListingStates(archiveRoot: string, pairs: Pair[]): Promise<Map<string, ListingState>> {
  const newest = new Map<string, string>();
  for (const file of await listArchivedFiles(archiveRoot)) {
    const key = pairKey(file);
    if ((newest.get(key) ?? '') < file.sessionDate) newest.set(key, file.sessionDate);
  }
  const states = new Map<string, ListingState>();
  for (const pair of pairs) {
    const key = pairKey(pair);
    states.set(key, { newestStored: newest.get(key) ?? null, completeFrom: null });
  }
  return states;
}
