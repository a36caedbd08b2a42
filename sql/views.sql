-- gexwh views and point-in-time macros: the one definition of each, over the tables levels,
-- strikes_total and strikes_by_expiry. Every name and column here is part of the contract
-- (docs/warehouse.md). Multi-year histories: a question about one pair, one session or one moment
-- must read that part of the tables only, so each definition lets a pair and a capture time or
-- session filter reach the table scans before any join (the loader appends session by session, and
-- DuckDB's per-row-group min/max skip the rest).
--
-- Not a numbered migration: src/warehouse/migrations.ts applies this file after the numbered ones
-- whenever its sha256 differs from the one recorded in sync.definitions, and every export writes it
-- into views.sql after views of the same table names over the exported Parquet (and a view of
-- session_closes computed from levels). So it must stay plain DuckDB SQL over those names only:
-- CREATE OR REPLACE statements, no data changes.

-- TOTAL levels, one row per capture. A session whose levels file is loaded holds only the file's rows
-- (loading a levels file deletes its session's api rows; a /history/levels fill never inserts into a
-- session with file rows), so a plain filter is enough.
CREATE OR REPLACE VIEW levels_total AS
SELECT exchange, symbol, session_date, timestamp_utc, type, oi_date,
       spot, flip, flip_count, regime, net_gex, abs_gex, call_gex, put_gex,
       call_oi_total, put_oi_total, p1_strike, p1_gex, p2_strike, p2_gex,
       n1_strike, n1_gex, n2_strike, n2_gex, a1_strike, a1_gex, a2_strike, a2_gex,
       s_price, s_gex, v_price, v_gex, max_pain, atm_iv,
       schema_version, source
  FROM levels
 WHERE expiration = 'TOTAL';

-- The daily series: the last capture of each session. session_closes holds that capture's time per
-- session (kept by every write to levels), so the view is an equality join: no per-session window
-- over the pair's whole history. levels holds one TOTAL row per capture, so one row per session.
CREATE OR REPLACE VIEW levels_close AS
SELECT t.*
  FROM levels_total AS t
  SEMI JOIN session_closes AS c
    ON c.exchange = t.exchange AND c.symbol = t.symbol AND c.session_date = t.session_date
   AND c.timestamp_utc = t.timestamp_utc;

-- Per-expiration levels (expiration_date set, dte in days).
CREATE OR REPLACE VIEW levels_expiry AS
SELECT *
  FROM levels
 WHERE expiration <> 'TOTAL';

-- TOTAL strikes with their capture's spot, flip and regime; distance_pct = (strike - spot) / spot * 100.
-- session_date is part of the join: the strikes and the levels of one capture come from the same
-- session, and a session filter on the view reaches levels too.
CREATE OR REPLACE VIEW strikes AS
SELECT s.exchange, s.symbol, s.session_date, s.timestamp_utc, s.strike,
       s.call_gex, s.put_gex, s.net_gex, s.call_oi, s.put_oi,
       l.spot, l.flip, l.regime,
       (s.strike - l.spot) / nullif(l.spot, 0) * 100 AS distance_pct
  FROM strikes_total s
  LEFT JOIN levels l
    ON l.exchange = s.exchange AND l.symbol = s.symbol AND l.session_date = s.session_date
   AND l.timestamp_utc = s.timestamp_utc AND l.expiration = 'TOTAL';

-- Strikes of one expiration joined to that expiration's levels row (same session and capture).
CREATE OR REPLACE VIEW strikes_expiry AS
SELECT s.exchange, s.symbol, s.session_date, s.timestamp_utc, s.expiration_date, l.dte, s.strike,
       s.call_gex, s.put_gex, s.net_gex, s.call_oi, s.put_oi,
       l.spot, l.flip, l.regime, l.max_pain,
       (s.strike - l.spot) / nullif(l.spot, 0) * 100 AS distance_pct
  FROM strikes_by_expiry s
  LEFT JOIN levels l
    ON l.exchange = s.exchange AND l.symbol = s.symbol AND l.session_date = s.session_date
   AND l.timestamp_utc = s.timestamp_utc AND l.expiration_date = s.expiration_date;

-- The last TOTAL capture at or before ts (never after). With max_staleness (an INTERVAL), a capture
-- older than ts - max_staleness does not count: no row comes back.
CREATE OR REPLACE MACRO levels_asof(exch, sym, ts, max_staleness := NULL) AS TABLE
SELECT *
  FROM levels_total
 WHERE exchange = exch AND symbol = sym
   AND timestamp_utc <= CAST(ts AS TIMESTAMPTZ)
   AND (max_staleness IS NULL OR timestamp_utc >= CAST(ts AS TIMESTAMPTZ) - max_staleness)
 ORDER BY timestamp_utc DESC
 LIMIT 1;

-- The strikes of the last strikes capture at or before ts, by strike: the capture time first (a
-- top-1 that reads the newest row groups only), then its strikes and its TOTAL levels row by
-- equality on that capture (an inner join, so the capture reaches the levels scan as a filter).
CREATE OR REPLACE MACRO strikes_asof(exch, sym, ts, max_staleness := NULL) AS TABLE
WITH capture AS (
  SELECT session_date, timestamp_utc
    FROM strikes_total
   WHERE exchange = exch AND symbol = sym
     AND timestamp_utc <= CAST(ts AS TIMESTAMPTZ)
     AND (max_staleness IS NULL OR timestamp_utc >= CAST(ts AS TIMESTAMPTZ) - max_staleness)
   ORDER BY timestamp_utc DESC
   LIMIT 1
),
capture_levels AS (
  SELECT l.timestamp_utc, l.spot, l.flip, l.regime
    FROM levels l
    JOIN capture c ON l.session_date = c.session_date AND l.timestamp_utc = c.timestamp_utc
   WHERE l.exchange = exch AND l.symbol = sym AND l.expiration = 'TOTAL'
)
SELECT s.exchange, s.symbol, s.session_date, s.timestamp_utc, s.strike,
       s.call_gex, s.put_gex, s.net_gex, s.call_oi, s.put_oi,
       l.spot, l.flip, l.regime,
       (s.strike - l.spot) / nullif(l.spot, 0) * 100 AS distance_pct
  FROM strikes_total s
  JOIN capture c ON s.session_date = c.session_date AND s.timestamp_utc = c.timestamp_utc
  LEFT JOIN capture_levels l ON l.timestamp_utc = s.timestamp_utc
 WHERE s.exchange = exch AND s.symbol = sym
 ORDER BY s.strike;

-- ASOF-joins a user table (named by a string: pit_levels('trades')) with columns exchange, symbol, ts
-- to levels_total without look-ahead: every row of the table comes back once, with the columns of the
-- last capture at or before its ts (timestamp_utc says which), or NULLs when there is none or it is
-- older than max_staleness (DuckDB's ASOF JOIN has no tolerance clause). The levels side is cut to
-- the captures the table's times can reach, so a long history is not read whole; the join keys are
-- exchange, symbol and timestamp_utc, so NULL values elsewhere in levels cannot change the pick.
CREATE OR REPLACE MACRO pit_levels(tbl, max_staleness := NULL) AS TABLE
WITH reach AS (
  SELECT max(CAST(ts AS TIMESTAMPTZ)) AS hi, min(CAST(ts AS TIMESTAMPTZ)) - max_staleness AS lo
    FROM query_table(tbl)
)
SELECT t.*,
       CASE WHEN max_staleness IS NULL OR CAST(t.ts AS TIMESTAMPTZ) - l.timestamp_utc <= max_staleness
            THEN COLUMNS(l.* EXCLUDE (exchange, symbol)) END
  FROM query_table(tbl) t
  ASOF LEFT JOIN (SELECT levels_total.*
                    FROM levels_total, reach
                   WHERE timestamp_utc <= reach.hi
                     AND timestamp_utc >= coalesce(reach.lo, '-infinity'::TIMESTAMPTZ)) l
    ON l.exchange = t.exchange AND l.symbol = t.symbol AND CAST(t.ts AS TIMESTAMPTZ) >= l.timestamp_utc;

-- The latest TOTAL capture per (exchange, symbol) with 1d/7d/30d deltas (latest - reference): the
-- reference is the last capture of the latest session on or before (latest session - N days). Computed from
-- the sessions a reference can need instead of a window over the whole history: per pair, from
-- the latest session on or before (latest - 30 days) (or the pair's first session when it holds
-- none that old) to the day before the latest session.
CREATE OR REPLACE VIEW levels_compare AS
WITH last_capture AS (
  SELECT exchange, symbol, max(timestamp_utc) AS last_ts, max(session_date) AS last_date
    FROM levels
   WHERE expiration = 'TOTAL'
   GROUP BY exchange, symbol
),
reach AS (
  SELECT coalesce(max(t.session_date) FILTER (WHERE t.session_date <= c.last_date - 30), min(t.session_date)) AS first_needed
    FROM levels t
    JOIN last_capture c ON t.exchange = c.exchange AND t.symbol = c.symbol
   WHERE t.expiration = 'TOTAL' AND t.session_date <= c.last_date - 1
   GROUP BY t.exchange, t.symbol
),
latest AS (
  SELECT t.*
    FROM levels_total t
    JOIN last_capture c ON t.exchange = c.exchange AND t.symbol = c.symbol AND t.timestamp_utc = c.last_ts
),
closes AS (
  SELECT *
    FROM levels_total
   WHERE session_date >= (SELECT min(first_needed) FROM reach)
  QUALIFY row_number() OVER (PARTITION BY exchange, symbol, session_date ORDER BY timestamp_utc DESC) = 1
)
SELECT
  l.*,
  c1.session_date AS ref_session_date_1d,
  c1.timestamp_utc AS ref_timestamp_utc_1d,
  c1.type AS ref_type_1d,
  l.spot - c1.spot AS spot_delta_1d,
  l.flip - c1.flip AS flip_delta_1d,
  l.net_gex - c1.net_gex AS net_gex_delta_1d,
  l.abs_gex - c1.abs_gex AS abs_gex_delta_1d,
  l.p1_strike - c1.p1_strike AS p1_strike_delta_1d,
  l.n1_strike - c1.n1_strike AS n1_strike_delta_1d,
  l.s_price - c1.s_price AS s_price_delta_1d,
  l.v_price - c1.v_price AS v_price_delta_1d,
  c7.session_date AS ref_session_date_7d,
  c7.timestamp_utc AS ref_timestamp_utc_7d,
  c7.type AS ref_type_7d,
  l.spot - c7.spot AS spot_delta_7d,
  l.flip - c7.flip AS flip_delta_7d,
  l.net_gex - c7.net_gex AS net_gex_delta_7d,
  l.abs_gex - c7.abs_gex AS abs_gex_delta_7d,
  l.p1_strike - c7.p1_strike AS p1_strike_delta_7d,
  l.n1_strike - c7.n1_strike AS n1_strike_delta_7d,
  l.s_price - c7.s_price AS s_price_delta_7d,
  l.v_price - c7.v_price AS v_price_delta_7d,
  c30.session_date AS ref_session_date_30d,
  c30.timestamp_utc AS ref_timestamp_utc_30d,
  c30.type AS ref_type_30d,
  l.spot - c30.spot AS spot_delta_30d,
  l.flip - c30.flip AS flip_delta_30d,
  l.net_gex - c30.net_gex AS net_gex_delta_30d,
  l.abs_gex - c30.abs_gex AS abs_gex_delta_30d,
  l.p1_strike - c30.p1_strike AS p1_strike_delta_30d,
  l.n1_strike - c30.n1_strike AS n1_strike_delta_30d,
  l.s_price - c30.s_price AS s_price_delta_30d,
  l.v_price - c30.v_price AS v_price_delta_30d
FROM latest l
ASOF LEFT JOIN closes c1
  ON c1.exchange = l.exchange AND c1.symbol = l.symbol AND l.session_date - 1 >= c1.session_date
ASOF LEFT JOIN closes c7
  ON c7.exchange = l.exchange AND c7.symbol = l.symbol AND l.session_date - 7 >= c7.session_date
ASOF LEFT JOIN closes c30
  ON c30.exchange = l.exchange AND c30.symbol = l.symbol AND l.session_date - 30 >= c30.session_date;

-- Nearest walls of every TOTAL strikes capture: the strike above spot with the largest positive net
-- GEX (nearest_call_wall) and the strike below spot with the most negative net GEX
-- (nearest_put_wall), each within range_pct percent of spot (0 < distance_pct <= range_pct, and
-- -range_pct <= distance_pct < 0), with their net GEX. Not the API's walls (p1_strike, n1_strike: the
-- largest +/- net GEX of the whole chain, wherever it sits): these are the walls near the price. NULL
-- when no strike in range has net GEX of that sign, or the capture has no spot. A filter on exchange,
-- symbol, session_date or timestamp_utc reaches the table scans.
CREATE OR REPLACE MACRO nearest_walls(range_pct := 10) AS TABLE
SELECT exchange, symbol, session_date, timestamp_utc, any_value(spot) AS spot, range_pct * 1e0 AS range_pct, -- a DOUBLE; a CAST of a macro parameter reads back as CAST(... AS "DOUBLE"), another text at each open
       arg_max(strike, net_gex) FILTER (WHERE distance_pct > 0 AND distance_pct <= range_pct AND net_gex > 0) AS nearest_call_wall,
       max(net_gex) FILTER (WHERE distance_pct > 0 AND distance_pct <= range_pct AND net_gex > 0) AS nearest_call_wall_gex,
       arg_min(strike, net_gex) FILTER (WHERE distance_pct < 0 AND distance_pct >= -range_pct AND net_gex < 0) AS nearest_put_wall,
       min(net_gex) FILTER (WHERE distance_pct < 0 AND distance_pct >= -range_pct AND net_gex < 0) AS nearest_put_wall_gex
  FROM strikes
 GROUP BY exchange, symbol, session_date, timestamp_utc;

-- The nearest walls within 10% of spot, one row per TOTAL strikes capture.
CREATE OR REPLACE VIEW levels_nearest_walls AS
SELECT * FROM nearest_walls(range_pct := 10);

-- Research: what the next session did after each regime at the close. For every completed session of
-- the pair whose close has a regime, the next held completed session's close-to-close return
-- (next close spot / this close spot - 1, in percent) and its realized range (the highest minus the
-- lowest spot of the next session's captures, over this close's spot, in percent); then per regime:
-- how many sessions, the mean and the median of both. A session whose last capture is intraday (today,
-- not closed yet) is left out, as a close and as a next session.
CREATE OR REPLACE MACRO regime_returns(exch, sym) AS TABLE
WITH closes AS (
  SELECT session_date, spot, regime, row_number() OVER (ORDER BY session_date) AS n
    FROM levels_close
   WHERE exchange = exch AND symbol = sym AND coalesce(type, '') <> 'intraday'
),
ranges AS (
  SELECT session_date, max(spot) AS high, min(spot) AS low
    FROM levels_total
   WHERE exchange = exch AND symbol = sym
   GROUP BY session_date
),
steps AS (
  SELECT c.regime, (d.spot / c.spot - 1) * 100 AS next_return_pct, (r.high - r.low) / c.spot * 100 AS next_range_pct
    FROM closes c
    JOIN closes d ON d.n = c.n + 1
    JOIN ranges r ON r.session_date = d.session_date
   WHERE c.regime IS NOT NULL AND c.spot IS NOT NULL AND c.spot <> 0 AND d.spot IS NOT NULL
)
SELECT exch AS exchange, sym AS symbol, regime, count(*) AS sessions,
       avg(next_return_pct) AS mean_next_return_pct, median(next_return_pct) AS median_next_return_pct,
       avg(next_range_pct) AS mean_next_range_pct, median(next_range_pct) AS median_next_range_pct
  FROM steps
 GROUP BY regime
 ORDER BY regime;

-- Research: every TOTAL capture of the pair at which spot stood on the other side of the gamma flip
-- than at the capture before (spot at or above the flip counts as above): direction 'up' (now at or
-- above) or 'down', with both captures' spot and flip. The same crossings as the flip_cross alert rule.
-- A capture with no spot or flip, or after one, is no crossing.
CREATE OR REPLACE MACRO flip_crossings(exch, sym) AS TABLE
WITH caps AS (
  SELECT exchange, symbol, session_date, timestamp_utc, type, spot, flip, row_number() OVER (ORDER BY timestamp_utc) AS n
    FROM levels_total
   WHERE exchange = exch AND symbol = sym
)
SELECT c.exchange, c.symbol, c.session_date, c.timestamp_utc, c.type,
       CASE WHEN c.spot >= c.flip THEN 'up' ELSE 'down' END AS direction,
       c.spot, c.flip, p.timestamp_utc AS previous_timestamp_utc, p.spot AS previous_spot, p.flip AS previous_flip
  FROM caps c
  JOIN caps p ON p.n = c.n - 1
 WHERE (c.spot >= c.flip) <> (p.spot >= p.flip)
 ORDER BY c.timestamp_utc;
