// Compatibility: DuckDB 1.4 (the long-term release; the devDependency `duckdb14` is
// @duckdb/node-api 1.4.x) opens a warehouse this version creates and reads its export through
// views.sql, with the same answers; and a reader that is not DuckDB at all (hyparquet, pure JS)
// reads the Parquet files: Snappy, row groups, min/max statistics.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportWarehouse, partitionPath } from '../../src/export/export.js';
import { openWarehouse, STORAGE_COMPATIBILITY } from '../../src/warehouse/open.js';
import { loadDemoHistory } from '../helpers/demo-warehouse.js';
import { makeTempDir, query } from './fixtures.js';
import { VIEWS_SQL } from '../../src/export/options.js';

const run = promisify(execFile);
const READER = new URL('../helpers/duckdb14-reader.mjs', import.meta.url).pathname;
const QUERIES = [
  'SELECT * FROM levels',
  'SELECT * FROM strikes_by_expiry',
  'SELECT * FROM levels_close',
  'SELECT * FROM levels_compare',
  "SELECT * FROM strikes_asof('deribit', 'BTC', '2026-03-02 10:31:00+00')",
  "WITH t AS (SELECT 'tradfi' AS exchange, 'SPY' AS symbol, TIMESTAMPTZ '2026-03-13 15:00:00+00' AS ts) SELECT * FROM pit_levels('t')",
];

let dir: string;
let cleanup: () => void;
let db: string;
let out: string;

beforeAll(async () => {
  ({ dir, cleanup } = makeTempDir());
  db = join(dir, 'gex.duckdb');
  const wh = await openWarehouse(db);
  try {
    await loadDemoHistory(wh, dir, { from: '2026-03-02', strikes: 6 });
  } finally {
    wh.close();
  }
  out = join(dir, 'export');
  await exportWarehouse({ dbPath: db, outDir: out });
}, 240_000);

afterAll(() => cleanup?.());

describe('DuckDB 1.4 opens the warehouse and reads the export', () => {
  it(`a new warehouse is written for ${STORAGE_COMPATIBILITY}+ storage`, async () => {
    const wh = await openWarehouse(db, { readOnly: true });
    try {
      expect(await query(wh, `SELECT tags['storage_version'] AS v FROM duckdb_databases() WHERE database_name = current_database()`)).toEqual([
        { v: `${STORAGE_COMPATIBILITY}+` },
      ]);
    } finally {
      wh.close();
    }
  });

  it('answers as this version does, from the file and from views.sql over the Parquet', async () => {
    const { stdout } = await run(process.execPath, [READER, db, join(out, VIEWS_SQL), ...QUERIES], { maxBuffer: 1 << 20 });
    const old = JSON.parse(stdout) as { version: string; fromWarehouse: unknown[]; fromExport: unknown[] };
    expect(old.version).toMatch(/^v1\.4\./);
    const wh = await openWarehouse(db, { readOnly: true });
    try {
      const ours = [];
      for (const sql of QUERIES)
        ours.push((await query(wh, `SELECT count(*)::BIGINT::VARCHAR AS n, coalesce(sum(hash(q)), 0)::HUGEINT::VARCHAR AS checksum FROM (${sql}) q`))[0]);
      expect(ours.every((row) => Number(row?.n) > 0)).toBe(true);
      // hash() is the same function in 1.4 and 1.5 for these types, so equal checksums mean equal rows.
      expect(old.fromWarehouse).toEqual(ours);
      expect(old.fromExport).toEqual(ours);
    } finally {
      wh.close();
    }
  }, 120_000);
});

describe('a non-DuckDB reader (hyparquet) reads the export', () => {
  it('every row of a partition, Snappy-compressed, with min/max statistics in each column chunk', async () => {
    const path = partitionPath(out, 'strikes_by_expiry', 'parquet', 'deribit', 'BTC', '2026-03-05');
    const file = await asyncBufferFromFile(path);
    const metadata = await parquetMetadataAsync(file);
    const rows = (await parquetReadObjects({ file })) as Array<Record<string, unknown>>;
    const wh = await openWarehouse(db, { readOnly: true });
    try {
      const expected = await query(
        wh,
        `SELECT strike, net_gex, epoch_ms(timestamp_utc)::BIGINT AS ms, expiration_date::VARCHAR AS expiry FROM strikes_by_expiry
          WHERE exchange = 'deribit' AND symbol = 'BTC' AND session_date = '2026-03-05' ORDER BY ALL`,
      );
      const dayMs = 86_400_000;
      const actual = rows
        .map((r) => ({
          strike: r.strike,
          net_gex: r.net_gex,
          ms: Number((r.timestamp_utc as Date).getTime()),
          expiry: new Date(Number(r.expiration_date instanceof Date ? r.expiration_date.getTime() : Number(r.expiration_date) * dayMs))
            .toISOString()
            .slice(0, 10),
        }))
        .sort((a, b) => Number(a.strike) - Number(b.strike) || Number(a.net_gex) - Number(b.net_gex) || a.ms - b.ms || a.expiry.localeCompare(b.expiry));
      const sorted = [...expected].sort(
        (a, b) =>
          Number(a.strike) - Number(b.strike) ||
          Number(a.net_gex) - Number(b.net_gex) ||
          Number(a.ms) - Number(b.ms) ||
          String(a.expiry).localeCompare(String(b.expiry)),
      );
      expect(actual.length).toBeGreaterThan(100);
      expect(actual).toEqual(sorted.map((r) => ({ ...r, ms: Number(r.ms) })));
    } finally {
      wh.close();
    }
    expect(metadata.row_groups.length).toBeGreaterThanOrEqual(1);
    for (const group of metadata.row_groups) {
      expect(Number(group.num_rows)).toBeLessThanOrEqual(122_880);
      for (const chunk of group.columns) {
        expect(chunk.meta_data?.codec).toBe('SNAPPY');
        const stats = chunk.meta_data?.statistics;
        expect(stats?.min_value ?? stats?.min, chunk.meta_data?.path_in_schema.join('.')).not.toBeUndefined();
      }
    }
    expect(readdirSync(join(out, 'strikes_by_expiry'))).toContain('exchange=deribit');
  });
});
