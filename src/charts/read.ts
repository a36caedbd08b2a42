// The warehouse reads behind the charts, through the views and macros users query: strikes_asof
// (TOTAL) or the same point-in-time rule on strikes_expiry, levels_total/levels_expiry for the walls
// of that capture, levels_close for the daily series, term_structure for the captured term. What a
// chart draws is exactly what these queries answer.
import type { DuckDBConnection } from '@duckdb/node-api';
import { UsageError } from '../core/errors.js';
import { formatInstant } from '../time/dates.js';
import { checkSelectionNames } from '../core/known-names.js';
import { heldPairs, HELD_SOURCE } from '../warehouse/held-pairs.js';
import { num, readRow, readRows, text, textList, maybeNum, maybeText } from '../warehouse/read-rows.js';
import type { CloseRow, NearestWalls, Pair, ProfileData, SeriesData, StrikeRow, TermData } from './types.js';

const ISO = `'%Y-%m-%dT%H:%M:%SZ'`;
/** The nearest walls' range when a caller names none: the charts' default --range. */
const DEFAULT_RANGE_PCT = 10;

export interface Moment {
  /** The time asked for; undefined: the latest capture. */
  at?: Date;
  /** With at: a capture older than at - maxStalenessSeconds does not count (as strikes_asof's max_staleness). */
  maxStalenessSeconds?: number;
}

/** The pair as the warehouse spells it; unknown names are a UsageError naming the closest held ones. */
export async function resolvePair(conn: DuckDBConnection, pair: Pair): Promise<Pair> {
  // Pairs with history, and pairs only captured live (the term structure).
  const live = await readRows(conn, `SELECT DISTINCT exchange, symbol FROM term_structure`, [], { exchange: text, symbol: text });
  const held = [...(await heldPairs(conn)), ...live];
  const wanted = { exchange: pair.exchange.toLowerCase(), symbol: pair.symbol.toUpperCase() };
  checkSelectionNames({ exchanges: [wanted.exchange], symbols: [wanted.symbol] }, { pairs: held, source: HELD_SOURCE });
  return wanted;
}

const STRIKE_ROW = {
  strike: num,
  call_gex: maybeNum,
  put_gex: maybeNum,
  net_gex: maybeNum,
  call_oi: maybeNum,
  put_oi: maybeNum,
  spot: maybeNum,
  flip: maybeNum,
  regime: maybeText,
  session_date: text,
  captured_at: text,
};

function atParam(moment: Moment): [string, number | null] {
  // No --at: the latest capture, whatever its age.
  if (moment.at === undefined) return ['infinity', null];
  return [moment.at.toISOString(), moment.maxStalenessSeconds ?? null];
}

function describeMoment(moment: Moment): string {
  if (moment.at === undefined) return 'at all';
  const stale = moment.maxStalenessSeconds === undefined ? '' : ` within --max-staleness ${moment.maxStalenessSeconds} s`;
  return `at or before ${formatInstant(moment.at)}${stale}`;
}

/**
 * One capture's strikes of a pair (TOTAL, or one expiration date), with spot, flip, regime and walls;
 * with nearestRangePct (TOTAL only), that capture's nearest walls too.
 */
