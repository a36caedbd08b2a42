// One session's captures for `gexwh chart intraday`: every TOTAL capture of levels_total for that
// session date (the history file's quarter hours, or the rows `sync --fill-levels` and `capture`
// left for a session whose file is not loaded yet), oldest first, each with the nearest walls of
// nearest_walls(range_pct) when its strikes are held. The type column says which capture is the
// session's close; every other one is intraday.
import type { DuckDBConnection } from '@duckdb/node-api';
import { nyseHoliday } from '../calendar/nyse.js';
import { UsageError } from '../core/errors.js';
import { isWeekend } from '../time/dates.js';
import { marketOf } from '../time/sessions.js';
import { readOne, readRows, text, maybeNum, maybeText } from '../warehouse/read-rows.js';
import type { Pair, SessionCaptures } from './types.js';

const ISO = `'%Y-%m-%dT%H:%M:%SZ'`;

/** Why a TradFi date has no session, when the calendar says so: a weekend or an NYSE holiday. */
function nyseClosed(date: string): string {
  const holiday = nyseHoliday(date);
  if (holiday !== undefined) return ` (an NYSE holiday, ${holiday}: no session)`;
  return isWeekend(date) ? ' (a weekend: no NYSE session)' : '';
}

/** The captures of the session `date` (undefined: the latest session held) of a pair. */
export async function readSession(conn: DuckDBConnection, pair: Pair, date: string | undefined, rangePct: number): Promise<SessionCaptures> {
  const held = await readOne(
    conn,
    `SELECT min(session_date)::VARCHAR AS first, max(session_date)::VARCHAR AS last FROM levels_total WHERE exchange = $1 AND symbol = $2`,
    [pair.exchange, pair.symbol],
    { first: maybeText, last: maybeText },
  );
  if (held.last === null)
    throw new UsageError(`the warehouse holds no levels of ${pair.exchange} ${pair.symbol}: sync it first (gexwh status lists the pairs held)`);
  const sessionDate = date ?? held.last;
  const rows = await readRows(
    conn,
    `WITH c AS (
       SELECT timestamp_utc, type, source, spot, flip, regime, net_gex, p1_strike, n1_strike FROM levels_total
        WHERE exchange = $1 AND symbol = $2 AND session_date = $3::DATE)
     SELECT strftime(c.timestamp_utc, ${ISO}) AS captured_at, c.type, c.source, c.spot, c.flip, c.regime, c.net_gex, c.p1_strike, c.n1_strike,
            w.nearest_call_wall, w.nearest_put_wall
       FROM c
       LEFT JOIN (SELECT timestamp_utc, nearest_call_wall, nearest_put_wall FROM nearest_walls(range_pct := $4::DOUBLE)
                   WHERE exchange = $1 AND symbol = $2 AND session_date = $3::DATE) w USING (timestamp_utc)
      ORDER BY c.timestamp_utc`,
    [pair.exchange, pair.symbol, sessionDate, rangePct],
    {
      captured_at: text,
      type: maybeText,
      source: maybeText,
      spot: maybeNum,
      flip: maybeNum,
      regime: maybeText,
      net_gex: maybeNum,
      p1_strike: maybeNum,
      n1_strike: maybeNum,
      nearest_call_wall: maybeNum,
      nearest_put_wall: maybeNum,
    },
  );
  if (rows.length === 0) {
    const closed = marketOf(pair.exchange) === 'tradfi' ? nyseClosed(sessionDate) : '';
    throw new UsageError(
      `no capture of ${pair.exchange} ${pair.symbol} in session ${sessionDate}${closed}; the sessions held run from ${held.first} to ${held.last}`,
      {
        first_session: held.first,
        last_session: held.last,
      },
    );
  }
  return {
    ...pair,
    sessionDate,
    rangePct,
    captures: rows.map((r) => ({
      capturedAt: r.captured_at,
      type: r.type,
      source: r.source,
      spot: r.spot,
      flip: r.flip,
      regime: r.regime,
      netGex: r.net_gex,
      callWall: r.p1_strike,
      putWall: r.n1_strike,
      nearestCallWall: r.nearest_call_wall,
      nearestPutWall: r.nearest_put_wall,
    })),
  };
}
