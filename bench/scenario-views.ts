// Scenario 6: the analysis surface. Views against the same question asked of the base tables by
// hand (levels_total, strikes, a pit_levels join of 1M events), and `gexwh export` (Parquet, hive
// partitions, incremental ledger) against one raw DuckDB COPY ... PARTITION_BY per table of the same
// rows, same columns (WRITE_PARTITION_COLUMNS: gexwh's files keep exchange, symbol, session_date),
// same format and compression (DuckDB's default), opening and closing the warehouse like export.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { exportWarehouse } from '../src/export/export.js';
import { openWarehouse } from '../src/warehouse/index.js';
import type { BenchConfig } from './config.js';
import { EXCHANGE, SYMBOL, removeDir, startFixture, tempDir } from './fixture.js';
import { gexwhSync } from './gexwh.js';
import { fmtMs, formatSample, median, ratio, table, timed } from './stats.js';

interface Pair {
  name: string;
  view: string;
  base: string;
  /**
   * Executions per sample, timed together and averaged: a millisecond query timed once measures the
   * machine's noise more than the query.
   */
  reps: number;
}

const PAIRS: Pair[] = [
  {
    name: '`levels_total` vs levels WHERE TOTAL',
    view: `SELECT count(*), sum(net_gex), max(flip) FROM levels_total`,
    base: `SELECT count(*), sum(net_gex), max(flip) FROM levels WHERE expiration = 'TOTAL'`,
    reps: 50,
  },
  {
    name: '`strikes` vs strikes_total ⋈ levels by hand',
    view: `SELECT count(*), sum(net_gex), sum(distance_pct), count(regime) FROM strikes`,
    base: `SELECT count(*), sum(s.net_gex), sum((s.strike - l.spot) / nullif(l.spot, 0) * 100), count(l.regime)
             FROM strikes_total s LEFT JOIN levels l
               ON l.exchange = s.exchange AND l.symbol = s.symbol AND l.timestamp_utc = s.timestamp_utc AND l.expiration = 'TOTAL'`,
    reps: 5,
  },
  {
    name: "`pit_levels('events')` (1M events) vs ASOF JOIN by hand",
    view: `SELECT count(*), sum(spot), count(flip) FROM pit_levels('events')`,
    base: `SELECT count(*), sum(l.spot), count(l.flip) FROM events e
             ASOF LEFT JOIN (SELECT * FROM levels WHERE expiration = 'TOTAL') l
               ON l.exchange = e.exchange AND l.symbol = e.symbol AND e.ts >= l.timestamp_utc`,
    reps: 1,
  },
];

/** Mean time of `reps` executions in a row, and the (last) result for the view/base check. */
async function timeQuery(conn: DuckDBConnection, sql: string, reps: number): Promise<{ ms: number; result: string }> {
  const { ms, value } = await timed(async () => {
    let rows = (await conn.runAndReadAll(sql)).getRowsJS();
    for (let i = 1; i < reps; i++) rows = (await conn.runAndReadAll(sql)).getRowsJS();
    return rows;
  });
  return {
    ms: ms / reps,
    result: JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : typeof v === 'number' ? Number(v.toPrecision(9)) : v)),
  };
}