export async function readProfile(conn: DuckDBConnection, pair: Pair, expiration: string, moment: Moment, nearestRangePct?: number): Promise<ProfileData> {
  const [at, staleness] = atParam(moment);
  const params = [pair.exchange, pair.symbol, at, staleness];
  const strikeRows =
    expiration === 'TOTAL'
      ? await readRows(
          conn,
          `SELECT strike, call_gex, put_gex, net_gex, call_oi, put_oi, spot, flip, regime, session_date::VARCHAR AS session_date,
                    strftime(timestamp_utc, ${ISO}) AS captured_at
               FROM strikes_asof($1, $2, $3::TIMESTAMPTZ, max_staleness := to_seconds($4::BIGINT))
              ORDER BY strike`,
          params,
          STRIKE_ROW,
        )
      : await readRows(
          conn,
          // strikes_asof's rule on one expiration: the capture time first, then its rows.
          `WITH capture AS (
               SELECT session_date, timestamp_utc FROM strikes_expiry
                WHERE exchange = $1 AND symbol = $2 AND expiration_date = $5::DATE
                  AND timestamp_utc <= $3::TIMESTAMPTZ
                  AND ($4::BIGINT IS NULL OR timestamp_utc >= $3::TIMESTAMPTZ - to_seconds($4::BIGINT))
                ORDER BY timestamp_utc DESC LIMIT 1)
             SELECT s.strike, s.call_gex, s.put_gex, s.net_gex, s.call_oi, s.put_oi, s.spot, s.flip, s.regime,
                    s.session_date::VARCHAR AS session_date, strftime(s.timestamp_utc, ${ISO}) AS captured_at
               FROM strikes_expiry s JOIN capture c USING (session_date, timestamp_utc)
              WHERE s.exchange = $1 AND s.symbol = $2 AND s.expiration_date = $5::DATE
              ORDER BY s.strike`,
          [...params, expiration],
          STRIKE_ROW,
        );
  const first = strikeRows[0];
  if (first === undefined) throw await noStrikesError(conn, pair, expiration, moment);
  const capturedAt = first.captured_at;
  const sessionDate = first.session_date;
  const levels = await readCaptureLevels(conn, pair, expiration, sessionDate, capturedAt);
  const nearest = expiration === 'TOTAL' && nearestRangePct !== undefined ? await readNearestWalls(conn, pair, capturedAt, nearestRangePct) : undefined;
  const strikes = withCumulativeNetGex(
    strikeRows.map((r) => ({ strike: r.strike, callGex: r.call_gex, putGex: r.put_gex, netGex: r.net_gex, callOi: r.call_oi, putOi: r.put_oi })),
  );
  return {
    ...pair,
    expiration,
    capturedAt,
    sessionDate,
    ...(moment.at === undefined ? {} : { askedAt: moment.at.toISOString().replace(/\.000Z$/, 'Z') }),
    spot: first.spot,
    flip: first.flip,
    regime: first.regime,
    ...levels,
    ...(nearest === undefined ? {} : { nearestWalls: nearest }),
    strikes,
  };
}

/** nearest_walls(range_pct) of one TOTAL capture. */
async function readNearestWalls(conn: DuckDBConnection, pair: Pair, capturedAt: string, rangePct: number): Promise<NearestWalls> {
  const found = await readRow(
    conn,
    `SELECT nearest_call_wall, nearest_put_wall FROM nearest_walls(range_pct := $4::DOUBLE)
      WHERE exchange = $1 AND symbol = $2 AND timestamp_utc = $3::TIMESTAMPTZ`,
    [pair.exchange, pair.symbol, capturedAt, rangePct],
    { nearest_call_wall: maybeNum, nearest_put_wall: maybeNum },
  );
  return { rangePct, call: found?.nearest_call_wall ?? null, put: found?.nearest_put_wall ?? null };
}

/** The walls and totals of that capture's levels row (TOTAL, or the expiration's). */
async function readCaptureLevels(
  conn: DuckDBConnection,
  pair: Pair,
  expiration: string,
  sessionDate: string,
  capturedAt: string,
): Promise<Pick<ProfileData, 'callWall' | 'putWall' | 'totals'>> {
  const view = expiration === 'TOTAL' ? 'levels_total' : 'levels_expiry';
  const extra = expiration === 'TOTAL' ? '' : 'AND expiration_date = $5::DATE';
  const params = [pair.exchange, pair.symbol, sessionDate, capturedAt, ...(expiration === 'TOTAL' ? [] : [expiration])];
  const found = await readRow(
    conn,
    `SELECT p1_strike, n1_strike, net_gex, call_gex, put_gex, call_oi_total, put_oi_total FROM ${view}
      WHERE exchange = $1 AND symbol = $2 AND session_date = $3::DATE AND timestamp_utc = $4::TIMESTAMPTZ ${extra}
      LIMIT 1`,
    params,
    { p1_strike: maybeNum, n1_strike: maybeNum, net_gex: maybeNum, call_gex: maybeNum, put_gex: maybeNum, call_oi_total: maybeNum, put_oi_total: maybeNum },
  );
  return {
    callWall: found?.p1_strike ?? null,
    putWall: found?.n1_strike ?? null,
    totals: {
      netGex: found?.net_gex ?? null,
      callGex: found?.call_gex ?? null,
      putGex: found?.put_gex ?? null,
      callOi: found?.call_oi_total ?? null,
      putOi: found?.put_oi_total ?? null,
    },
  };
}

