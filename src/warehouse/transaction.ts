// One transaction around a unit of work, for the writers whose statements must land together.
import type { DuckDBConnection } from '@duckdb/node-api';

/** Runs `work` in a transaction; on failure rolls back and rethrows the failure (not the rollback's own). */
export async function inTransaction<T>(conn: DuckDBConnection, work: () => Promise<T>): Promise<T> {
  await conn.run('BEGIN TRANSACTION');
  try {
    const result = await work();
    await conn.run('COMMIT');
    return result;
  } catch (error) {
    // A failed COMMIT has already ended the transaction, so this ROLLBACK may fail in turn.
    await conn.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
