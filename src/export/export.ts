// `gexwh export`: writes the three data tables as hive partitions
// `<out>/<table>/exchange=X/symbol=Y/session_date=D/data.<parquet|csv>`, one file per partition.
// The partitions to write go out in one partitioned COPY per table (per 64 partitions) into a hidden
// staging folder, then each file is renamed into place, so a rerun replaces rather than adds and a
// crash never leaves half a partition (a COPY per partition is much slower: bench/RESULTS.md). The
// tables are written at once, each on a connection of its own. sync.exports remembers
// each partition's fingerprint: a rerun writes only new or changed sessions, `full` rewrites all,
// and partitions whose rows left the table are removed. The files keep the partition columns too,
// so each file is self-describing and read_parquet(..., hive_partitioning = true) types them right.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { duckdb } from '../warehouse/duckdb.js';
import { num, readOne } from '../warehouse/read-rows.js';
import { NoWarehouseError } from '../core/errors.js';
import { isIsoDate } from '../time/dates.js';
import { openWarehouse } from '../warehouse/open.js';
import { withSeparator } from '../warehouse/real-paths.js';
import { keepBlockMemory } from '../warehouse/keep-memory.js';
import { checkSelectionNames } from '../core/known-names.js';
import { heldPairs, HELD_SOURCE } from '../warehouse/held-pairs.js';
import { localTarget, STAGING_PREFIX, type ExportTarget, type StoredFile } from './target.js';
import type { ManifestObject } from './manifest.js';
import { writeDescription } from './description.js';
import { isS3Url } from './s3-url.js';
import type { ExportFormat, ExportTable } from './tables.js';
import { isSymbol, VENUE_PATTERN } from '../core/names.js';
import { copyRuns, partitionKey, stalePartitions, type CopyRun, type ExportedPartition, type Partition } from './copy-runs.js';
import {
  normalizeExportOptions,
  partitionRelativePath,
  RUNS_TABLE,
  type ExportOptions,
  type ExportResult,
  type ExportSelection,
  type ExportTableCounts,
} from './options.js';
import { eachLane, oneAtATime, tableLanes, type Lanes, type Ledger } from './lanes.js';
import { COPY_OPTIONS, leftoverStaging, onlyFileIn, PARTITIONS_PER_COPY, writePartition } from './staging.js';
import { refuseForeignTarget } from './out-folder.js';
import { FILTER, filterParams, listExported, listPartitions, RUN_KEYS, runKeyParams } from './partitions.js';

export { EXPORT_FORMATS, EXPORT_TABLES, type ExportFormat, type ExportTable } from './tables.js';
export { normalizeExportOptions, partitionPath, type ExportOptions, type ExportResult, type ExportSelection, type ExportTableCounts } from './options.js';
export { onlyFileIn } from './staging.js';