/** Each strike with the net GEX summed from the lowest strike up to it; a NULL net GEX adds nothing. */
export function withCumulativeNetGex(strikes: Omit<StrikeRow, 'cumulativeNetGex'>[]): StrikeRow[] {
  let sum = 0;
  return strikes.map((s) => {
    sum += s.netGex ?? 0;
    return { ...s, cumulativeNetGex: sum };
  });
}

/** Nothing to draw: say so, and for an expiration the capture does not hold, the ones it does hold. */
async function noStrikesError(conn: DuckDBConnection, pair: Pair, expiration: string, moment: Moment): Promise<UsageError> {
  if (expiration === 'TOTAL') {
    const first = await firstStrikesCapture(conn, pair, expiration);
    // A pair not held at all has no first capture to name: say that instead of an empty hint.
    if (first === null) {
      return new UsageError(`the warehouse holds no strikes of ${pair.exchange} ${pair.symbol} at all: sync it first (gexwh status lists the pairs held)`, {
        pair: `${pair.exchange}/${pair.symbol}`,
      });
    }
    return new UsageError(`no strikes capture of ${pair.exchange} ${pair.symbol} ${describeMoment(moment)}`, { first_capture: first });
  }
  const when = moment.at === undefined ? '' : ` ${describeMoment(moment)}`;
  const held = await expirationsOfLatestCapture(conn, pair, moment);
  if (held === undefined) {
    const first = await firstStrikesCapture(conn, pair, 'any expiration');
    const since =
      first === null ? 'none holds per-expiration strikes (strikes_by_expiry) at all' : `the first with per-expiration strikes is ${formatInstant(first)}`;
    return new UsageError(`no capture of ${pair.exchange} ${pair.symbol}${when} holds per-expiration strikes; ${since}`, { first_capture: first });
  }
  return new UsageError(
    `no capture of ${pair.exchange} ${pair.symbol}${when} holds expiration ${expiration}; the latest, ${formatInstant(held.capturedAt)}, holds ${held.expirations.join(', ')}: pass one of them to --expiration`,
    { captured_at: held.capturedAt, expirations: held.expirations },
  );
}

/** The expiration dates of the latest per-expiration capture at or before the moment. */
async function expirationsOfLatestCapture(
  conn: DuckDBConnection,
  pair: Pair,
  moment: Moment,
): Promise<{ capturedAt: string; expirations: string[] } | undefined> {
  const [at, staleness] = atParam(moment);
  const found = await readRow(
    conn,
    `WITH capture AS (
         SELECT timestamp_utc FROM strikes_expiry
          WHERE exchange = $1 AND symbol = $2 AND timestamp_utc <= $3::TIMESTAMPTZ
            AND ($4::BIGINT IS NULL OR timestamp_utc >= $3::TIMESTAMPTZ - to_seconds($4::BIGINT))
          ORDER BY timestamp_utc DESC LIMIT 1)
       SELECT strftime(c.timestamp_utc, ${ISO}) AS captured_at, list(DISTINCT s.expiration_date::VARCHAR ORDER BY s.expiration_date::VARCHAR) AS expirations
         FROM capture c JOIN strikes_expiry s ON s.exchange = $1 AND s.symbol = $2 AND s.timestamp_utc = c.timestamp_utc
        GROUP BY c.timestamp_utc`,
    [pair.exchange, pair.symbol, at, staleness],
    { captured_at: text, expirations: textList },
  );
  return found && { capturedAt: found.captured_at, expirations: found.expirations };
}

