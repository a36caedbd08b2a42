// The (exchange, symbol) pairs the warehouse knows offline: those with a loaded file and those of the
// coverage last seen by sync. Offline commands check the names a user typed against them.
import type { DuckDBConnection } from '@duckdb/node-api';
import { UsageError } from '../core/errors.js';
import { checkSelectionNames } from '../core/known-names.js';
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

/** The lists of pairs a read command was given (--exchange, --symbol); undefined: all. */
export interface PairLists {
  exchanges?: string[];
  symbols?: string[];
}

/**
 * The pairs with rows in a levels view (levels_total, levels_close), filtered by the lists, for the
 * commands that read levels (levels, report): a name the warehouse does not hold is a UsageError with
 * the closest held names; none left is one too, naming the command.
 */
export async function pairsWithLevels(conn: DuckDBConnection, view: 'levels_total' | 'levels_close', lists: PairLists, command: string): Promise<Pair[]> {
  const held = await readRows(conn, `SELECT DISTINCT exchange, symbol FROM ${view} ORDER BY exchange, symbol`, [], { exchange: text, symbol: text });
  const exchanges = lists.exchanges?.map((e) => e.toLowerCase());
  const symbols = lists.symbols?.map((s) => s.toUpperCase());
  checkSelectionNames({ ...(exchanges ? { exchanges } : {}), ...(symbols ? { symbols } : {}) }, { pairs: held, source: HELD_SOURCE });
  const chosen = held.filter((p) => (!exchanges || exchanges.includes(p.exchange)) && (!symbols || symbols.includes(p.symbol)));
  if (chosen.length === 0) throw new UsageError(`${command}: no pair with levels in the warehouse matches --exchange/--symbol (run gexwh sync first)`);
  return chosen;
}
