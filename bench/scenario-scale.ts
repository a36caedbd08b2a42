// `npm run bench -- --scale <months>`: the analysis surface at multi-year scale (issue 17). Grows a
// synthetic warehouse of <months> × 4 pairs with the tool's own migrations (bench/scale-warehouse.ts),
// then times every README view, macro and recipe against its hand-written twins on the base tables
// (bench/scale-queries.ts): the same answer first (row count and a checksum over every row), then
// the median of the runs of each, interleaved, warm (one untimed round first).
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { openWarehouse } from '../src/warehouse/index.js';
import { removeDir, tempDir } from './fixture.js';
import { parseContenders, parseExtrasParts, type ContenderName, type ExtrasPart } from './scale-extras.js';
import { growScaleWarehouse, sessionDates } from './scale-warehouse.js';
import { scaleQueries, type ScaleQuery } from './scale-queries.js';
import { fmtMb, fmtMs, formatSample, median, table, timed } from './stats.js';

export interface ScaleArgs {
  months: number;
  /** Keep (and reuse when present) the warehouse at this path instead of a temp folder. */
  db?: string;
  runs: number;
  lastSession: string;
  pitEvents: number[];
  /** Only the queries whose name contains this text. */
  filter?: string;
  /** Build (or reuse) the warehouse and stop. */
  buildOnly: boolean;
  /** Migrate only up to this version (the views as they were), e.g. 11 for the views before sql/020. */
  schemaVersion?: number;
  /** Storage, export and nightly-load measurements on the warehouse at --db (bench/scale-extras.ts), instead of the questions. */
  extras?: ReadonlySet<ExtrasPart>;
  /** The export's contenders (--contenders; default all four). */
  contenders?: ContenderName[];
}

