// The captures the alert rules see, read from the views users query: history captures from
// levels_total with the nearest walls of levels_nearest_walls (within 10% of spot), live snapshots from
// live_levels (the API's walls only: a live snapshot has no strikes of its own in levels). A window
// is the captures after a moment and within session dates, with the capture just before the window,
// so the first capture in it is measured too.
import type { DuckDBConnection } from '@duckdb/node-api';
import { pairKey, type Pair } from '../core/pairs.js';
import { bool, readRows, text, maybeNum, maybeText } from '../warehouse/read-rows.js';
import type { AlertSource, Observation } from './rules.js';

/** The nearest walls' range the rules use: levels_nearest_walls'. */
export const NEAREST_RANGE_PCT = 10;

/** Captures after `after` (exclusive, an ISO instant) with session dates from..to (inclusive, ISO dates). */
export interface Window {
  after?: string;
  from?: string;
  to?: string;
}

/** A pair's captures of a window, in time order, and the capture before the first. */
export interface Series {
  pair: Pair;
  previous: Observation | undefined;
  captures: Observation[];
}

const ISO = `'%Y-%m-%dT%H:%M:%SZ'`;

/** The columns of an observation over a relation with the columns of levels (ts: its capture time). */
const COLUMNS = (ts: string, type: string, walls: string) => `exchange, symbol, session_date::VARCHAR AS session_date,
       strftime(${ts}, ${ISO}) AS timestamp_utc, ${type} AS capture_type, spot, flip, regime,
       p1_strike AS api_call_wall, n1_strike AS api_put_wall, ${walls}`;

/** $1 exchange, $2 symbol, $3 after (exclusive), $4 from, $5 to: the window's captures and the one before it. */
const SQL: Record<AlertSource, string> = {
  levels: `
WITH win AS (
  SELECT * FROM levels_total
   WHERE exchange = $1 AND symbol = $2 AND timestamp_utc > $3::TIMESTAMPTZ AND session_date BETWEEN $4::DATE AND $5::DATE
),
prev AS (
  SELECT * FROM levels_total
   WHERE exchange = $1 AND symbol = $2 AND timestamp_utc < (SELECT min(timestamp_utc) FROM win)
   ORDER BY timestamp_utc DESC LIMIT 1
),
caps AS (SELECT *, true AS in_window FROM win UNION ALL SELECT *, false FROM prev)
SELECT in_window, ${COLUMNS('c.timestamp_utc', 'c.type', `w.nearest_call_wall, w.nearest_put_wall, ${NEAREST_RANGE_PCT}::DOUBLE AS range_pct`)}
  FROM caps c
  LEFT JOIN (SELECT timestamp_utc, nearest_call_wall, nearest_put_wall FROM nearest_walls(range_pct := ${NEAREST_RANGE_PCT})
              WHERE exchange = $1 AND symbol = $2 AND timestamp_utc IN (SELECT timestamp_utc FROM caps)) w USING (timestamp_utc)
 ORDER BY c.timestamp_utc`,
  live_levels: `
WITH win AS (
  SELECT * FROM live_levels
   WHERE exchange = $1 AND symbol = $2 AND expiration = 'TOTAL' AND as_of > $3::TIMESTAMPTZ AND session_date BETWEEN $4::DATE AND $5::DATE
),
prev AS (
  SELECT * FROM live_levels
   WHERE exchange = $1 AND symbol = $2 AND expiration = 'TOTAL' AND as_of < (SELECT min(as_of) FROM win)
   ORDER BY as_of DESC LIMIT 1
)
SELECT in_window, ${COLUMNS('as_of', `'live'`, 'NULL::DOUBLE AS nearest_call_wall, NULL::DOUBLE AS nearest_put_wall, NULL::DOUBLE AS range_pct')}
  FROM (SELECT *, true AS in_window FROM win UNION ALL SELECT *, false FROM prev)
 ORDER BY as_of`,
};

const SHAPE = {
  in_window: bool,
  exchange: text,
  symbol: text,
  session_date: text,
  timestamp_utc: text,
  capture_type: maybeText,
  spot: maybeNum,
  flip: maybeNum,
  regime: maybeText,
  api_call_wall: maybeNum,
  api_put_wall: maybeNum,
  nearest_call_wall: maybeNum,
  nearest_put_wall: maybeNum,
  range_pct: maybeNum,
};

const TABLE: Record<AlertSource, { table: string; ts: string; where: string }> = {
  levels: { table: 'levels_total', ts: 'timestamp_utc', where: 'true' },
  live_levels: { table: 'live_levels', ts: 'as_of', where: `expiration = 'TOTAL'` },
};

/** One pair's window: its captures in time order and the capture before the first. */
export async function readSeries(conn: DuckDBConnection, source: AlertSource, pair: Pair, window: Window): Promise<Series> {
  const params = [pair.exchange, pair.symbol, window.after ?? '-infinity', window.from ?? '-infinity', window.to ?? 'infinity'];
  const rows = await readRows(conn, SQL[source], params, SHAPE);
  const observations = rows.map(({ in_window, ...row }) => ({ inWindow: in_window, observation: { ...row, source } }));
  return {
    pair,
    previous: observations.find((o) => !o.inWindow)?.observation,
    captures: observations.filter((o) => o.inWindow).map((o) => o.observation),
  };
}

/** The pairs a source holds, ordered, filtered by the lists (exchange lower case, symbol upper case). */
export async function heldPairs(conn: DuckDBConnection, source: AlertSource, filter: { exchanges?: string[]; symbols?: string[] } = {}): Promise<Pair[]> {
  const { table, where } = TABLE[source];
  const pairs = await readRows(conn, `SELECT DISTINCT exchange, symbol FROM ${table} WHERE ${where} ORDER BY exchange, symbol`, [], {
    exchange: text,
    symbol: text,
  });
  return pairs.filter((p) => (!filter.exchanges || filter.exchanges.includes(p.exchange)) && (!filter.symbols || filter.symbols.includes(p.symbol)));
}

/** Each held pair's latest capture time (ISO, microseconds), by pairKey: what a run's new captures come after. */
export async function readMarks(conn: DuckDBConnection, source: AlertSource): Promise<Map<string, string>> {
  const { table, ts, where } = TABLE[source];
  const rows = await readRows(
    conn,
    `SELECT exchange, symbol, strftime(max(${ts}), '%Y-%m-%dT%H:%M:%S.%fZ') AS mark FROM ${table} WHERE ${where} GROUP BY ALL`,
    [],
    {
      exchange: text,
      symbol: text,
      mark: text,
    },
  );
  return new Map(rows.map((row) => [pairKey(row), row.mark]));
}