export async function exportWarehouse(options: ExportOptions): Promise<ExportResult> {
  const selection = normalizeExportOptions(options);
  if (!existsSync(resolve(options.dbPath))) throw new NoWarehouseError(options.dbPath, 'export');
  // The bucket is checked (and the credentials tried) before the warehouse is opened or a file written.
  // The AWS SDK loads only for an s3:// export: importing it is slow, and every command would pay for it at start.
  const target = isS3Url(selection.outDir) ? await (await import('./s3.js')).s3Target(selection.outDir, options.s3 ?? {}) : localTarget(selection.outDir);
  // The warehouse may come from elsewhere, and its tables may be views reading any file of this
  // machine into the export: it is opened sandboxed, DuckDB writing only into this run's staging folder.
  // The folder is named now and made only once the names and the target are checked.
  const staging = join(target.stagingRoot(), `${STAGING_PREFIX}${randomBytes(6).toString('hex')}`);
  const warehouse = await openWarehouse(options.dbPath, {
    sandbox: { writable: true, readDirectories: [withSeparator(staging)], prepare: keepBlockMemory },
  });
  try {
    // A mistyped name would export nothing and say so quietly: name it, with the closest held names.
    if (selection.exchanges || selection.symbols) {
      const names = { ...(selection.exchanges ? { exchanges: selection.exchanges } : {}), ...(selection.symbols ? { symbols: selection.symbols } : {}) };
      checkSelectionNames(names, { pairs: await heldPairs(warehouse.connection), source: HELD_SOURCE });
    }
    if (options.force !== true) await refuseForeignTarget(warehouse.connection, target);
    return await exportOn(warehouse.connection, selection, {
      now: options.now ?? (() => new Date()),
      target,
      connect: () => warehouse.connect(),
      staging,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
  } finally {
    warehouse.close();
  }
}

export interface ExportRun {
  now: () => Date;
  target: ExportTarget;
  onProgress?: (done: number, total: number, bytes: number) => void;
  /**
   * Another connection to the warehouse. Given, each table is planned and written on a connection
   * of its own, all at once: a nightly export of one session is three COPYs of a few partitions,
   * none big enough to keep DuckDB's threads busy alone. Without it, one table after another.
   */
  connect?: () => Promise<DuckDBConnection>;
  /** The staging folder's name, not yet made (the sandbox lets DuckDB write there); else mkdtemp's. */
  staging?: string;
}

/**
 * A new staging folder under the target's staging root. A folder of a crashed run (or anyone's
 * folder of that name) is only reported: the export removes nothing it cannot prove it wrote, and
 * the staging folder it removes is the one made now (mkdir fails on a name that exists).
 */
function makeStaging(target: ExportTarget, name: string | undefined): { staging: string; warnings: string[] } {
  mkdirSync(target.stagingRoot(), { recursive: true });
  const warnings = target.local ? leftoverStaging(target.stagingRoot()) : [];
  if (name === undefined) return { staging: mkdtempSync(join(target.stagingRoot(), STAGING_PREFIX)), warnings };
  mkdirSync(name, { mode: 0o700 });
  return { staging: name, warnings };
}

/** What one export run shares between its tables: where files go, the staging folder, the counts. */
interface RunState extends ExportRun {
  selection: ExportSelection;
  staging: string;
  filesDone: number;
  filesTotal: number;
  bytes: number;
  /** Files whose rows left the table (relative to the root): removed once the new manifest no longer lists them. */
  gone: string[];
  warnings: string[];
  /** A table failed: the others start no new COPY (the first failure is what the caller sees). */
  failed: boolean;
}

/**
 * Exports on an open, migrated, writable connection: the partitions, then the runs, views.sql and
 * last the manifest, so a reader who follows the manifest never meets a half export.
 */
export async function exportOn(conn: DuckDBConnection, selection: ExportSelection, run: Partial<ExportRun> = {}): Promise<ExportResult> {
  const target = run.target ?? localTarget(selection.outDir);
  await keepBlockMemory(conn);
  const { staging, warnings } = makeStaging(target, run.staging);
  const state: RunState = {
    now: run.now ?? (() => new Date()),
    target,
    selection,
    staging,
    filesDone: 0,
    filesTotal: 0,
    bytes: 0,
    gone: [],
    warnings,
    failed: false,
    ...(run.onProgress ? { onProgress: run.onProgress } : {}),
  };
  const tables: ExportTableCounts[] = [];
  try {
    const lanes = await tableLanes(conn, selection.tables, run.connect);
    const plans = await eachLane(lanes, (lane, table) => planTable(lane, table, state));
    state.filesTotal = plans.reduce((n, plan) => n + plan.stale.length, 0) + 1;
    await writeTables(lanes, plans, state, oneAtATime(conn));
    for (const plan of plans) tables.push(await forgetGone(conn, plan, state));
    const runsFile = await writeRunsFile(conn, state);
    state.bytes += await writeDescription(conn, state.target, state.selection.format, runsFile, state.now());
    for (const relative of state.gone) {
      if (!(await target.remove(relative))) state.warnings.push(`export: left ${target.pathOf(relative)} in place: it is not a file inside ${target.root}`);
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  const sum = (key: 'partitionsWritten' | 'partitionsSkipped' | 'partitionsRemoved' | 'rowsWritten') =>
    tables.reduce((total, counts) => total + counts[key], 0);
  return {
    outDir: selection.outDir,
    format: selection.format,
    tables,
    partitionsWritten: sum('partitionsWritten'),
    partitionsSkipped: sum('partitionsSkipped'),
    partitionsRemoved: sum('partitionsRemoved'),
    rowsWritten: sum('rowsWritten'),
    bytesWritten: state.bytes,
    warnings: state.warnings,
  };
}

interface TablePlan {
  table: ExportTable;
  partitions: Partition[];
  exported: Map<string, ExportedPartition>;
  stale: Partition[];
  pathOf: (partition: Partition) => string;
}

/** A table's partitions and which of them this run writes (a target's check of what it holds included). */
async function planTable(conn: DuckDBConnection, table: ExportTable, state: RunState): Promise<TablePlan> {
  const { selection, target } = state;
  const partitions = await listPartitions(conn, table, selection);
  const exported = await listExported(conn, table, selection);
  const pathOf = (p: Partition) => target.pathOf(partitionRelativePath(table, selection.format, p.exchange, p.symbol, p.sessionDate));
  const held = selection.full ? new Set<string>() : await target.held([...exported.values()]);
  const stale = stalePartitions(partitions, exported, pathOf, selection.full, (path) => held.has(path));
  return { table, partitions, exported, stale, pathOf };
}

/**
 * Writes a table's stale partitions, run by run, on its lane. Local: a run's files are hashed and
 * renamed while DuckDB writes the next run (its threads wait on the disk and finish files one by
 * one; the main thread is idle meanwhile), at most one run behind, so staging holds at most two
 * runs a table. Object storage: one run at a time, each upload recorded as it lands, so a cut run
 * resumes from what the ledger says. What it placed and has not recorded when it ends, done or
 * failed, goes to `leftover`: the caller records every table's in one statement (each commit is a
 * fixed cost, which a nightly export of three small runs would pay three times).
 */
async function writeTable(lane: DuckDBConnection, plan: TablePlan, state: RunState, ledger: Ledger, leftover: Placed[]): Promise<void> {
  let behind: Promise<Placed | null> = Promise.resolve(null);
  let unrecorded: Placed[] = [];
  try {
    for (const run of copyRuns(plan.partitions, new Set(plan.stale), PARTITIONS_PER_COPY)) {
      if (state.failed) break;
      const staged = await stageRun(lane, plan.table, run, state);
      unrecorded = await recordSome(ledger, state, [...unrecorded, await behind], LEDGER_BATCH);
      behind = placeRun(ledger, plan, staged, state);
      behind.catch(() => undefined); // awaited below; meanwhile a failure must not count as unhandled
      if (!state.target.local) await behind;
    }
    const last = await behind;
    if (last !== null) unrecorded.push(last);
  } catch (error) {
    state.failed = true;
    throw error;
  } finally {
    await behind.catch(() => undefined); // never leave a rename running into the staging cleanup
    leftover.push(...unrecorded);
  }
}

/**
 * Every table written, then what they placed and left unrecorded, in one ledger write. After a
 * failure too: what is in place stays known, so the rerun does not write it again; the failure is
 * what the caller sees.
 */
async function writeTables(lanes: Lanes, plans: readonly TablePlan[], state: RunState, ledger: Ledger): Promise<void> {
  const leftover: Placed[] = [];
  try {
    await eachLane(lanes, (lane, _table, i) => writeTable(lane, plans[i]!, state, ledger, leftover));
  } catch (error) {
    await recordSome(ledger, state, leftover, 0).catch(() => undefined);
    throw error;
  }
  await recordSome(ledger, state, leftover, 0);
}

/**
 * Partitions put in place are recorded in the export ledger this many at a time: each statement
 * commits (a fixed cost however few its rows), which a multi-year export would pay for each of its
 * runs. A cut run loses at most this many rows, whose files the rerun writes again.
 */
const LEDGER_BATCH = 512;

/** Records the placed partitions once there are at least `atLeast` of them; returns those it left for later. */
async function recordSome(ledger: Ledger, state: RunState, placed: ReadonlyArray<Placed | null>, atLeast: number): Promise<Placed[]> {
  const waiting = placed.filter((run): run is Placed => run !== null && run.partitions.length > 0);
  if (waiting.reduce((n, run) => n + run.partitions.length, 0) < Math.max(atLeast, 1)) return waiting;
  await ledger((conn) => recordExports(conn, state, waiting));
  return [];
}

/** Forgets the partitions whose rows left the table (their files go once the new manifest is written); the table's counts. */
async function forgetGone(conn: DuckDBConnection, plan: TablePlan, state: RunState): Promise<ExportTableCounts> {
  const { table, partitions, exported, stale } = plan;
  const { selection } = state;
  const current = new Set(partitions.map(partitionKey));
  const gone = [...exported.values()].filter((partition) => !current.has(partitionKey(partition)));
  for (const partition of gone) {
    const relative = removablePath(table, selection.format, partition, state.target);
    if (relative === null)
      state.warnings.push(
        `export: left ${partition.path} in place: the export ledger names it, but the last manifest of ${state.target.root} does not list it as one of its files`,
      );
    else state.gone.push(relative);
    await conn.run(
      `DELETE FROM sync.exports WHERE out_dir = $1 AND table_name = $2 AND format = $3 AND exchange = $4 AND symbol = $5 AND session_date = $6::DATE`,
      [selection.outDir, table, selection.format, partition.exchange, partition.symbol, partition.sessionDate],
    );
  }
  return {
    table,
    partitionsWritten: stale.length,
    partitionsSkipped: partitions.length - stale.length,
    partitionsRemoved: gone.length,
    rowsWritten: stale.reduce((sum, partition) => sum + partition.rows, 0),
  };
}

/**
 * The path under the root of a partition whose rows left the table, when the export may remove it
 * (pure): its names pass the name rules, so the path is one this export makes; the ledger recorded
 * it at that place; and the previous manifest lists it. A tampered ledger row, or a file the export
 * did not write, is never removed.
 */
export function removablePath(
  table: ExportTable,
  format: ExportFormat,
  partition: ExportedPartition,
  target: Pick<ExportTarget, 'pathOf' | 'listed'>,
): string | null {
  const { exchange, symbol, sessionDate } = partition;
  if (!VENUE_PATTERN.test(exchange) || !isSymbol(symbol) || !isIsoDate(sessionDate)) return null;
  const relative = partitionRelativePath(table, format, exchange, symbol, sessionDate);
  return partition.path === target.pathOf(relative) && target.listed().has(relative) ? relative : null;
}

/** A table's partitions put in place and not yet recorded in the export ledger. */
interface Placed {
  plan: TablePlan;
  partitions: Array<Partition & StoredFile>;
}

/** A run's partitions written to the staging folder, each as one file. */
interface StagedRun {
  folder: string;
  files: Array<{ partition: Partition; file: string }>;
}

/**
 * Writes a run's partitions with ONE partitioned COPY into the staging folder (a partition DuckDB
 * split over several files is written again alone). Rows come out in no promised order (DuckDB's
 * partitioned write interleaves its threads' chunks; an ORDER BY cost +50%).
 */
async function stageRun(conn: DuckDBConnection, table: ExportTable, run: CopyRun, state: RunState): Promise<StagedRun> {
  const { selection } = state;
  const folder = join(state.staging, randomBytes(6).toString('hex'));
  mkdirSync(folder, { recursive: true });
  try {
    // `table` is one of EXPORT_TABLES; the values are parameters.
    await conn.run(
      `COPY (SELECT * FROM ${table} WHERE ${FILTER} AND session_date BETWEEN $5::DATE AND $6::DATE${run.whole ? '' : ` AND ${RUN_KEYS}`})
         TO $7 (${COPY_OPTIONS[selection.format]}, PARTITION_BY (exchange, symbol, session_date), WRITE_PARTITION_COLUMNS true, FILE_EXTENSION 'tmp')`,
      [...filterParams(selection), run.firstDate, run.lastDate, folder, ...(run.whole ? [] : runKeyParams(run))],
    );
    const files = [];
    for (const partition of run.partitions) {
      const file =
        onlyFileIn(join(folder, `exchange=${partition.exchange}`, `symbol=${partition.symbol}`, `session_date=${partition.sessionDate}`)) ??
        (await writePartition(conn, table, selection.format, partition, folder)); // split over files, or not found: write it alone
      files.push({ partition, file });
    }
    return { folder, files };
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Hands each staged file to the target, which puts it in place whole (a rename beside a local
 * export, an upload to object storage). Uploaded partitions are recorded one by one, so a rerun
 * after a cut knows them; local ones are returned and recorded by the caller per run (a rename
 * cannot be half done). The ledger is written on its own turn: never while its connection runs
 * another statement.
 */
async function placeRun(ledger: Ledger, plan: TablePlan, staged: StagedRun, state: RunState): Promise<Placed> {
  const { target } = state;
  try {
    const placed: Placed = { plan, partitions: [] };
    for (const { partition, file } of staged.files) {
      const stored = await target.place(file, plan.pathOf(partition), partition.fingerprint);
      progress(state, stored.bytes);
      placed.partitions.push({ ...partition, ...stored });
      if (!target.local) {
        const landed = placed.partitions.splice(0);
        await ledger((conn) => recordExports(conn, state, [{ plan, partitions: landed }]));
      }
    }
    return placed;
  } finally {
    rmSync(staged.folder, { recursive: true, force: true });
  }
}

function progress(state: RunState, bytes: number): void {
  state.filesDone += 1;
  state.bytes += bytes;
  state.onProgress?.(state.filesDone, state.filesTotal, state.bytes);
}

/** The runs, oldest first, as one file `<out>/runs/data.<format>` (JSON options as text). */
export const RUNS_QUERY = `SELECT * REPLACE (options::VARCHAR AS options) FROM sync.runs ORDER BY run_id`;

/** `runs/data.<format>`, rewritten whole by every export. */
async function writeRunsFile(conn: DuckDBConnection, state: RunState): Promise<ManifestObject> {
  const relative = `${RUNS_TABLE}/data.${state.selection.format}`;
  const temp = join(state.staging, `runs.${randomBytes(6).toString('hex')}.tmp`);
  await conn.run(`COPY (${RUNS_QUERY}) TO $1 (${COPY_OPTIONS[state.selection.format]})`, [temp]);
  const { n: rows } = await readOne(conn, 'SELECT count(*)::BIGINT AS n FROM sync.runs', [], { n: num });
  const stored = await state.target.place(temp, state.target.pathOf(relative), '-');
  progress(state, stored.bytes);
  return { table: RUNS_TABLE, path: relative, rows, ...stored };
}

/** The export ledger rows of placed partitions, in one statement. */
async function recordExports(conn: DuckDBConnection, state: RunState, placed: readonly Placed[]): Promise<void> {
  const rows = placed.flatMap(({ plan, partitions }) => partitions.map((partition) => ({ ...partition, table: plan.table, path: plan.pathOf(partition) })));
  if (rows.length === 0) return;
  await conn.run(
    `INSERT OR REPLACE INTO sync.exports (out_dir, table_name, exchange, symbol, session_date, format, fingerprint, rows, path, exported_at, sha256, bytes)
     SELECT $1, unnest($2::VARCHAR[]), unnest($3::VARCHAR[]), unnest($4::VARCHAR[]), CAST(unnest($5::VARCHAR[]) AS DATE), $6,
            unnest($7::VARCHAR[]), unnest($8::BIGINT[]), unnest($9::VARCHAR[]), $10::TIMESTAMPTZ, unnest($11::VARCHAR[]), unnest($12::BIGINT[])`,
    [
      state.target.root,
      duckdb.listValue(rows.map((p) => p.table)),
      duckdb.listValue(rows.map((p) => p.exchange)),
      duckdb.listValue(rows.map((p) => p.symbol)),
      duckdb.listValue(rows.map((p) => p.sessionDate)),
      state.selection.format,
      duckdb.listValue(rows.map((p) => p.fingerprint)),
      duckdb.listValue(rows.map((p) => p.rows)),
      duckdb.listValue(rows.map((p) => p.path)),
      state.now().toISOString(),
      duckdb.listValue(rows.map((p) => p.sha256)),
      duckdb.listValue(rows.map((p) => p.bytes)),
    ],
  );
}
