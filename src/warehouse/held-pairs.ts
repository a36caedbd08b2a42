// The (exchange, symbol) pairs the warehouse knows offline: those with a loaded file and those of the
// coverage last seen by sync. Offline commands check the names a user typed against them.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Pair } from '../core/pairs.js';

export async function heldPairs(conn: DuckDBConnection): Promise<Pair[]> {
  const reader = await conn.runAndReadAll(
    `SELECT exchange, symbol FROM sync.files WHERE status = 'loaded'
     UNION SELECT exchange, symbol FROM sync.coverage
     ORDER BY exchange, symbol`,
  );
  return reader.getRowObjectsJS().map((row) => ({ exchange: String(row.exchange), symbol: String(row.symbol) }));
}

/** What the messages call the pairs of heldPairs(). */
export const HELD_SOURCE = 'the warehouse (loaded files and the coverage last seen)';
