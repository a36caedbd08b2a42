// The research macros in ClickHouse: chDB runs the clickhouse.sql of a local export, and the
// parameterized views regime_returns and flip_crossings answer as the DuckDB macros do on the
// warehouse (the same rows; numbers to 9 significant digits, instants as instants).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLICKHOUSE_FILE, clickhouseStatements } from '../../src/export/clickhouse.js';
import { exportWarehouse } from '../../src/export/export.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/open.js';
import { loadChdb, type ChdbSession } from '../helpers/chdb.js';
import { DEMO_PAIRS, loadDemoHistory } from '../helpers/demo-warehouse.js';
import { makeTempDir } from '../warehouse/fixtures.js';

let cleanup: () => void;
let warehouse: Warehouse;
let session: ChdbSession;

beforeAll(async () => {
  let dir: string;
  ({ dir, cleanup } = makeTempDir());
  const db = join(dir, 'gex.duckdb');
  warehouse = await openWarehouse(db);
  await loadDemoHistory(warehouse, dir, { from: '2026-03-02', strikes: 6 });
  warehouse.close();
  await exportWarehouse({ dbPath: db, outDir: join(dir, 'export') });
  const { Session } = await loadChdb();
  session = new Session();
  await session.queryAsync('CREATE DATABASE research');
  await session.queryAsync('USE research');
  for (const statement of clickhouseStatements(readFileSync(join(dir, 'export', CLICKHOUSE_FILE), 'utf8'))) await session.queryAsync(statement);
  warehouse = await openWarehouse(db, { readOnly: true });
}, 300_000);

afterAll(() => {
  session?.close();
  warehouse?.close();
  cleanup?.();
});

const INSTANT = /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d/;
function normal(rows: Record<string, unknown>[]): Record<string, unknown>[] {
  const value = (v: unknown): unknown => {
    if (typeof v === 'number') return Number(v.toPrecision(9));
    if (typeof v !== 'string') return v;
    if (/^-?\d+(\.\d+)?(e[-+]?\d+)?$/i.test(v)) return Number(Number(v).toPrecision(9));
    if (INSTANT.test(v))
      return Date.parse(
        v
          .replace(' ', 'T')
          .replace(/(\+00(:00)?)?$/, 'Z')
          .replace(/ZZ$/, 'Z'),
      );
    return v;
  };
  return rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, value(v)])));
}

async function clickhouse(sql: string): Promise<Record<string, unknown>[]> {
  const text = (await session.queryAsync(sql, { format: 'JSONEachRow' })).text();
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

it.each(DEMO_PAIRS.flatMap(([exchange, symbol]) => ['regime_returns', 'flip_crossings'].map((name) => [name, exchange, symbol] as const)))(
  '%s(%s, %s) in ClickHouse answers as the DuckDB macro',
  async (name, exchange, symbol) => {
    const duckdb = (await warehouse.connection.runAndReadAll(`SELECT * FROM ${name}('${exchange}', '${symbol}')`)).getRowObjectsJson() as Record<
      string,
      unknown
    >[];
    const ch = await clickhouse(`SELECT * FROM ${name}(exchange = '${exchange}', symbol = '${symbol}')`);
    expect(duckdb.length).toBeGreaterThan(0);
    expect(normal(ch)).toEqual(normal(duckdb));
  },
);
