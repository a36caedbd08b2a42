// `npm run bench -- --scale <months> --db <path> --extras`: the last bullet of issue 17 on the scale
// warehouse. (1) bytes per row of each table against the gzip daily files of one session built by the
// emulator with the same chain sizes; (2) the tool's export of the whole warehouse against a raw
// partitioned COPY with the same options writing the same files, and the same COPY with DuckDB's
// defaults (which splits partitions over files); (3) a nightly load of one new session of the 4 pairs by the
// tool's loader into the big warehouse against the same load into an empty one. Each contender pair
// is interleaved, medians of the runs. The warehouse is written to (export ledger, loaded sessions):
// run it on a copy.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { createMarketModel } from '../emulator/market/model.js';
import type { FileKind } from '../emulator/market/types.js';
import { duckdb } from '../src/warehouse/duckdb.js';
import { exportWarehouse } from '../src/export/export.js';
import { keepBlockMemory } from '../src/warehouse/keep-memory.js';
import { loadFiles, openWarehouse, type LoadInput } from '../src/warehouse/index.js';
import { KINDS, removeDir, tempDir } from './fixture.js';
import { DEFAULT_SHAPE, SCALE_PAIRS, type ScalePair } from './scale-warehouse.js';
import { isNyseTradingDay } from '../src/calendar/nyse.js';
import { fmtMb, formatSample, median, table, timed } from './stats.js';

export interface ExtrasArgs {
  db: string;
  runs: number;
  lastSession: string;
  /** Chain sizes of the emulator's files (default the scale warehouse's: 40 × 120). */
  expirations?: number;
  strikes?: number;
  /** Which measurements (default all three). */
  parts?: ReadonlySet<ExtrasPart>;
  /** The export's contenders (default all four). */
  contenders?: readonly ContenderName[];
}

export const EXTRAS_PARTS = ['storage', 'export', 'nightly', 'incremental'] as const;
export type ExtrasPart = (typeof EXTRAS_PARTS)[number];

/** `--extras` alone: all four; `--extras storage,nightly`: those. */
export function parseExtrasParts(value: string | undefined): Set<ExtrasPart> {
  if (value === undefined || value.startsWith('--')) return new Set(EXTRAS_PARTS);
  const parts = value.split(',');
  const bad = parts.filter((p) => !(EXTRAS_PARTS as readonly string[]).includes(p));
  if (bad.length > 0) throw new Error(`--extras takes ${EXTRAS_PARTS.join(', ')} (comma-separated), got "${bad.join(',')}"`);
  return new Set(parts as ExtrasPart[]);
}

