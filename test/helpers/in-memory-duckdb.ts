// A throwaway in-memory DuckDB for a test's own SQL: opened, handed over, closed.
import type { DuckDBConnection } from '@duckdb/node-api';
import { duckdb } from '../../src/warehouse/duckdb.js';

export async function withInMemoryDuckDb<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
  const instance = await duckdb.DuckDBInstance.create(':memory:', { threads: process.env.GEXWH_THREADS ?? '1' });
  const conn = await instance.connect();
  try {
    return await fn(conn);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}
