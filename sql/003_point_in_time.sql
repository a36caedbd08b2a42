-- History: the views and macros this warehouse version applied. The current definitions are in
-- sql/views.sql (applied after the numbered migrations whenever it changes); edit them there.
-- gexwh analysis surface, version 3: file rows win over api rows per session, and the point-in-time
-- macros gain a max_staleness tolerance. Replaces the definitions of 002 with the same
-- names and a compatible call shape: levels_asof(exch, sym, ts) still works, max_staleness is optional.

-- TOTAL levels, one row per capture. A session whose levels file is loaded shows only the file's
-- rows: api rows (/history/levels fills) of that session are hidden even when their timestamps
-- differ from the file's, so a late fill never mixes into a file-backed session.
CREATE OR REPLACE VIEW levels_total AS
SELECT l.exchange, l.symbol, l.session_date, l.timestamp_utc, l.type, l.oi_date,
       l.spot, l.flip, l.flip_count, l.regime, l.net_gex, l.abs_gex, l.call_gex, l.put_gex,
       l.call_oi_total, l.put_oi_total, l.p1_strike, l.p1_gex, l.p2_strike, l.p2_gex,
       l.n1_strike, l.n1_gex, l.n2_strike, l.n2_gex, l.a1_strike, l.a1_gex, l.a2_strike, l.a2_gex,
       l.s_price, l.s_gex, l.v_price, l.v_gex, l.max_pain, l.atm_iv,
       l.schema_version, l.source
  FROM levels l
 WHERE l.expiration = 'TOTAL'
   AND (l.source = 'file'
        OR NOT EXISTS (SELECT 1 FROM levels f
                        WHERE f.expiration = 'TOTAL' AND f.source = 'file'
                          AND f.exchange = l.exchange AND f.symbol = l.symbol
                          AND f.session_date = l.session_date));

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

-- The strikes (with spot, flip, regime) of the last strikes capture at or before ts, by strike.
CREATE OR REPLACE MACRO strikes_asof(exch, sym, ts, max_staleness := NULL) AS TABLE
SELECT *
  FROM strikes
 WHERE exchange = exch AND symbol = sym
   AND timestamp_utc = (SELECT max(timestamp_utc) FROM strikes_total
                         WHERE exchange = exch AND symbol = sym
                           AND timestamp_utc <= CAST(ts AS TIMESTAMPTZ)
                           AND (max_staleness IS NULL OR timestamp_utc >= CAST(ts AS TIMESTAMPTZ) - max_staleness))
 ORDER BY strike;

-- ASOF-joins a user table (named by a string: pit_levels('trades')) with columns exchange, symbol,
-- ts to levels_total without look-ahead: every row of the table comes back once, with the columns of
-- the last capture at or before its ts (timestamp_utc says which, oi_date stays visible), or NULLs
-- when there is none, when ts/exchange/symbol is NULL, or when the capture is older than
-- max_staleness. The join runs on the key columns only and carries the levels as one struct, so
-- NULL values in levels can never make the join pick another row; the struct is unpacked at the end,
-- after the staleness test (DuckDB's ASOF JOIN has no tolerance clause).
CREATE OR REPLACE MACRO pit_levels(tbl, max_staleness := NULL) AS TABLE
SELECT t.*,
       unnest(CASE WHEN max_staleness IS NULL OR CAST(t.ts AS TIMESTAMPTZ) - l.pit_ts <= max_staleness
                   THEN l.pit_levels END)
  FROM query_table(tbl) t
  ASOF LEFT JOIN (SELECT exchange AS pit_exchange, symbol AS pit_symbol, timestamp_utc AS pit_ts,
                         struct_pack(*COLUMNS(* EXCLUDE (exchange, symbol))) AS pit_levels
                    FROM levels_total) l
    ON l.pit_exchange = t.exchange AND l.pit_symbol = t.symbol AND CAST(t.ts AS TIMESTAMPTZ) >= l.pit_ts;
