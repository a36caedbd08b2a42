// `gexwh levels`: where each pair stands at one moment, read from the views users query. The capture
// is levels_asof's (the last at or before the moment, never after), or the pair's newest live
// snapshot (live_levels, `gexwh capture`) at or before the moment when it is newer than that capture:
// a trader capturing every 15 minutes sees this morning, not last night's close. The 1d/7d references
// are levels_compare's rule (the close of the latest session on or before the capture's session - N
// days, from levels_close); the nearest walls come from nearest_walls(range_pct) of that capture; the
// 0DTE share from levels_expiry rows of that capture. Every number is a column of those views or tables.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Pair } from '../core/pairs.js';
import { pairsWithLevels } from '../warehouse/held-pairs.js';
import { num, readRow, text, type RowOf, maybeNum, maybeText } from '../warehouse/read-rows.js';

export interface LevelsRequest {
  exchanges?: string[];
  symbols?: string[];
  /** The moment; undefined: the latest capture of each pair. */
  at?: Date;
  /** The nearest walls' range, percent of spot on each side. */
  rangePct: number;
}

/**
 * One pair's line: the capture, its levels and how they moved. The names are the views' columns (and
 * the JSON's keys): api_call_wall/api_put_wall are levels' p1_strike/n1_strike, the chain's largest
 * positive and negative net-GEX strikes; nearest_* are nearest_walls' columns for range_pct;
 * zero_dte_share is the gross GEX (abs_gex) of the expirations with dte < 1 over all expirations' of
 * the capture, NULL when the capture's expirations are not held. source is where the capture was read:
 * `levels` (the history) or `live_levels` (a live snapshot, type `live`, which holds no strikes nor
 * expirations, so its nearest walls and 0DTE share are NULL).
 */
export type DeskLevels = RowOf<typeof SHAPE>;

const ISO = `'%Y-%m-%dT%H:%M:%SZ'`;

const SHAPE = {
  exchange: text,
  symbol: text,
  session_date: text,
  captured_at: text,
  type: maybeText,
  spot: maybeNum,
  flip: maybeNum,
  flip_distance_pct: maybeNum,
  regime: maybeText,
  net_gex: maybeNum,
  api_call_wall: maybeNum,
  api_put_wall: maybeNum,
  nearest_call_wall: maybeNum,
  nearest_call_wall_gex: maybeNum,
  nearest_put_wall: maybeNum,
  nearest_put_wall_gex: maybeNum,
  range_pct: num,
  spot_delta_1d: maybeNum,
  flip_delta_1d: maybeNum,
  ref_session_date_1d: maybeText,
  spot_delta_7d: maybeNum,
  flip_delta_7d: maybeNum,
  ref_session_date_7d: maybeText,
  zero_dte_share: maybeNum,
  source: text,
};