const DAY_MS = 86_400_000;
const dayAfter = (iso: string, n: number) => new Date(Date.parse(`${iso}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

/** The emulator's gzip daily files of one session for each pair, written to `dir` as archive files. */
export function emulatorSession(
  dir: string,
  date: string,
  sizes: { expirations: number; strikes: number },
  pairs: readonly ScalePair[] = SCALE_PAIRS,
): LoadInput[] {
  const market = createMarketModel({ seed: 7, ...sizes, symbols: pairs.map((p) => p.symbol), historyStart: dayAfter(date, -30) });
  const inputs: LoadInput[] = [];
  for (const pair of pairs) {
    if (pair.tradfi && !isNyseTradingDay(date)) continue; // the emulator's calendar: no file on a weekend or an NYSE holiday
    for (const file of KINDS) {
      const daily = market.dailyFile(pair.exchange, pair.symbol, date, file as FileKind, 0);
      const path = join(dir, `${pair.exchange}-${pair.symbol}-${date}-${file}.csv.gz`);
      writeFileSync(path, daily.bytes);
      inputs.push({
        exchange: pair.exchange,
        symbol: pair.symbol,
        sessionDate: date,
        file,
        sha256: createHash('sha256').update(daily.bytes).digest('hex'),
        path,
        bytes: daily.bytes.length,
        rows: daily.rows,
        archivePath: path,
        downloadedAt: new Date(),
      });
    }
  }
  return inputs;
}

async function readRows(conn: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  return (await conn.runAndReadAll(sql)).getRowObjectsJS();
}

/** Bytes per row of each table in the warehouse (its distinct blocks × block size) and in the archive (gzip bytes of the files). */
export async function bytesPerRow(conn: DuckDBConnection, archive: readonly LoadInput[]): Promise<string[][]> {
  const blockSize = Number((await readRows(conn, `SELECT block_size FROM pragma_database_size()`))[0]?.block_size);
  const out: string[][] = [];
  for (const file of KINDS) {
    const blocks = Number((await readRows(conn, `SELECT count(DISTINCT block_id) AS n FROM pragma_storage_info('${file}') WHERE block_id >= 0`))[0]?.n);
    const rows = Number((await readRows(conn, `SELECT count(*) AS n FROM ${file}`))[0]?.n);
    const files = archive.filter((input) => input.file === file);
    const gzBytes = files.reduce((sum, input) => sum + input.bytes, 0);
    const gzRows = files.reduce((sum, input) => sum + input.rows, 0);
    const wh = (blocks * blockSize) / rows;
    const gz = gzBytes / gzRows;
    out.push([file, rows.toLocaleString('en-US'), `${wh.toFixed(1)}`, `${gz.toFixed(1)}`, `${(wh / gz).toFixed(2)}×`]);
  }
  return out;
}

const COPY_OPTIONS = 'FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 122880, PARTITION_BY (exchange, symbol, session_date), WRITE_PARTITION_COLUMNS true';

function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

/** What an export folder holds: data files, hive partitions, partitions split over several files, rows (from the Parquet footers). */
interface OutputShape {
  files: number;
  partitions: number;
  split: number;
  rows: number;
}

async function outputShape(dir: string): Promise<OutputShape> {
  const shape: OutputShape = { files: 0, partitions: 0, split: 0, rows: 0 };
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isDirectory() || !entry.name.startsWith('session_date=')) continue;
    const files = readdirSync(join(entry.parentPath, entry.name)).length;
    shape.partitions += 1;
    shape.files += files;
    if (files > 1) shape.split += 1;
  }
  const footers = await duckdb.DuckDBInstance.create(':memory:');
  try {
    const conn = await footers.connect();
    const glob = join(dir, '*', 'exchange=*', 'symbol=*', 'session_date=*', '*.parquet').replaceAll("'", "''");
    const reader = await conn.runAndReadAll(`SELECT coalesce(sum(num_rows), 0)::BIGINT AS n FROM parquet_file_metadata('${glob}')`);
    shape.rows = Number(reader.getRowObjectsJS()[0]?.n ?? 0);
  } finally {
    footers.closeSync();
  }
  return shape;
}

const outputOf = (contender: Contender): string => `${fmtMb(contender.bytes)}${contender.shape ? `; ${fmtShape(contender.shape)}` : ''}`;

const fmtShape = (shape: OutputShape): string =>
  `${shape.files} files for ${shape.partitions} partitions (${shape.split} split), ${shape.rows.toLocaleString('en-US')} rows`;

/**
 * One raw COPY per table of the same rows and options as export, opening the warehouse as export
 * does. `sameFiles`: DuckDB may keep a writer open for every partition of the table
 * (partitioned_write_max_open_files above the table's partition count), so it writes what export
 * writes, one file per partition. Without it DuckDB's default (100) applies: past 100 open
 * partitions it closes writers early and starts a partition's rows over in a new file, a different
 * output (hundreds of partitions split over several files) that is cheaper to write.
 */
async function rawCopy(db: string, out: string, sameFiles: boolean, keepMemory = false): Promise<void> {
  mkdirSync(out, { recursive: true });
  const warehouse = await openWarehouse(db);
  try {
    if (keepMemory) await keepBlockMemory(warehouse.connection);
    for (const t of KINDS) {
      if (sameFiles) {
        const reader = await warehouse.connection.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM (SELECT DISTINCT exchange, symbol, session_date FROM ${t})`);
        await warehouse.connection.run(`SET partitioned_write_max_open_files = ${Number(reader.getRowObjectsJS()[0]?.n ?? 0) + 1}`);
      }
      await warehouse.connection.run(`COPY (SELECT * FROM ${t}) TO '${join(out, t).replaceAll("'", "''")}' (${COPY_OPTIONS})`);
    }
  } finally {
    warehouse.close();
  }
}