/** The first capture of the pair's strikes: TOTAL, one expiration, or 'any expiration'. */
async function firstStrikesCapture(conn: DuckDBConnection, pair: Pair, expiration: string): Promise<string | null> {
  const first = `SELECT strftime(min(timestamp_utc), ${ISO}) AS first`;
  const [sql, params] =
    expiration === 'TOTAL'
      ? [`${first} FROM strikes WHERE exchange = $1 AND symbol = $2`, [pair.exchange, pair.symbol]]
      : expiration === 'any expiration'
        ? [`${first} FROM strikes_expiry WHERE exchange = $1 AND symbol = $2`, [pair.exchange, pair.symbol]]
        : [`${first} FROM strikes_expiry WHERE exchange = $1 AND symbol = $2 AND expiration_date = $3::DATE`, [pair.exchange, pair.symbol, expiration]];
  return (await readRow(conn, sql, params, { first: maybeText }))?.first ?? null;
}

export interface SessionRange {
  /** First session date, YYYY-MM-DD; undefined: `sessions` sessions back from `to`. */
  from?: string;
  /** Last session date; undefined: the latest held. */
  to?: string;
  sessions: number;
  /** Leave out the sessions whose last capture held is intraday (not a close). */
  closesOnly?: boolean;
}

/**
 * The daily closes (levels_close) of a pair over a range of sessions, oldest first, each with the
 * nearest walls (nearest_walls) of its capture within rangePct of spot.
 */
export async function readCloses(conn: DuckDBConnection, pair: Pair, range: SessionRange, rangePct = DEFAULT_RANGE_PCT): Promise<SeriesData> {
  const found = await readRows(
    conn,
    `WITH c AS (
       SELECT session_date, timestamp_utc, type, spot, flip, regime, net_gex, p1_strike, p1_gex, p2_strike, p2_gex, n1_strike, n1_gex, n2_strike, n2_gex
         FROM levels_close
        WHERE exchange = $1 AND symbol = $2
          AND ($3::DATE IS NULL OR session_date >= $3::DATE) AND ($4::DATE IS NULL OR session_date <= $4::DATE)
          AND (NOT $7::BOOLEAN OR type IS DISTINCT FROM 'intraday')
        ORDER BY session_date DESC
        LIMIT $5)
     SELECT c.session_date::VARCHAR AS session_date, strftime(c.timestamp_utc, ${ISO}) AS captured_at, c.type, c.spot, c.flip, c.regime, c.net_gex,
            c.p1_strike, c.p1_gex, c.p2_strike, c.p2_gex, c.n1_strike, c.n1_gex, c.n2_strike, c.n2_gex, w.nearest_call_wall, w.nearest_put_wall
       FROM c
       LEFT JOIN (SELECT * FROM nearest_walls(range_pct := $6::DOUBLE)
                   WHERE exchange = $1 AND symbol = $2 AND timestamp_utc IN (SELECT timestamp_utc FROM c)) w
         ON w.session_date = c.session_date AND w.timestamp_utc = c.timestamp_utc
      ORDER BY c.session_date DESC`,
    [
      pair.exchange,
      pair.symbol,
      range.from ?? null,
      range.to ?? null,
      range.from === undefined ? range.sessions : 1_000_000,
      rangePct,
      range.closesOnly === true,
    ],
    {
      session_date: text,
      captured_at: text,
      type: maybeText,
      spot: maybeNum,
      flip: maybeNum,
      regime: maybeText,
      net_gex: maybeNum,
      p1_strike: maybeNum,
      p1_gex: maybeNum,
      p2_strike: maybeNum,
      p2_gex: maybeNum,
      n1_strike: maybeNum,
      n1_gex: maybeNum,
      n2_strike: maybeNum,
      n2_gex: maybeNum,
      nearest_call_wall: maybeNum,
      nearest_put_wall: maybeNum,
    },
  );
  const closes: CloseRow[] = found.reverse().map((r) => ({
    sessionDate: r.session_date,
    capturedAt: r.captured_at,
    type: r.type,
    spot: r.spot,
    flip: r.flip,
    regime: r.regime,
    netGex: r.net_gex,
    callWall: r.p1_strike,
    putWall: r.n1_strike,
    p1Strike: r.p1_strike,
    p1Gex: r.p1_gex,
    p2Strike: r.p2_strike,
    p2Gex: r.p2_gex,
    n1Strike: r.n1_strike,
    n1Gex: r.n1_gex,
    n2Strike: r.n2_strike,
    n2Gex: r.n2_gex,
    nearestCallWall: r.nearest_call_wall,
    nearestPutWall: r.nearest_put_wall,
  }));
  if (closes.length === 0) {
    throw new UsageError(`no session of ${pair.exchange} ${pair.symbol} in levels_close between ${range.from ?? 'the first'} and ${range.to ?? 'the latest'}`);
  }
  return { ...pair, rangePct, closes };
}

