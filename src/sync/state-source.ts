// The one storage a sync reads its state from and writes to, chosen when the run starts, so that
// another process holding the warehouse never stops the remote part (list, plan, download, verify,
// archive):
// - 'warehouse': the warehouse opened read-write (the usual case);
// - 'copy': another process has it READ_ONLY (a notebook, DBeaver): the sync tables are copied into
//   memory through a READ_ONLY attach, which DuckDB allows beside other readers;
// - 'archive': another process has it read-write, so nothing can be read: the plan starts from an
//   empty state, each manifest is listed from the newest session the archive holds and before the
//   oldest (what earlier budgets deferred), and the archive itself says what was paid (a file
//   archived with the manifest's sha256 costs no credit).
// - 'none': a plan where no warehouse exists yet: it plans from an empty state and the archive, and
//   writes nothing anywhere (a read-only command never creates a warehouse).
// Only 'warehouse' writes the warehouse before the load; the other modes leave their work in the
// journal. The warehouse stays open from phase to phase unless a long network phase comes (the
// caller releases it first), so a sync with nothing to fetch opens it once.
import { resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { LockError } from '../core/errors.js';
import { openWriter, readListingStates, startRun, storeListings, upsertCoverage, type Listed, type ListingState, type Warehouse } from '../warehouse/index.js';
import { copySyncState, emptyStateCopy, type StateCopy } from '../warehouse/snapshot.js';
import { readJournal } from '../journal/journal.js';
import { applyJournal, holderPidOf, nothingApplied, openWaiting, type AppliedJournal, type JournalCheck } from '../journal/load-pending.js';
import { definedOnly } from '../core/defined.js';
import { adoptAndRead, type QuotaSeen } from '../journal/spend-log.js';
import { type Pair, pairKey } from '../core/pairs.js';
import type { CoverageRow } from '../core/rows.js';
import type { SchemaContract } from '../warehouse/index.js';
import { listArchivedFiles, type ArchivedFile } from '../core/archive/walk.js';
import { addDays } from '../time/dates.js';
import { FILE_KINDS } from './selection.js';

export type StateMode = 'warehouse' | 'copy' | 'archive' | 'none';

export interface BeginOptions {
  dbPath: string;
  archiveRoot: string;
  command: string;
  recordedOptions: Record<string, unknown>;
  startedAt: Date;
  pairs: Pair[];
  coverage: CoverageRow[];
  schemaContract?: SchemaContract;
  /** A plan with no warehouse at dbPath: plan from an empty state, create and write nothing. */
  absent?: boolean;
  /** The file credits `/me` says are left now: a stopped run's unread charges are reconciled from it. */
  quotaNow?: QuotaSeen;
  /** How the journal's claims are checked before its load (the API's manifest). */
  journalCheck: JournalCheck;
}

export interface SyncStore {
  readonly mode: StateMode;
  /** The run's row in sync.runs, when the warehouse could be written at the start. */
  readonly runId: number | undefined;
  /** How much of each pair's manifest is held, by `exchange|symbol`. */
  readonly held: ReadonlyMap<string, ListingState>;
  /** What the start loaded from the journal (earlier runs' waiting files). */
  readonly waiting: AppliedJournal;
  /** The pid DuckDB named as the holder, once the warehouse was found held. */
  readonly holderPid: number | undefined;
  /** Where to plan: the warehouse (opened again if released; a copy if it was taken meanwhile) or the copy. */
  planConnection(warn: (message: string) => void): Promise<DuckDBConnection>;
  /**
   * The warehouse for the load and the run record, waiting up to `waitSeconds` (a stop signal ends
   * the wait); the holder's pid when it stays held.
   */
  writer(waitSeconds: number, signal: AbortSignal): Promise<{ conn: DuckDBConnection } | { heldBy: number | undefined }>;
  /** Closes the warehouse before a long network phase; the next use opens it again. */
  release(): void;
  close(): void;
}

/**
 * Phase 1: the storage of this run, over the state read at its start (the journal read once, as
 * stopped runs are closed): in 'warehouse' mode the journal is loaded, the run and coverage recorded.
 */
export async function openStore(options: BeginOptions, warn: (message: string) => void): Promise<SyncStore> {
  const state = await startState(options, warn);
  return storeOf(options, state);
}

/**
 * What a run starts from, read in one step: the warehouse opened for writing, or the state beside
 * it; how much of each manifest is held (or, with neither the warehouse nor its copy readable, the
 * archive's files, which say it); what the journal's load did.
 */
interface StartState {
  /** Open for writing ('warehouse' mode); undefined when the plan reads `beside`. */
  warehouse?: Warehouse;
  beside?: Beside;
  held?: Map<string, ListingState>;
  archived?: ArchivedFile[];
  runId: number | undefined;
  waiting: AppliedJournal;
}

async function startState(options: BeginOptions, warn: (message: string) => void): Promise<StartState> {
  if (options.absent === true) return besideState(options, (await readJournal(options.archiveRoot)).listings, 'absent', warn);
  const { adopted, journal } = await adoptAndRead(options.archiveRoot, options.quotaNow);
  if (adopted.note !== undefined) warn(adopted.note);
  if (adopted.files > 0 || adopted.credits > 0) {
    warn(
      `a run stopped before it finished left ${adopted.files} paid file(s) (${adopted.credits} credit(s) recorded): they wait in the journal and load for 0 credits`,
    );
  }
  let warehouse: Warehouse;
  try {
    warehouse = await openWriter(options.dbPath, options.archiveRoot);
  } catch (error) {
    if (!(error instanceof LockError)) throw error;
    return besideState(options, journal.journal.listings, { pid: holderPidOf(error) }, warn);
  }
  try {
    const conn = warehouse.connection;
    const waiting = await applyJournal(conn, options.archiveRoot, {
      check: options.journalCheck,
      read: journal,
      ...definedOnly({ schemaContract: options.schemaContract }),
    });
    const runId = await startRun(conn, { command: options.command, options: options.recordedOptions, startedAt: options.startedAt });
    await upsertCoverage(conn, options.coverage, new Date());
    return { warehouse, runId, held: await readListingStates(conn, options.pairs), waiting };
  } catch (error) {
    warehouse.close();
    throw error;
  }
}

/**
 * The one storage interface over the start state. The warehouse stays open until released; taken by
 * another process since the start, the plan reads a copy of its state and the load waits for it.
 */
function storeOf(options: BeginOptions, state: StartState): SyncStore {
  let open = state.warehouse;
  let copy = state.beside;
  const reopen = async (waitSeconds: number, signal?: AbortSignal) => (open ??= await openWaiting(options, waitSeconds, signal));
  return {
    get mode() {
      return copy?.mode ?? 'warehouse';
    },
    runId: state.runId,
    held: state.held ?? archivedListingStates(state.archived ?? [], options.pairs),
    waiting: state.waiting,
    get holderPid() {
      return copy?.holderPid;
    },
    async planConnection(warn) {
      if (copy !== undefined) return copy.copy.connection;
      try {
        return (await reopen(0)).connection;
      } catch (error) {
        if (!(error instanceof LockError)) throw error;
        // Taken since the start: plan on a copy of its state, with what the journal holds now.
        const journaled = (await readJournal(options.archiveRoot)).listings;
        copy = (await besideState(options, journaled, { pid: holderPidOf(error) }, warn)).beside;
        return copy.copy.connection;
      }
    },
    async writer(waitSeconds, signal) {
      // A plan beside no warehouse records nothing: it never waits for, nor creates, one.
      if (copy?.mode === 'none') return { heldBy: undefined };
      try {
        return { conn: (await reopen(waitSeconds, signal)).connection };
      } catch (error) {
        if (!(error instanceof LockError)) throw error;
        return { heldBy: holderPidOf(error) };
      }
    },
    release() {
      open?.close();
      open = undefined;
    },
    close() {
      open?.close();
      open = undefined;
      copy?.copy.close();
    },
  };
}

/** The in-memory state a plan reads when the warehouse is not written, and why. */
interface Beside {
  mode: 'copy' | 'archive' | 'none';
  copy: StateCopy;
  holderPid: number | undefined;
}

/**
 * The state a plan reads when the warehouse is not written: none yet (a plan beside no warehouse:
 * an empty state; nothing is opened or written), held by another process (a copy of its sync state,
 * or, when even a READ_ONLY attach is refused, an empty one and the archive's files). The manifests
 * a previous held-out run listed (the journal's listings) are part of that state either way.
 */
async function besideState(
  options: Pick<BeginOptions, 'dbPath' | 'archiveRoot' | 'pairs'>,
  journaled: readonly Listed[],
  holder: { pid: number | undefined } | 'absent',
  warn: (message: string) => void,
): Promise<StartState & { beside: Beside }> {
  const copied = holder === 'absent' ? undefined : await copyUnlessLocked(options.dbPath);
  const copy = copied ?? (await emptyStateCopy());
  await storeListings(copy.connection, journaled);
  const start = { runId: undefined, waiting: nothingApplied() };
  if (holder === 'absent') {
    warn(`no warehouse at ${resolve(options.dbPath)} yet: planned from an empty state; a plan creates nothing (gexwh sync creates it)`);
    // As the sync that creates the warehouse lists: every manifest whole (none is held yet), so the
    // plan counts each archived file it would load for free (plan = sync).
    return { ...start, beside: { mode: 'none', copy, holderPid: undefined }, held: new Map() };
  }
  const who = holder.pid === undefined ? 'another process' : `process ${holder.pid}`;
  if (copied !== undefined) {
    warn(`the warehouse is held by ${who}: planning from a read-only copy of its state; the load waits for it (--wait-lock)`);
    return { ...start, beside: { mode: 'copy', copy, holderPid: holder.pid }, held: await readListingStates(copy.connection, options.pairs) };
  }
  warn(
    `the warehouse is held read-write by ${who}, so not even its state can be read: planning from the archive ` +
      `(archived files are never paid again; the new sessions and what earlier budgets deferred before the oldest archived session are listed and bought)`,
  );
  return { ...start, beside: { mode: 'archive', copy, holderPid: holder.pid }, archived: await listArchivedFiles(options.archiveRoot) };
}

/** A copy of the warehouse's sync state through a READ_ONLY attach; undefined when even that is refused. */
async function copyUnlessLocked(dbPath: string): Promise<StateCopy | undefined> {
  try {
    return await copySyncState(dbPath);
  } catch (error) {
    if (!(error instanceof LockError)) throw error;
    return undefined;
  }
}

/**
 * With no readable warehouse, the archive's own records say how much of each manifest to list: the
 * sessions from the newest archived one on (files are archived only after their manifest rows were
 * stored, so nothing newer is missed), and every session before the oldest archived one, where the
 * files an earlier budget deferred wait (a backfill bought newest first). The oldest session is listed
 * again when the archive lacks one of its files (a budget cut inside it). Holes between the two are
 * files that failed; a run that can read the warehouse retries those.
 */
function archivedListingStates(files: readonly ArchivedFile[], pairs: readonly Pair[]): Map<string, ListingState> {
  const states = new Map<string, ListingState>();
  for (const pair of pairs) states.set(pairKey(pair), archivedListingState(files.filter((file) => pairKey(file) === pairKey(pair))));
  return states;
}

/** One pair's listing state from its archived files (pure). */
export function archivedListingState(files: readonly { sessionDate: string; file: string }[]): ListingState {
  if (files.length === 0) return { newestStored: null, completeFrom: null };
  const dates = files.map((file) => file.sessionDate).sort();
  const oldest = dates[0]!;
  const oldestKinds = new Set(files.filter((file) => file.sessionDate === oldest).map((file) => file.file));
  const oldestWhole = FILE_KINDS.every((kind) => oldestKinds.has(kind));
  return { newestStored: dates.at(-1)!, completeFrom: oldestWhole ? oldest : addDays(oldest, 1) };
}
