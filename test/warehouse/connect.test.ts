// Warehouse.connect(): another connection to the same open database (the export writes its tables
// on one each, at once). It sees the same data, is pinned to UTC like the first, is sandboxed when
// the warehouse is, and is closed with the warehouse.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnsafeWarehouseError } from '../../src/core/errors.js';
import { openReader, openWarehouse } from '../../src/warehouse/open.js';
import { makeTempDir } from './fixtures.js';

let dir: string;
let cleanup: () => void;
let db: string;

beforeAll(async () => {
  ({ dir, cleanup } = makeTempDir());
  db = join(dir, 'gex.duckdb');
  (await openWarehouse(db)).close();
});

afterAll(() => cleanup());

const one = async (conn: { runAndReadAll(sql: string): Promise<{ getRowsJS(): unknown[][] }> }, sql: string): Promise<unknown> =>
  (await conn.runAndReadAll(sql)).getRowsJS()[0]?.[0];

describe('another connection of a writer', () => {
  it('sees what the first commits, in UTC, and closes with the warehouse', async () => {
    const warehouse = await openWarehouse(db);
    const another = await warehouse.connect();
    try {
      await warehouse.connection.run('CREATE TABLE seen AS SELECT 42 AS answer');
      expect(await one(another, 'SELECT answer FROM seen')).toBe(42);
      expect(await one(another, "SELECT current_setting('TimeZone')")).toBe('UTC');
      expect(await one(another, "SELECT strftime(TIMESTAMPTZ '2026-11-20 15:30:00+00', '%H:%M')")).toBe('15:30');
      await warehouse.connection.run('DROP TABLE seen');
    } finally {
      warehouse.close();
    }
    await expect(another.run('SELECT 1')).rejects.toThrow();
    await expect(warehouse.connect()).rejects.toThrow(/closed/);
  });
});

describe('another connection of a sandboxed reader', () => {
  it('reads no file outside the warehouse and changes no setting', async () => {
    const secret = join(dir, 'secret.txt');
    writeFileSync(secret, 'not for sql');
    const reader = await openReader(db);
    try {
      const another = await reader.connect();
      expect(await one(another, "SELECT current_setting('TimeZone')")).toBe('UTC');
      await expect(another.run(`SELECT content FROM read_text('${secret}')`)).rejects.toBeInstanceOf(UnsafeWarehouseError);
      await expect(another.run('SET enable_external_access = true')).rejects.toThrow(/locked/);
    } finally {
      reader.close();
    }
  });
});