/** One contender's runs: wall times, and what its output held (the last run's). */
interface Contender {
  ms: number[];
  bytes: number;
  shape?: OutputShape;
}

/** The export against the two raw COPYs. */
export interface ExportContest {
  export: Contender;
  /** The raw COPY writing the same files (one per partition): the baseline of the ≤ 1.05× target. */
  sameFiles: Contender;
  /** The same, with DuckDB's block allocator keeping its memory as the export has it do. */
  sameFilesKept: Contender;
  /** The raw COPY with DuckDB's defaults, splitting partitions over files. */
  splitting: Contender;
  load: number[];
}

export const CONTENDERS = ['export', 'sameFiles', 'sameFilesKept', 'splitting'] as const;
export type ContenderName = (typeof CONTENDERS)[number];

/**
 * `--contenders export,sameFiles`: which of the export's contenders run (default all four). The
 * export and the same-files COPY, its baseline, always do; leaving out DuckDB's default COPY (a
 * reference only) buys a third run of the two at 24 months in the time of two.
 */
export function parseContenders(value: string | undefined): ContenderName[] {
  if (value === undefined) return [...CONTENDERS];
  const names = value.split(',');
  const bad = names.filter((name) => !(CONTENDERS as readonly string[]).includes(name));
  if (bad.length > 0) throw new Error(`--contenders takes ${CONTENDERS.join(', ')} (comma-separated), got "${bad.join(',')}"`);
  if (!names.includes('export') || !names.includes('sameFiles')) throw new Error('--contenders must name export and sameFiles (the target is their ratio)');
  return CONTENDERS.filter((name) => names.includes(name));
}

interface Duel {
  a: number[];
  b: number[];
  aBytes: number;
  bBytes: number;
  /** The machine's 1-minute load average after each run (the machine may be shared). */
  load: number[];
}

const load1 = (): number => Number(loadavg()[0]!.toFixed(1));
const loadRange = (load: readonly number[]): string => (load.length === 0 ? '—' : `${Math.min(...load)}–${Math.max(...load)}`);

/** Export and the two raw COPYs, interleaved in rotating order; each output folder measured and removed. */
export async function exportDuel(
  db: string,
  scratch: string,
  runs: number,
  log: (l: string) => void,
  contenders: readonly ContenderName[] = CONTENDERS,
): Promise<ExportContest> {
  const contest: ExportContest = {
    export: { ms: [], bytes: 0 },
    sameFiles: { ms: [], bytes: 0 },
    sameFilesKept: { ms: [], bytes: 0 },
    splitting: { ms: [], bytes: 0 },
    load: [],
  };
  for (let run = 0; run < runs; run++) {
    for (let turn = 0; turn < contenders.length; turn++) {
      const who = contenders[(run + turn) % contenders.length]!;
      const out = join(scratch, `out-${who}-${run}`);
      const { ms } = await timed(() =>
        who === 'export'
          ? exportWarehouse({ dbPath: db, outDir: out, tables: [...KINDS] }).then(() => undefined)
          : rawCopy(db, out, who !== 'splitting', who === 'sameFilesKept'),
      );
      contest.load.push(load1());
      const contender = contest[who];
      contender.ms.push(ms);
      contender.bytes = folderBytes(out);
      contender.shape = await outputShape(out);
      log(`  export run ${run + 1} ${who}: ${Math.round(ms)} ms, ${fmtMb(contender.bytes)}, ${fmtShape(contender.shape)}, load ${contest.load.at(-1)}`);
      await removeDir(out);
    }
  }
  return contest;
}