/** $1 exchange, $2 symbol, $3 the moment ('infinity' for the latest), $4 the range in percent. */
const LEVELS_SQL = `
WITH hist AS (
  SELECT exchange, symbol, session_date, timestamp_utc, type, spot, flip, regime, net_gex, p1_strike, n1_strike, 'levels' AS source
    FROM levels_asof($1, $2, $3::TIMESTAMPTZ)
),
live AS (
  SELECT exchange, symbol, session_date, as_of AS timestamp_utc, 'live' AS type, spot, flip, regime, net_gex, p1_strike, n1_strike, 'live_levels' AS source
    FROM live_levels
   WHERE exchange = $1 AND symbol = $2 AND expiration = 'TOTAL' AND as_of <= $3::TIMESTAMPTZ
   ORDER BY as_of DESC LIMIT 1
),
-- The newer of the two; on a tie the history's, which holds the strikes and expirations too.
cap AS (SELECT * FROM (SELECT * FROM hist UNION ALL SELECT * FROM live) ORDER BY timestamp_utc DESC, source = 'levels' DESC LIMIT 1),
ref AS (
  SELECT n.days, c.session_date, c.spot, c.flip
    FROM (VALUES (1), (7)) n(days), cap
    JOIN LATERAL (SELECT session_date, spot, flip FROM levels_close
                   WHERE exchange = $1 AND symbol = $2 AND session_date <= cap.session_date - n.days
                   ORDER BY session_date DESC LIMIT 1) c ON true
),
walls AS (
  SELECT w.* FROM nearest_walls(range_pct := $4::DOUBLE) w
   WHERE w.exchange = $1 AND w.symbol = $2 AND w.timestamp_utc = (SELECT timestamp_utc FROM cap WHERE source = 'levels')
),
expiries AS (
  SELECT sum(abs_gex) FILTER (WHERE dte < 1) / nullif(sum(abs_gex), 0) AS share, count(*) AS n, count(dte) AS with_dte
    FROM levels_expiry
   WHERE exchange = $1 AND symbol = $2 AND timestamp_utc = (SELECT timestamp_utc FROM cap WHERE source = 'levels')
)
SELECT cap.exchange, cap.symbol, cap.session_date::VARCHAR AS session_date, strftime(cap.timestamp_utc, ${ISO}) AS captured_at,
       cap.type, cap.spot, cap.flip, (cap.flip - cap.spot) / nullif(cap.spot, 0) * 100 AS flip_distance_pct, cap.regime, cap.net_gex,
       cap.p1_strike AS api_call_wall, cap.n1_strike AS api_put_wall,
       walls.nearest_call_wall, walls.nearest_call_wall_gex, walls.nearest_put_wall, walls.nearest_put_wall_gex, $4::DOUBLE AS range_pct,
       cap.spot - r1.spot AS spot_delta_1d, cap.flip - r1.flip AS flip_delta_1d, r1.session_date::VARCHAR AS ref_session_date_1d,
       cap.spot - r7.spot AS spot_delta_7d, cap.flip - r7.flip AS flip_delta_7d, r7.session_date::VARCHAR AS ref_session_date_7d,
       CASE WHEN expiries.n > 0 AND expiries.with_dte = expiries.n THEN coalesce(expiries.share, 0) END AS zero_dte_share,
       cap.source
  FROM cap
  LEFT JOIN walls ON true
  LEFT JOIN ref r1 ON r1.days = 1
  LEFT JOIN ref r7 ON r7.days = 7
  CROSS JOIN expiries`;

/** The pairs with levels, filtered by the lists (the names checked against the warehouse). */
export async function levelsPairs(conn: DuckDBConnection, request: Pick<LevelsRequest, 'exchanges' | 'symbols'>): Promise<Pair[]> {
  return pairsWithLevels(conn, 'levels_total', request, 'levels');
}

/**
 * A difference of two doubles, rounded to the 15 significant digits a double holds of the larger of
 * them: 80862.27 - 81303.67 is -441.4, not -441.3999999999942, and no digit the inputs carry is lost.
 */
export function roundDelta(delta: number | null, current: number | null): number | null {
  if (delta === null || current === null) return delta;
  const magnitude = Math.max(Math.abs(current), Math.abs(current - delta));
  if (magnitude === 0 || !Number.isFinite(magnitude)) return delta;
  const decimals = Math.min(100, Math.max(0, 15 - (Math.floor(Math.log10(magnitude)) + 1)));
  return Number(delta.toFixed(decimals));
}

/** A ratio to a fixed number of decimals (a ratio has no input precision to keep). */
function roundRatio(value: number | null, decimals: number): number | null {
  return value === null ? null : Number(value.toFixed(decimals));
}

/** The deltas to their inputs' precision; flip_distance_pct to 4 decimals of a percent, the 0DTE share (a fraction) to 6. */
function rounded(line: DeskLevels): DeskLevels {
  return {
    ...line,
    flip_distance_pct: roundRatio(line.flip_distance_pct, 4),
    spot_delta_1d: roundDelta(line.spot_delta_1d, line.spot),
    flip_delta_1d: roundDelta(line.flip_delta_1d, line.flip),
    spot_delta_7d: roundDelta(line.spot_delta_7d, line.spot),
    flip_delta_7d: roundDelta(line.flip_delta_7d, line.flip),
    zero_dte_share: roundRatio(line.zero_dte_share, 6),
  };
}

/** One line per pair; a pair with no capture at or before the moment is left out (none to show). */
export async function readDeskLevels(conn: DuckDBConnection, request: LevelsRequest): Promise<DeskLevels[]> {
  const at = request.at === undefined ? 'infinity' : request.at.toISOString();
  const lines: DeskLevels[] = [];
  for (const pair of await levelsPairs(conn, request)) {
    const row = await readRow(conn, LEVELS_SQL, [pair.exchange, pair.symbol, at, request.rangePct], SHAPE);
    if (row !== undefined) lines.push(rounded(row));
  }
  return lines;
}