/** The term structure (venue TOTAL) of the last capture at or before the moment. */
export async function readTerm(conn: DuckDBConnection, pair: Pair, moment: Moment): Promise<TermData> {
  const [at, staleness] = atParam(moment);
  const found = await readRows(
    conn,
    `WITH capture AS (
       SELECT as_of FROM term_structure
        WHERE exchange = $1 AND symbol = $2 AND venue = 'TOTAL' AND as_of <= $3::TIMESTAMPTZ
          AND ($4::BIGINT IS NULL OR as_of >= $3::TIMESTAMPTZ - to_seconds($4::BIGINT))
        ORDER BY as_of DESC LIMIT 1)
     SELECT t.expiration, t.expiration_date::VARCHAR AS expiration_date, t.days_to_expiry, t.total_gex, t.oi_usd,
            t.call_oi_usd, t.put_oi_usd, t.spot, strftime(t.as_of, ${ISO}) AS captured_at
       FROM term_structure t JOIN capture c USING (as_of)
      WHERE t.exchange = $1 AND t.symbol = $2 AND t.venue = 'TOTAL'
      ORDER BY t.expiration_date NULLS LAST, t.expiration`,
    [pair.exchange, pair.symbol, at, staleness],
    {
      expiration: text,
      expiration_date: maybeText,
      days_to_expiry: maybeNum,
      total_gex: maybeNum,
      oi_usd: maybeNum,
      call_oi_usd: maybeNum,
      put_oi_usd: maybeNum,
      spot: maybeNum,
      captured_at: text,
    },
  );
  const first = found[0];
  if (first === undefined) {
    // Captures store the venue the API resolved (combined for all crypto venues): name it.
    const elsewhere = (
      await readRows(conn, `SELECT DISTINCT exchange FROM term_structure WHERE symbol = $1 ORDER BY exchange`, [pair.symbol], { exchange: text })
    ).map((r) => r.exchange);
    const hint =
      elsewhere.length > 0
        ? `; ${pair.symbol}'s term structure is captured as --exchange ${elsewhere.join(', ')}`
        : `; the history files do not hold it: gexwh capture --symbol ${pair.symbol} captures it`;
    throw new UsageError(`no term structure of ${pair.exchange} ${pair.symbol} captured ${describeMoment(moment)}${hint}`);
  }
  return {
    ...pair,
    capturedAt: first.captured_at,
    ...(moment.at === undefined ? {} : { askedAt: moment.at.toISOString().replace(/\.000Z$/, 'Z') }),
    spot: first.spot,
    rows: found.map((r) => ({
      expiration: r.expiration,
      expirationDate: r.expiration_date,
      daysToExpiry: r.days_to_expiry,
      totalGex: r.total_gex,
      oiUsd: r.oi_usd,
      callOiUsd: r.call_oi_usd,
      putOiUsd: r.put_oi_usd,
    })),
  };
}
