// A partition's fingerprint holds its table's column layout, so the layout text must stay what the
// earlier exports were fingerprinted with (duckdb_columns(), read here as the oracle); else every
// partition of every export would be written again after an upgrade.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_TABLES } from '../../src/export/tables.js';
import { tableLayout } from '../../src/export/partitions.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/open.js';
import { makeTempDir, query } from '../warehouse/fixtures.js';

async function layoutAsBefore(wh: Warehouse, table: string): Promise<string> {
  const [row] = await query(
    wh,
    `SELECT string_agg(column_name || ' ' || data_type, ',' ORDER BY column_index) AS layout
       FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = 'main' AND table_name = $1`,
    [table],
  );
  return (row?.layout as string | null) ?? '';
}

describe('tableLayout', () => {
  let wh: Warehouse;
  let cleanup: () => void;
  beforeAll(async () => {
    const temp = makeTempDir();
    cleanup = temp.cleanup;
    wh = await openWarehouse(join(temp.dir, 'gex.duckdb'));
  });
  afterAll(() => {
    wh.close();
    cleanup();
  });

  it('is the text earlier exports were fingerprinted with, for every exported table', async () => {
    for (const table of EXPORT_TABLES) {
      const layout = await tableLayout(wh.connection, table);
      expect(layout, table).toMatch(/^exchange VARCHAR,symbol VARCHAR,/);
      expect(layout, table).toBe(await layoutAsBefore(wh, table));
    }
  });

  it('keeps to that text for the types a later migration may add, and is empty for a table not there', async () => {
    await wh.connection.run(`ALTER TABLE levels ADD COLUMN "odd name" DECIMAL(18,3)`);
    await wh.connection.run('ALTER TABLE levels ADD COLUMN tags VARCHAR[]');
    await wh.connection.run('ALTER TABLE levels ADD COLUMN seen_at TIMESTAMPTZ');
    await wh.connection.run('ALTER TABLE levels ADD COLUMN parts STRUCT(a INTEGER, b DOUBLE)');
    const layout = await tableLayout(wh.connection, 'levels');
    expect(layout).toMatch(/,odd name DECIMAL\(18,3\),tags VARCHAR\[\],seen_at TIMESTAMP WITH TIME ZONE,parts STRUCT\(a INTEGER, b DOUBLE\)$/);
    expect(layout).toBe(await layoutAsBefore(wh, 'levels'));
    await wh.connection.run('DROP TABLE strikes_total');
    expect(await tableLayout(wh.connection, 'strikes_total')).toBe('');
  });
});
