-- History: the views and macros this warehouse version applied. The current definitions are in
-- sql/views.sql (applied after the numbered migrations whenever it changes); edit them there.
-- gexwh views and point-in-time macros. Plain SQL over the contract tables; every
-- name here is part of the contract and documented column by column in the README.

-- TOTAL levels, one row per capture. (exchange, symbol, timestamp_utc, expiration) is unique in
-- levels, so a capture has one row: api fills never overwrite file rows (they insert with
-- ON CONFLICT DO NOTHING) and a session's levels file deletes its api rows when it loads.
CREATE OR REPLACE VIEW levels_total AS
SELECT exchange, symbol, session_date, timestamp_utc, type, oi_date,
       spot, flip, flip_count, regime, net_gex, abs_gex, call_gex, put_gex, call_oi_total, put_oi_total, p1_strike, p1_gex, p2_strike, p2_gex, n1_strike, n1_gex, n2_strike, n2_gex, a1_strike, a1_gex, a2_strike, a2_gex, s_price, s_gex, v_price, v_gex, max_pain, atm_iv,
       schema_version, source
  FROM levels
 WHERE expiration = 'TOTAL';

-- The daily series: the last capture of each session.
CREATE OR REPLACE VIEW levels_close AS
SELECT *
  FROM levels_total
QUALIFY row_number() OVER (PARTITION BY exchange, symbol, session_date ORDER BY timestamp_utc DESC) = 1;

-- Per-expiration levels (expiration_date set, dte in days).
CREATE OR REPLACE VIEW levels_expiry AS
SELECT *
  FROM levels
 WHERE expiration <> 'TOTAL';

-- TOTAL strikes with their capture's spot, flip and regime; distance_pct = (strike - spot) / spot * 100.
CREATE OR REPLACE VIEW strikes AS
SELECT s.exchange, s.symbol, s.session_date, s.timestamp_utc, s.strike,
       s.call_gex, s.put_gex, s.net_gex, s.call_oi, s.put_oi,
       l.spot, l.flip, l.regime,
       (s.strike - l.spot) / nullif(l.spot, 0) * 100 AS distance_pct
  FROM strikes_total s
  LEFT JOIN levels_total l
    ON l.exchange = s.exchange AND l.symbol = s.symbol AND l.timestamp_utc = s.timestamp_utc;

-- Strikes of one expiration joined to that expiration's levels row (timestamp_utc + expiration).
CREATE OR REPLACE VIEW strikes_expiry AS
SELECT s.exchange, s.symbol, s.session_date, s.timestamp_utc, s.expiration_date, l.dte, s.strike,
       s.call_gex, s.put_gex, s.net_gex, s.call_oi, s.put_oi,
       l.spot, l.flip, l.regime, l.max_pain,
       (s.strike - l.spot) / nullif(l.spot, 0) * 100 AS distance_pct
  FROM strikes_by_expiry s
  LEFT JOIN levels l
    ON l.exchange = s.exchange AND l.symbol = s.symbol AND l.timestamp_utc = s.timestamp_utc
   AND l.expiration_date = s.expiration_date;

-- Point in time: the last TOTAL capture at or before ts, never after.
CREATE OR REPLACE MACRO levels_asof(exch, sym, ts) AS TABLE
SELECT *
  FROM levels_total
 WHERE exchange = exch AND symbol = sym AND timestamp_utc <= CAST(ts AS TIMESTAMPTZ)
 ORDER BY timestamp_utc DESC
 LIMIT 1;

-- Point in time: the strikes (with spot, flip, regime) of the last capture at or before ts.
CREATE OR REPLACE MACRO strikes_asof(exch, sym, ts) AS TABLE
SELECT *
  FROM strikes
 WHERE exchange = exch AND symbol = sym
   AND timestamp_utc = (SELECT max(timestamp_utc) FROM strikes_total
                         WHERE exchange = exch AND symbol = sym AND timestamp_utc <= CAST(ts AS TIMESTAMPTZ))
 ORDER BY strike;

-- ASOF-joins a user table (by name) with columns exchange, symbol, ts to levels_total without
-- look-ahead: each row gets the last capture at or before its ts (timestamp_utc shows which).
CREATE OR REPLACE MACRO pit_levels(tbl) AS TABLE
SELECT t.*, l.* EXCLUDE (exchange, symbol)
  FROM query_table(tbl) t
  ASOF LEFT JOIN levels_total l
    ON l.exchange = t.exchange AND l.symbol = t.symbol AND CAST(t.ts AS TIMESTAMPTZ) >= l.timestamp_utc;

-- The latest TOTAL capture per (exchange, symbol) with 1d/7d/30d deltas (latest - reference) by
-- the spec's compare rule: the reference is the last capture of the latest session on or before
-- the latest session_date minus N days (session dates are already in the market's calendar, so a
-- weekend reference gives the Friday close). NULL when the warehouse holds no session that far back.
CREATE OR REPLACE VIEW levels_compare AS
WITH latest AS (
  SELECT *
    FROM levels_total
  QUALIFY row_number() OVER (PARTITION BY exchange, symbol ORDER BY timestamp_utc DESC) = 1
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
ASOF LEFT JOIN levels_close c1
  ON c1.exchange = l.exchange AND c1.symbol = l.symbol AND l.session_date - 1 >= c1.session_date
ASOF LEFT JOIN levels_close c7
  ON c7.exchange = l.exchange AND c7.symbol = l.symbol AND l.session_date - 7 >= c7.session_date
ASOF LEFT JOIN levels_close c30
  ON c30.exchange = l.exchange AND c30.symbol = l.symbol AND l.session_date - 30 >= c30.session_date;