/** Run k loads session lastSession + k (a new night each time) into the big warehouse and, the same files, into a new empty one. */
export async function nightlyDuel(db: string, scratch: string, args: ExtrasArgs, log: (l: string) => void): Promise<Duel> {
  const duel: Duel = { a: [], b: [], aBytes: 0, bBytes: 0, load: [] };
  const sizes = { expirations: args.expirations ?? DEFAULT_SHAPE.expirations, strikes: args.strikes ?? DEFAULT_SHAPE.strikes };
  for (let run = 0; run < args.runs; run++) {
    const date = dayAfter(args.lastSession, run + 1);
    const files = join(scratch, `files-${run}`);
    mkdirSync(files, { recursive: true });
    const inputs = emulatorSession(files, date, sizes);
    for (const who of run % 2 === 0 ? (['big', 'empty'] as const) : (['empty', 'big'] as const)) {
      const path = who === 'big' ? db : join(scratch, `empty-${run}.duckdb`);
      const warehouse = await openWarehouse(path);
      try {
        const { ms, value } = await timed(() => loadFiles(warehouse.connection, inputs));
        if (value.loaded.length !== inputs.length) throw new Error(`${who}: loaded ${value.loaded.length} of ${inputs.length} files of ${date}`);
        (who === 'big' ? duel.a : duel.b).push(ms);
        log(`  nightly ${date} into ${who}: ${Math.round(ms)} ms, ${value.rowsLoaded.toLocaleString('en-US')} rows`);
      } finally {
        warehouse.close();
      }
    }
    await removeDir(files);
  }
  return duel;
}

/**
 * The export a nightly job runs: a full export first (its time a sample of its own), then run k
 * loads one new session of the 4 pairs (lastSession + 100 + k, clear of the nightly part's dates)
 * and exports again into the same folder, which must write exactly that session's partitions.
 */
export async function incrementalExport(db: string, scratch: string, args: ExtrasArgs, log: (l: string) => void): Promise<Duel> {
  const duel: Duel = { a: [], b: [], aBytes: 0, bBytes: 0, load: [] };
  const sizes = { expirations: args.expirations ?? DEFAULT_SHAPE.expirations, strikes: args.strikes ?? DEFAULT_SHAPE.strikes };
  const out = join(scratch, 'out-incremental');
  const first = await timed(() => exportWarehouse({ dbPath: db, outDir: out, tables: [...KINDS] }));
  duel.b.push(first.ms);
  log(`  incremental: first (full) export ${Math.round(first.ms)} ms, ${first.value.partitionsWritten} partitions, load ${load1()}`);
  for (let run = 0; run < args.runs; run++) {
    const date = dayAfter(args.lastSession, 100 + run + 1);
    const files = join(scratch, `incremental-${run}`);
    mkdirSync(files, { recursive: true });
    const inputs = emulatorSession(files, date, sizes);
    const warehouse = await openWarehouse(db);
    try {
      await loadFiles(warehouse.connection, inputs);
    } finally {
      warehouse.close();
    }
    const { ms, value } = await timed(() => exportWarehouse({ dbPath: db, outDir: out, tables: [...KINDS] }));
    if (value.partitionsWritten !== inputs.length)
      throw new Error(`incremental export of ${date}: wrote ${value.partitionsWritten} partitions, expected ${inputs.length}`);
    duel.a.push(ms);
    duel.load.push(load1());
    log(
      `  incremental ${date}: ${Math.round(ms)} ms, ${value.partitionsWritten} partitions written, ${value.partitionsSkipped} unchanged, load ${duel.load.at(-1)}`,
    );
    await removeDir(files);
  }
  duel.aBytes = folderBytes(out);
  await removeDir(out);
  return duel;
}

async function storageOf(db: string, archive: readonly LoadInput[]): Promise<string[][]> {
  const warehouse = await openWarehouse(db);
  try {
    return await bytesPerRow(warehouse.connection, archive);
  } finally {
    warehouse.close();
  }
}

