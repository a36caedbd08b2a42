import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RefusedQueryError, UsageError } from '../../src/core/errors.js';
import { loadFiles } from '../../src/warehouse/loader.js';
import { openWarehouse } from '../../src/warehouse/open.js';
import { bigintToJson, runQuery } from '../../src/warehouse/query.js';
import { BTC, makeTempDir, writeFixture } from './fixtures.js';

let dir: string;
let cleanup: () => void;
let dbPath: string;

beforeEach(async () => {
  ({ dir, cleanup } = makeTempDir());
  dbPath = join(dir, 'gex.duckdb');
  const wh = await openWarehouse(dbPath);
  try {
    const report = await loadFiles(wh.connection, [writeFixture(dir, 'levels', BTC)]);
    expect(report.failed).toEqual([]);
  } finally {
    wh.close();
  }
});

afterEach(() => cleanup());

describe('runQuery', () => {
  it('returns columns with DuckDB types and JSON-friendly rows', async () => {
    const result = await runQuery(
      dbPath,
      `SELECT exchange, session_date, timestamp_utc, spot, flip_count, count(*) OVER () AS n,
        TIMESTAMP '2026-11-20 14:00:00.250' AS naive, 9007199254740993::BIGINT AS huge, [1, 2]::BIGINT[] AS list,
        {'at': TIMESTAMPTZ '2026-01-02T03:04:05Z'} AS nested
      FROM levels_total ORDER BY timestamp_utc LIMIT 1`,
    );
    expect(result.columns).toEqual([
      { name: 'exchange', type: 'VARCHAR' },
      { name: 'session_date', type: 'DATE' },
      { name: 'timestamp_utc', type: 'TIMESTAMP WITH TIME ZONE' },
      { name: 'spot', type: 'DOUBLE' },
      { name: 'flip_count', type: 'INTEGER' },
      { name: 'n', type: 'BIGINT' },
      { name: 'naive', type: 'TIMESTAMP' },
      { name: 'huge', type: 'BIGINT' },
      { name: 'list', type: 'BIGINT[]' },
      { name: 'nested', type: 'STRUCT("at" TIMESTAMP WITH TIME ZONE)' },
    ]);
    expect(result.rows).toEqual([
      {
        exchange: 'bybit',
        session_date: '2026-11-20',
        timestamp_utc: '2026-11-20T14:00:00.000Z',
        spot: 0.5,
        flip_count: 2,
        n: 2,
        naive: '2026-11-20T14:00:00.250',
        huge: '9007199254740993',
        list: [1, 2],
        nested: { at: '2026-01-02T03:04:05.000Z' },
      },
    ]);
    expect(JSON.parse(JSON.stringify(result.rows))).toEqual(result.rows);
  });

  it('keeps duplicate column names apart', async () => {
    const result = await runQuery(dbPath, 'SELECT 1 AS a, 2 AS a');
    expect(result.columns.map((c) => c.name)).toEqual(['a', 'a:1']);
    expect(result.rows).toEqual([{ a: 1, 'a:1': 2 }]);
  });

  it('turns bad SQL into a UsageError carrying DuckDB’s message', async () => {
    const error = await runQuery(dbPath, 'SELECT nope FROM levels').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(/nope/);
  });

  it('refuses writes before running them: one read statement only', async () => {
    for (const sql of ['DELETE FROM levels', 'CREATE TABLE x (a INTEGER)', 'INSERT INTO levels SELECT * FROM levels']) {
      const error = await runQuery(dbPath, sql).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RefusedQueryError);
      expect((error as Error).message).toMatch(/^query refused: (DELETE|CREATE|INSERT) is not a read; query runs only reads/);
    }
    expect((await runQuery(dbPath, 'SELECT count(*) AS n FROM levels')).rows).toEqual([{ n: 4 }]);
  });

  it('reads every table and view of the warehouse, and every macro', async () => {
    const objects = await runQuery(
      dbPath,
      `
      SELECT schema_name || '.' || table_name AS name FROM duckdb_tables() WHERE NOT internal AND NOT temporary
      UNION ALL SELECT schema_name || '.' || view_name FROM duckdb_views() WHERE NOT internal AND NOT temporary
      ORDER BY 1`,
    );
    const names = objects.rows.map((r) => String(r.name));
    expect(names).toEqual(expect.arrayContaining(['main.levels', 'main.levels_total', 'main.levels_compare', 'sync.files', 'sync.runs']));
    for (const name of names) {
      const result = await runQuery(dbPath, `SELECT count(*) AS n FROM ${name}`);
      expect(result.rows[0]?.n, name).toBeTypeOf('number');
    }
    // A new macro must be added here: the catalog's list is compared with the calls below.
    const calls: Record<string, string> = {
      levels_asof: "FROM levels_asof('bybit', 'BTC', TIMESTAMPTZ '2026-11-20 14:20:00+00')",
      strikes_asof: "FROM strikes_asof('bybit', 'BTC', TIMESTAMPTZ '2026-11-20 14:20:00+00')",
      pit_levels: `WITH fills AS (SELECT 'bybit' AS exchange, 'BTC' AS symbol, TIMESTAMPTZ '2026-11-20 14:20:00+00' AS ts)
                   SELECT ts, timestamp_utc FROM pit_levels('fills', max_staleness := INTERVAL 30 MINUTE)`,
      nearest_walls: 'FROM nearest_walls(range_pct := 5)',
      regime_returns: "FROM regime_returns('bybit', 'BTC')",
      flip_crossings: "FROM flip_crossings('bybit', 'BTC')",
    };
    const macros = await runQuery(
      dbPath,
      "SELECT DISTINCT function_name AS name FROM duckdb_functions() WHERE function_type LIKE '%macro' AND NOT internal ORDER BY 1",
    );
    expect(macros.rows.map((r) => r.name)).toEqual(Object.keys(calls).sort());
    expect((await runQuery(dbPath, calls.levels_asof!)).rows).toHaveLength(1);
    expect((await runQuery(dbPath, calls.strikes_asof!)).rows).toEqual([]);
    expect((await runQuery(dbPath, calls.nearest_walls!)).columns.map((c) => c.name)).toContain('nearest_call_wall');
    expect((await runQuery(dbPath, calls.pit_levels!)).rows).toEqual([{ ts: '2026-11-20T14:20:00.000Z', timestamp_utc: '2026-11-20T14:15:00.000Z' }]);
    // The research macros answer through the sandbox too (their values are checked in research-macros.test.ts).
    expect((await runQuery(dbPath, calls.regime_returns!)).columns.map((c) => c.name)).toContain('regime');
    expect((await runQuery(dbPath, calls.flip_crossings!)).columns.map((c) => c.name)).toContain('timestamp_utc');
  });

  it('reads through DESCRIBE, SHOW, SUMMARIZE, VALUES and PRAGMA table_info', async () => {
    for (const sql of ['DESCRIBE levels_total', 'SHOW TABLES', 'SUMMARIZE levels', 'VALUES (1)', "PRAGMA table_info('levels')", 'SELECT 1;']) {
      expect((await runQuery(dbPath, sql)).rows.length, sql).toBeGreaterThan(0);
    }
  });

  it('reports a missing warehouse and empty SQL as usage errors', async () => {
    await expect(runQuery(join(dir, 'none.duckdb'), 'SELECT 1')).rejects.toBeInstanceOf(UsageError);
    await expect(runQuery(dbPath, '  ')).rejects.toBeInstanceOf(UsageError);
  });
});

describe('bigintToJson', () => {
  it('keeps safe integers as numbers and larger ones as exact text', () => {
    expect(bigintToJson(42n)).toBe(42);
    expect(bigintToJson(-9007199254740991n)).toBe(-9007199254740991);
    expect(bigintToJson(9007199254740992n)).toBe('9007199254740992');
  });
});
