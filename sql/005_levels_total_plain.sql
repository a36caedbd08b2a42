-- History: the views and macros this warehouse version applied. The current definitions are in
-- sql/views.sql (applied after the numbered migrations whenever it changes); edit them there.
-- gexwh analysis surface, version 5: "a session whose levels file is loaded shows only the file's
-- rows" now holds in the levels table itself instead of being re-checked by every
-- query of levels_total (the NOT EXISTS of 003 made the view 4x a plain filter). The writers keep it:
-- loading a levels file deletes every row of its session, api rows included (loader.ts), and a
-- /history/levels fill never inserts into a session that has file rows (levels-api.ts).

-- Once, for warehouses written by an older version: delete the api rows 003's view was hiding (api
-- rows of a session that has TOTAL file rows), so the plain view below shows exactly what 003 showed.
DELETE FROM levels AS l
 WHERE l.source = 'api'
   AND EXISTS (SELECT 1 FROM levels f
                WHERE f.expiration = 'TOTAL' AND f.source = 'file'
                  AND f.exchange = l.exchange AND f.symbol = l.symbol
                  AND f.session_date = l.session_date);

-- TOTAL levels, one row per capture; file rows are preferred over api rows by construction (above).
-- Same columns as 002 and 003. Views and macros built on it (levels_close, strikes, levels_compare,
-- levels_asof, pit_levels) refer to it by name and need no change.
CREATE OR REPLACE VIEW levels_total AS
SELECT exchange, symbol, session_date, timestamp_utc, type, oi_date,
       spot, flip, flip_count, regime, net_gex, abs_gex, call_gex, put_gex,
       call_oi_total, put_oi_total, p1_strike, p1_gex, p2_strike, p2_gex,
       n1_strike, n1_gex, n2_strike, n2_gex, a1_strike, a1_gex, a2_strike, a2_gex,
       s_price, s_gex, v_price, v_gex, max_pain, atm_iv,
       schema_version, source
  FROM levels
 WHERE expiration = 'TOTAL';