export async function viewsScenario(config: BenchConfig, log: (line: string) => void): Promise<string> {
  const fixture = await startFixture({ sessions: config.sessions, expirations: config.expirations, strikes: config.strikes });
  const dir = tempDir('views');
  const db = join(dir, 'gex.duckdb');
  const viewRows: string[][] = [];
  const exportMs: number[] = [];
  const copyMs: number[] = [];
  try {
    await gexwhSync({ baseUrl: fixture.emulator.baseUrl, key: fixture.key }, db, join(dir, 'raw'), { exchange: EXCHANGE, symbol: SYMBOL });
    await fixture.close();
    const warehouse = await openWarehouse(db);
    try {
      const conn = warehouse.connection;
      // Events spread over the history, deterministic, a few before the first capture.
      await conn.run(
        `CREATE OR REPLACE TABLE events AS
           SELECT $1 AS exchange, $2 AS symbol,
                  (SELECT min(timestamp_utc) FROM levels) - INTERVAL 1 HOUR
                    + to_seconds(((i * 7919) % (SELECT epoch(max(timestamp_utc) - min(timestamp_utc)) + 7200 FROM levels))::BIGINT) AS ts
             FROM range($3::BIGINT) r(i)`,
        [EXCHANGE, SYMBOL, config.pitEvents],
      );
      for (const pair of PAIRS) {
        const view: number[] = [];
        const base: number[] = [];
        for (let run = 0; run < config.runs; run++) {
          const v = await timeQuery(conn, pair.view, pair.reps);
          const b = await timeQuery(conn, pair.base, pair.reps);
          if (v.result !== b.result) throw new Error(`${pair.name}: view and base disagree: ${v.result} vs ${b.result}`);
          view.push(v.ms);
          base.push(b.ms);
        }
        log(`  ${pair.name}: view ${fmtMs(median(view))}, base ${fmtMs(median(base))}`);
        viewRows.push([pair.name, formatSample(view), formatSample(base), ratio(view, base)]);
      }
      await conn.run('DROP TABLE events');
    } finally {
      warehouse.close();
    }
    for (let run = 0; run < config.runs; run++) {
      for (const who of run % 2 === 0 ? (['export', 'copy'] as const) : (['copy', 'export'] as const)) {
        const out = join(dir, `out-${who}-${run}`);
        if (who === 'export') {
          exportMs.push((await timed(() => exportWarehouse({ dbPath: db, outDir: out, format: 'parquet' }))).ms);
        } else {
          copyMs.push(
            (
              await timed(async () => {
                mkdirSync(out, { recursive: true });
                const warehouse = await openWarehouse(db);
                try {
                  for (const t of ['levels', 'strikes_total', 'strikes_by_expiry']) {
                    await warehouse.connection.run(
                      `COPY (SELECT * FROM ${t}) TO '${join(out, t).replaceAll("'", "''")}' (FORMAT parquet, PARTITION_BY (exchange, symbol, session_date), WRITE_PARTITION_COLUMNS true)`,
                    );
                  }
                } finally {
                  warehouse.close();
                }
              })
            ).ms,
          );
        }
        await removeDir(out);
      }
      log(`  export run ${run + 1}: gexwh ${Math.round(exportMs.at(-1)!)} ms, COPY ${Math.round(copyMs.at(-1)!)} ms`);
    }
  } finally {
    await fixture.close().catch(() => undefined);
    await removeDir(dir);
  }
  return [
    `### 6. Views and export (${config.sessions} sessions, ${config.expirations} × ${config.strikes}; ${config.pitEvents.toLocaleString('en-US')} pit events)`,
    '',
    table(['query', 'view, median (min–max)', 'base tables by hand', 'view ÷ base'], viewRows),
    '',
    `Each sample is the mean of back-to-back executions: ${PAIRS.map((pair) => `${pair.reps}×`).join(', ')} in the order above.`,
    '',
    table(
      ['export of all three tables to Parquet', 'wall, median (min–max)', 'speed vs COPY'],
      [
        [
          '`gexwh export` (exportWarehouse: a partitioned COPY per run of stale partitions, renames, ledger)',
          formatSample(exportMs),
          `${(median(copyMs) / median(exportMs)).toFixed(2)}×`,
        ],
        ['raw `COPY … (FORMAT parquet, PARTITION_BY (exchange, symbol, session_date), WRITE_PARTITION_COLUMNS true)`', formatSample(copyMs), '—'],
      ],
    ),
    '',
    'Targets: views ≤ 1.2× base; export ≥ 0.9× the speed of COPY.',
  ].join('\n');
}
