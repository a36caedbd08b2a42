// The one pair a chart draws, from the one selection: --exchange/--symbol, else the config file's
// (one of each), else, for the venue, the symbol's one venue in the warehouse as a sync without
// --exchange buys it (combined for a crypto coin, tradfi for a TradFi ticker, else its only venue).
import type { DuckDBConnection } from '@duckdb/node-api';
import { UsageError } from '../core/errors.js';
import type { Pair } from '../core/pairs.js';
import { defaultVenuePairs } from '../sync/venue-rule.js';
import { heldPairs } from '../warehouse/held-pairs.js';
import { readRows, text } from '../warehouse/read-rows.js';

/** The venue of `symbol` when none was named: its loaded venues first, else those of the coverage last seen. */
export async function chartVenue(conn: DuckDBConnection, symbol: string): Promise<string> {
  const upper = symbol.toUpperCase();
  const loaded = await readRows(conn, `SELECT DISTINCT exchange, symbol FROM sync.files WHERE status = 'loaded' AND symbol = $1 ORDER BY exchange`, [upper], {
    exchange: text,
    symbol: text,
  });
  const candidates: Pair[] = loaded.length > 0 ? loaded : (await heldPairs(conn)).filter((pair) => pair.symbol === upper);
  if (candidates.length === 1) return candidates[0]!.exchange;
  const chosen = defaultVenuePairs(candidates).pairs;
  if (chosen.length === 1) return chosen[0]!.exchange;
  const venues = candidates.map((pair) => pair.exchange).join(', ');
  throw new UsageError(
    candidates.length === 0
      ? `--exchange: ${upper} is not held (no loaded file, not in the coverage last seen); give --exchange and --symbol of a pair the warehouse holds`
      : `--exchange: ${upper} is held on ${venues}, none of them its one default venue; give one with --exchange`,
  );
}
