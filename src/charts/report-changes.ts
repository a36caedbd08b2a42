// "What changed since the last close" for the report: per pair the latest capture (levels_asof, the
// last one held, maybe intraday) against the last session close before it (levels_close, a capture of
// type close): spot, flip, regime, the API's walls (p1_strike/n1_strike) and the nearest walls
// (nearest_walls within the report's range), then and now. When the latest capture is itself a close,
// the reference is the close of the session before.
import type { DuckDBConnection } from '@duckdb/node-api';
import { readRows, text, maybeNum, maybeText } from '../warehouse/read-rows.js';
import type { Pair } from './types.js';

const ISO = `'%Y-%m-%dT%H:%M:%SZ'`;

/** One capture's side of the comparison. */
export interface ChangeSide {
  capturedAt: string;
  sessionDate: string;
  type: string | null;
  spot: number | null;
  flip: number | null;
  regime: string | null;
  apiCallWall: number | null;
  apiPutWall: number | null;
  nearestCallWall: number | null;
  nearestPutWall: number | null;
}

/** The last close (null when none is held before the latest capture) and the latest capture. */
export interface PairChanges {
  rangePct: number;
  lastClose: ChangeSide | null;
  latest: ChangeSide;
}

const SIDE = {
  side: text,
  captured_at: text,
  session_date: text,
  type: maybeText,
  spot: maybeNum,
  flip: maybeNum,
  regime: maybeText,
  p1_strike: maybeNum,
  n1_strike: maybeNum,
  nearest_call_wall: maybeNum,
  nearest_put_wall: maybeNum,
};

/** $1 exchange, $2 symbol, $3 the nearest walls' range in percent. */
const CHANGES_SQL = `
WITH latest AS (SELECT 'latest' AS side, * FROM levels_asof($1, $2, 'infinity'::TIMESTAMPTZ)),
last_close AS (
  SELECT 'last_close' AS side, * FROM levels_close
   WHERE exchange = $1 AND symbol = $2 AND type = 'close' AND timestamp_utc < (SELECT timestamp_utc FROM latest)
   ORDER BY timestamp_utc DESC LIMIT 1),
sides AS (SELECT * FROM latest UNION ALL BY NAME SELECT * FROM last_close)
SELECT s.side, strftime(s.timestamp_utc, ${ISO}) AS captured_at, s.session_date::VARCHAR AS session_date, s.type, s.spot, s.flip, s.regime,
       s.p1_strike, s.n1_strike, w.nearest_call_wall, w.nearest_put_wall
  FROM sides s
  LEFT JOIN (SELECT timestamp_utc, nearest_call_wall, nearest_put_wall FROM nearest_walls(range_pct := $3::DOUBLE)
              WHERE exchange = $1 AND symbol = $2 AND timestamp_utc IN (SELECT timestamp_utc FROM sides)) w USING (timestamp_utc)`;

/** The pair's changes since its last close; undefined when it holds no capture. */
export async function readChanges(conn: DuckDBConnection, pair: Pair, rangePct: number): Promise<PairChanges | undefined> {
  const rows = await readRows(conn, CHANGES_SQL, [pair.exchange, pair.symbol, rangePct], SIDE);
  const sideOf = (name: string): ChangeSide | null => {
    const r = rows.find((row) => row.side === name);
    if (r === undefined) return null;
    return {
      capturedAt: r.captured_at,
      sessionDate: r.session_date,
      type: r.type,
      spot: r.spot,
      flip: r.flip,
      regime: r.regime,
      apiCallWall: r.p1_strike,
      apiPutWall: r.n1_strike,
      nearestCallWall: r.nearest_call_wall,
      nearestPutWall: r.nearest_put_wall,
    };
  };
  const latest = sideOf('latest');
  return latest === null ? undefined : { rangePct, lastClose: sideOf('last_close'), latest };
}
