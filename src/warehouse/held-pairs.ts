// The (exchange, symbol) pairs the warehouse knows offline: those with a loaded file and those of the
// coverage last seen by sync. Offline commands check the names a user typed against them.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Pair } from '../core/pairs.js';
import { readRows, text } from './read-rows.js';

export async function heldPairs(conn: DuckDBConnection): Promise<Pair[]> {
  return readRows(
    conn,
    `SELECT exchange, symbol FROM sync.files WHERE status = 'loaded'
     UNION SELECT exchange, symbol FROM sync.coverage
     ORDER BY exchange, symbol`,
    [],
    { exchange: text, symbol: text },
  );
}

/** What the messages call the pairs of heldPairs(). */
export const HELD_SOURCE = 'the warehouse (loaded files and the coverage last seen)';