export function parseScaleArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ScaleArgs | undefined {
  const at = argv.indexOf('--scale');
  if (at < 0) return undefined;
  const value = (flag: string) => {
    const i = argv.indexOf(flag);
    return i < 0 ? undefined : argv[i + 1];
  };
  const months = Number(argv[at + 1]);
  if (!Number.isInteger(months) || months < 1 || months > 120) throw new Error(`--scale takes whole months from 1 to 120, got "${argv[at + 1] ?? ''}"`);
  const runs = Number(value('--runs') ?? env.BENCH_RUNS ?? 5);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer`);
  const lastSession = value('--last-session') ?? '2026-11-20';
  if (!/^\d{4}-\d{2}-\d{2}$/.test(lastSession)) throw new Error(`--last-session must be YYYY-MM-DD`);
  const filter = value('--only');
  const db = value('--db');
  const schema = value('--schema-version');
  if (schema !== undefined && !/^\d+$/.test(schema)) throw new Error(`--schema-version must be a migration number`);
  return {
    ...(schema !== undefined ? { schemaVersion: Number(schema) } : {}),
    months,
    runs,
    buildOnly: argv.includes('--build-only'),
    ...(argv.includes('--extras') ? { extras: parseExtrasParts(value('--extras')), contenders: parseContenders(value('--contenders')) } : {}),
    lastSession,
    pitEvents: (value('--pit-events') ?? '100000,1000000')
      .split(',')
      .map(Number)
      .filter((n) => Number.isInteger(n) && n > 0),
    ...(db !== undefined ? { db } : {}),
    ...(filter !== undefined ? { filter } : {}),
  };
}

/** Calendar days of <months> months (a 30.44-day month). */
export function daysOfMonths(months: number): number {
  return Math.round((months * 365.25) / 12);
}

/** Row count and a checksum over every row (as text, so column names and exact values count). */
export async function fingerprint(conn: DuckDBConnection, sql: string): Promise<string> {
  const rows = (await conn.runAndReadAll(`SELECT count(*)::BIGINT AS n, sum(hash(q::VARCHAR))::VARCHAR AS h FROM (${sql}) q`)).getRowsJS();
  return JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

async function timeOnce(conn: DuckDBConnection, sql: string, reps: number): Promise<number> {
  const { ms } = await timed(async () => {
    for (let i = 0; i < reps; i++) await conn.runAndReadAll(sql);
  });
  return ms / reps;
}

interface Measured {
  name: string;
  view: number[];
  hands: number[][];
  rows: string;
}

async function measure(conn: DuckDBConnection, query: ScaleQuery, runs: number, log: (l: string) => void): Promise<Measured> {
  for (const statement of query.setup ?? []) await conn.run(statement);
  const expected = await fingerprint(conn, query.view);
  for (const [i, hand] of query.hand.entries()) {
    const got = await fingerprint(conn, hand);
    if (got !== expected) throw new Error(`${query.name}: hand-written twin ${i + 1} disagrees with the view: ${got} vs ${expected}`);
  }
  // Warm round; a query of a few ms is repeated so a sample is ≥ ~100 ms of work.
  const warm = await timeOnce(conn, query.view, 1);
  for (const hand of query.hand) await timeOnce(conn, hand, 1);
  const reps = Math.max(1, Math.min(50, Math.ceil(100 / Math.max(warm, 0.1))));
  const view: number[] = [];
  const hands: number[][] = query.hand.map(() => []);
  for (let run = 0; run < runs; run++) {
    // Rotating order, so neither side always runs first.
    const order = [-1, ...query.hand.map((_, i) => i)];
    const rotated = [...order.slice(run % order.length), ...order.slice(0, run % order.length)];
    for (const who of rotated) {
      const ms = await timeOnce(conn, who < 0 ? query.view : query.hand[who]!, reps);
      if (who < 0) view.push(ms);
      else hands[who]!.push(ms);
    }
  }
  const rows = JSON.parse(expected)[0][0] as string;
  const best = Math.min(...hands.map(median));
  log(`  ${query.name}: view ${fmtMs(median(view))}, hand ${fmtMs(best)} (${(median(view) / best).toFixed(2)}×), ${rows} rows`);
  return { name: query.name, view, hands, rows };
}

async function tableCounts(conn: DuckDBConnection): Promise<Record<string, number>> {
  const row = (
    await conn.runAndReadAll(
      `SELECT (SELECT count(*) FROM levels) AS levels, (SELECT count(*) FROM strikes_total) AS strikes_total,
              (SELECT count(*) FROM strikes_by_expiry) AS strikes_by_expiry`,
    )
  ).getRowObjectsJS()[0]!;
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)]));
}

export async function scaleScenario(args: ScaleArgs, log: (line: string) => void): Promise<string> {
  const dir = args.db === undefined ? tempDir('scale') : undefined;
  const db = args.db ?? join(dir!, 'scale.duckdb');
  const days = daysOfMonths(args.months);
  const dates = sessionDates(args.lastSession, days);
  const midSession = dates[Math.floor(dates.length / 2)]!;
  let buildLine = `reused ${db}`;
  try {
    const reuse = existsSync(db);
    const warehouse = await openWarehouse(db, args.schemaVersion !== undefined ? { migrations: { upTo: args.schemaVersion } } : {});
    try {
      const conn = warehouse.connection;
      if (!reuse) {
        log(`building ${args.months} months (${days} session dates × 4 pairs) into ${db}`);
        const { ms } = await timed(() =>
          growScaleWarehouse(conn, {
            lastSession: args.lastSession,
            days,
            onSession: (date, i) => {
              if (i % 30 === 29) log(`  ${date} (${i + 1}/${days})`);
            },
          }),
        );
        await conn.run('CHECKPOINT');
        buildLine = `built in ${(ms / 1000).toFixed(0)} s (session by session, one transaction per date)`;
      }
      const counts = await tableCounts(conn);
      const version = Number((await conn.runAndReadAll('SELECT max(version) AS v FROM sync.migrations')).getRowObjectsJS()[0]?.v);
      const bytes = statSync(db).size;
      log(`  ${buildLine}; ${JSON.stringify(counts)}; ${fmtMb(bytes)}`);
      if (args.buildOnly) return `${args.months} months: ${buildLine}; ${JSON.stringify(counts)}; ${fmtMb(bytes)}`;
      const queries = scaleQueries({ midSession, moment: `${midSession} 14:07:00+00` }, args.pitEvents).filter(
        (q) => args.filter === undefined || q.name.includes(args.filter),
      );
      const results: Measured[] = [];
      for (const query of queries) results.push(await measure(conn, query, args.runs, log));
      const rows = results.map((r) => {
        const medians = r.hands.map(median);
        const best = medians.indexOf(Math.min(...medians));
        return [
          r.name,
          r.rows,
          formatSample(r.view),
          `${formatSample(r.hands[best]!)}${r.hands.length > 1 ? ` (twin ${best + 1} of ${r.hands.length})` : ''}`,
          `**${(median(r.view) / medians[best]!).toFixed(2)}×**`,
          // On a shared machine the fastest run is the least disturbed one: min ÷ min as a second view.
          `${(Math.min(...r.view) / Math.min(...r.hands.flat())).toFixed(2)}×`,
        ];
      });
      return [
        `### ${args.months} months × 4 pairs (${days} session dates; levels ${counts.levels!.toLocaleString('en-US')}, strikes_total ${counts.strikes_total!.toLocaleString('en-US')}, strikes_by_expiry ${counts.strikes_by_expiry!.toLocaleString('en-US')} rows; ${fmtMb(bytes)}; ${buildLine})`,
        '',
        `Views and macros of schema version ${version}. Moment asked about: ${midSession} 14:07 UTC (deribit/BTC unless named); medians of ${args.runs} warm runs.`,
        '',
        table(['question', 'rows', 'view / macro, median (min–max)', 'fastest hand-written twin', 'view ÷ twin (medians)', 'fastest run ÷ fastest run'], rows),
      ].join('\n');
    } finally {
      warehouse.close();
    }
  } finally {
    if (dir !== undefined) await removeDir(dir);
  }
}
