-- gexwh schema version 52: session_closes, the time of each session's last TOTAL capture, so that
-- levels_close is an equality join instead of a per-session window over the pair's whole history
-- (a window must group on exchange, symbol and session, and cost up to 3.5x a query that knew its
-- pair). Written by the loader, the /history/levels fill and rebuild in the same transaction as
-- their writes to levels; filled here from the rows already held.
CREATE TABLE session_closes (
  exchange      VARCHAR     NOT NULL,
  symbol        VARCHAR     NOT NULL,
  session_date  DATE        NOT NULL,
  timestamp_utc TIMESTAMPTZ NOT NULL  -- the session's latest TOTAL capture in levels
);
INSERT INTO session_closes
SELECT exchange, symbol, session_date, max(timestamp_utc)
  FROM levels
 WHERE expiration = 'TOTAL'
 GROUP BY exchange, symbol, session_date
 ORDER BY session_date, exchange, symbol;