export async function scaleExtras(args: ExtrasArgs, log: (line: string) => void): Promise<string> {
  const scratch = tempDir('extras');
  try {
    const sizes = { expirations: args.expirations ?? DEFAULT_SHAPE.expirations, strikes: args.strikes ?? DEFAULT_SHAPE.strikes };
    const archive = emulatorSession(scratch, args.lastSession, sizes);
    const parts = args.parts ?? new Set(EXTRAS_PARTS);
    const storage = parts.has('storage') ? await storageOf(args.db, archive) : [];
    const none: Duel = { a: [], b: [], aBytes: 0, bBytes: 0, load: [] };
    const exp = parts.has('export') ? await exportDuel(args.db, scratch, args.runs, log, args.contenders) : null;
    const nightly = parts.has('nightly') ? await nightlyDuel(args.db, scratch, args, log) : none;
    const incremental = parts.has('incremental') ? await incrementalExport(args.db, scratch, args, log) : none;
    const duelRows = [
      ...(exp
        ? [
            [
              '`exportWarehouse` (as `gexwh export`), levels + strikes tables',
              formatSample(exp.export.ms),
              outputOf(exp.export),
              `${(median(exp.export.ms) / median(exp.sameFiles.ms)).toFixed(2)}× time`,
              loadRange(exp.load),
            ],
            [
              `raw \`COPY … (${COPY_OPTIONS})\`, writing the same files (max open files above the partitions)`,
              formatSample(exp.sameFiles.ms),
              outputOf(exp.sameFiles),
              '—',
              '',
            ],
            ...(exp.sameFilesKept.ms.length > 0
              ? [
                  [
                    "the same raw COPY writing the same files, DuckDB's block allocator keeping its memory as the export has it do",
                    formatSample(exp.sameFilesKept.ms),
                    outputOf(exp.sameFilesKept),
                    `${(median(exp.sameFilesKept.ms) / median(exp.sameFiles.ms)).toFixed(2)}× time; the export ${(median(exp.export.ms) / median(exp.sameFilesKept.ms)).toFixed(2)}× this`,
                    '',
                  ],
                ]
              : []),
            ...(exp.splitting.ms.length > 0
              ? [
                  [
                    "the same raw COPY with DuckDB's default of 100 open files (splits partitions)",
                    formatSample(exp.splitting.ms),
                    outputOf(exp.splitting),
                    `${(median(exp.splitting.ms) / median(exp.sameFiles.ms)).toFixed(2)}× time`,
                    '',
                  ],
                ]
              : []),
          ]
        : []),
      ...(parts.has('nightly')
        ? [
            [
              'nightly load (loadFiles, 4 pairs, one session) into this warehouse',
              formatSample(nightly.a),
              '',
              `${(median(nightly.a) / median(nightly.b)).toFixed(2)}×`,
              loadRange(nightly.load),
            ],
            ['the same load into an empty warehouse', formatSample(nightly.b), '', '—', ''],
          ]
        : []),
      ...(parts.has('incremental')
        ? [
            [
              'incremental export of one new session (4 pairs × 3 tables) into the full export',
              formatSample(incremental.a),
              fmtMb(incremental.aBytes),
              '—',
              loadRange(incremental.load),
            ],
            ['the full export it increments (one run)', formatSample(incremental.b), '', '—', ''],
          ]
        : []),
    ];
    return [
      `#### Storage, export and a nightly load (${args.db}; medians of ${args.runs}, contenders interleaved)`,
      ...(storage.length > 0
        ? [
            '',
            table(
              [
                'table',
                'rows',
                'warehouse B/row (blocks)',
                `archive gzip B/row (emulator, ${sizes.expirations} × ${sizes.strikes}, one session of 4 pairs)`,
                'ratio',
              ],
              storage,
            ),
          ]
        : []),
      ...(duelRows.length > 0 ? ['', table(['contender', 'wall, median (min–max)', 'output', 'ratio', 'load average (1 min) after the runs'], duelRows)] : []),
    ].join('\n');
  } finally {
    await removeDir(scratch);
  }
}
