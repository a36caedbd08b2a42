// The views travel with the data: a separate DuckDB instance that never opens the warehouse runs the
// export's views.sql (what `duckdb -init views.sql` does) and then answers every view, every macro
// and the README's recipes exactly as the warehouse does, compared by row checksums.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duckdb } from '../../src/warehouse/duckdb.js';
import { exportWarehouse } from '../../src/export/export.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/open.js';
import { loadDemoHistory } from '../helpers/demo-warehouse.js';
import { makeTempDir } from '../warehouse/fixtures.js';
import { VIEWS_SQL } from '../../src/export/options.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The statements of the README's Recipes SQL block, as a reader would paste them. */
function readmeRecipes(): string[] {
  const section = README.slice(README.indexOf('### Recipes'));
  const block = /```sql\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block
    .split(';')
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter((s) => s.length > 0);
}

const VIEWS = ['levels_total', 'levels_close', 'levels_expiry', 'strikes', 'strikes_expiry', 'levels_compare'];
const AT = ['2026-02-20 14:07:00+00', '2026-03-13 20:59:59+00', '2026-03-16 14:00:00+00', '2026-03-16 14:05:00'];
const MACRO_CALLS = [
  ...AT.flatMap((ts) => [
    `SELECT * FROM levels_asof('deribit', 'BTC', '${ts}')`,
    `SELECT * FROM levels_asof('tradfi', 'SPY', '${ts}', max_staleness := INTERVAL 20 MINUTE)`,
    `SELECT * FROM strikes_asof('deribit', 'BTC', '${ts}')`,
    `SELECT * FROM strikes_asof('tradfi', 'SPY', '${ts}', max_staleness := INTERVAL 1 DAY)`,
  ]),
  `WITH trades AS (SELECT * FROM (VALUES ('deribit', 'BTC', TIMESTAMPTZ '2026-03-02 10:31:00+00', 1), ('tradfi', 'SPY', TIMESTAMPTZ '2026-03-14 12:00:00+00', 2),
     ('tradfi', 'SPY', TIMESTAMPTZ '2026-03-16 14:06:00+00', 3), ('okx', 'ETH', TIMESTAMPTZ '2026-03-02 10:31:00+00', 4)) t(exchange, symbol, ts, id))
   SELECT * FROM pit_levels('trades')`,
  `WITH trades AS (SELECT 'deribit' AS exchange, 'BTC' AS symbol, TIMESTAMPTZ '2026-02-10 00:00:00+00' + INTERVAL (i * 7) HOUR AS ts FROM range(120) r(i))
   SELECT * FROM pit_levels('trades', max_staleness := INTERVAL 10 MINUTE)`,
];

let dir: string;
let cleanup: () => void;
let warehouse: Warehouse;
let reader: DuckDBConnection;
let closeReader: () => void;

/** Row count, an order-free checksum of whole rows, and the column names and types. */
async function fingerprint(conn: DuckDBConnection, sql: string): Promise<Record<string, unknown>> {
  const sums = await conn.runAndReadAll(`SELECT count(*)::BIGINT::VARCHAR AS n, coalesce(sum(hash(q)), 0)::HUGEINT::VARCHAR AS checksum FROM (${sql}) q`);
  const shape = await conn.runAndReadAll(`DESCRIBE (${sql})`);
  return { ...sums.getRowObjectsJS()[0], columns: shape.getRowObjectsJS().map((c) => `${String(c.column_name)} ${String(c.column_type)}`) };
}

beforeAll(async () => {
  ({ dir, cleanup } = makeTempDir());
  const db = join(dir, 'gex.duckdb');
  warehouse = await openWarehouse(db);
  await loadDemoHistory(warehouse, dir);
  warehouse.close();
  const outDir = join(dir, 'export');
  const result = await exportWarehouse({ dbPath: db, outDir });
  expect(result.partitionsWritten).toBeGreaterThan(100);
  // The reader: a fresh in-memory DuckDB that knows only views.sql (and so only the Parquet files).
  const instance = await duckdb.DuckDBInstance.create(':memory:');
  reader = await instance.connect();
  closeReader = () => {
    reader.closeSync();
    instance.closeSync();
  };
  await reader.run(readFileSync(join(outDir, VIEWS_SQL), 'utf8'));
  warehouse = await openWarehouse(db, { readOnly: true });
}, 240_000);

afterAll(() => {
  closeReader?.();
  warehouse?.close();
  cleanup?.();
});

describe('views.sql over the export answers as the warehouse does', () => {
  it('never reads the warehouse: its tables are views over the Parquet files', async () => {
    const text = readFileSync(join(dir, 'export', VIEWS_SQL), 'utf8');
    expect(text).not.toContain('gex.duckdb');
    expect(text).toContain(readFileSync(new URL('../../sql/views.sql', import.meta.url), 'utf8'));
    const tables = await reader.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM duckdb_tables()`);
    expect(tables.getRowObjectsJS()).toEqual([{ n: 0 }]);
  });

  for (const table of ['levels', 'strikes_total', 'strikes_by_expiry', 'live_levels', 'term_structure', 'live_strikes', ...VIEWS]) {
    it(`${table}: every row`, async () => {
      const ours = await fingerprint(warehouse.connection, `SELECT * FROM ${table}`);
      expect(Number(ours.n)).toBeGreaterThan(0);
      expect(await fingerprint(reader, `SELECT * FROM ${table}`)).toEqual(ours);
    });
  }

  it('runs: every sync run, so a reader knows how fresh the export is', async () => {
    const runs = `SELECT * REPLACE (options::VARCHAR AS options) FROM sync.runs`;
    const ours = await fingerprint(warehouse.connection, runs);
    expect(Number(ours.n)).toBeGreaterThan(0);
    expect(await fingerprint(reader, 'SELECT * FROM runs')).toEqual(ours);
    const latest = await reader.runAndReadAll(`SELECT max(finished_at)::VARCHAR AS at FROM runs WHERE outcome = 'ok'`);
    expect(latest.getRowObjectsJS()).toEqual([{ at: '2026-03-16 14:07:00+00' }]);
  });

  it('the point-in-time macros, at moments inside, between and after captures', async () => {
    let nonEmpty = 0;
    for (const sql of MACRO_CALLS) {
      const ours = await fingerprint(warehouse.connection, sql);
      if (Number(ours.n) > 0) nonEmpty += 1;
      expect({ sql, ...(await fingerprint(reader, sql)) }).toEqual({ sql, ...ours });
    }
    expect(nonEmpty).toBeGreaterThanOrEqual(MACRO_CALLS.length - 4); // a few ask for a capture that is too old
  });

  // CSV is parsed whole at each query, so this check runs on its own warehouse of a few sessions (BTC
  // 03-11..03-15, SPY's three weekdays, today's api fills): the types and answers are the same
  // question on 5 days as on 40, at a tenth of the parsing.
  it('a CSV export: its views.sql reads the CSV files with the warehouse types, same answers', async () => {
    const small = join(dir, 'small');
    mkdirSync(small);
    const db = join(small, 'gex.duckdb');
    const written = await openWarehouse(db);
    try {
      await loadDemoHistory(written, small, { from: '2026-03-11' });
    } finally {
      written.close();
    }
    await exportWarehouse({ dbPath: db, outDir: join(small, 'export-csv'), format: 'csv' });
    const ours = await openWarehouse(db, { readOnly: true });
    const instance = await duckdb.DuckDBInstance.create(':memory:');
    const csv = await instance.connect();
    try {
      await csv.run(readFileSync(join(small, 'export-csv', VIEWS_SQL), 'utf8'));
      for (const sql of [
        'SELECT * FROM levels',
        'SELECT * FROM strikes_expiry',
        'SELECT * FROM levels_compare',
        'SELECT * FROM term_structure',
        'SELECT * FROM runs',
        MACRO_CALLS[4]!, // levels_asof at 2026-03-13 20:59:59, inside these sessions
      ]) {
        const expected = await fingerprint(ours.connection, sql.replace('FROM runs', 'FROM (SELECT * REPLACE (options::VARCHAR AS options) FROM sync.runs)'));
        expect(Number(expected.n), sql).toBeGreaterThan(0);
        expect({ sql, ...(await fingerprint(csv, sql)) }).toEqual({ sql, ...expected });
      }
    } finally {
      csv.closeSync();
      instance.closeSync();
      ours.close();
    }
  });

  it("the README's recipes", async () => {
    const recipes = readmeRecipes();
    expect(recipes.length).toBeGreaterThanOrEqual(2);
    for (const sql of recipes) {
      const ours = await fingerprint(warehouse.connection, sql);
      expect({ sql, ...(await fingerprint(reader, sql)) }).toEqual({ sql, ...ours });
    }
  });
});
