import { describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/warehouse/transaction.js';
import { query, withWarehouse } from './fixtures.js';

describe('inTransaction', () => {
  it('commits what the work wrote and returns its result', async () => {
    await withWarehouse(async (wh) => {
      await wh.connection.run('CREATE TABLE t (a INTEGER)');
      expect(await inTransaction(wh.connection, async () => (await wh.connection.run('INSERT INTO t VALUES (1), (2)')).rowsChanged)).toBe(2);
      expect(await query(wh, 'SELECT count(*)::INTEGER AS n FROM t')).toEqual([{ n: 2 }]);
    });
  });

  it("rolls back everything when the work fails, and rethrows the work's own error", async () => {
    await withWarehouse(async (wh) => {
      await wh.connection.run('CREATE TABLE t (a INTEGER)');
      const work = inTransaction(wh.connection, async () => {
        await wh.connection.run('INSERT INTO t VALUES (1)');
        throw new Error('the work failed');
      });
      await expect(work).rejects.toThrow('the work failed');
      expect(await query(wh, 'SELECT count(*)::INTEGER AS n FROM t')).toEqual([{ n: 0 }]);
    });
  });

  it("a COMMIT DuckDB refuses surfaces as itself, not as the ROLLBACK's 'no transaction is active'", async () => {
    await withWarehouse(async (wh) => {
      await wh.connection.run('CREATE TABLE t (a INTEGER)');
      await wh.connection.run('INSERT INTO t VALUES (1)');
      const work = inTransaction(wh.connection, async () => {
        await wh.connection.run('UPDATE t SET a = 2');
        await wh.connection.run('ALTER TABLE t ADD COLUMN b INTEGER');
      });
      await expect(work).rejects.toThrow(/Failed to commit/);
      // The connection is usable after it and nothing was changed.
      expect(await query(wh, 'SELECT a FROM t')).toEqual([{ a: 1 }]);
    });
  });
});
