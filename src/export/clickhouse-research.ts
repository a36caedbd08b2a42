// The research macros of sql/views.sql (regime_returns, flip_crossings) for ClickHouse, as
// parameterized views (exchange, symbol): the same self-joins on row numbers as in DuckDB, so both
// engines pair the same rows; the median is quantileExactInclusive(0.5), which interpolates between the
// two middle values as DuckDB's median does.
const PAIR = `exchange = {exchange:String} AND symbol = {symbol:String}`;

export const CLICKHOUSE_RESEARCH_VIEWS = `-- regime_returns(exchange = 'deribit', symbol = 'BTC'): per regime at a completed session's close, the
-- next completed session's close-to-close return and realized range (percent): count, mean, median.
CREATE OR REPLACE VIEW regime_returns AS
WITH closes AS (
  SELECT session_date, spot, regime, row_number() OVER (ORDER BY session_date) AS n
    FROM levels_close
   WHERE ${PAIR} AND ifNull(type, '') != 'intraday'
),
ranges AS (
  SELECT session_date, max(spot) AS high, min(spot) AS low
    FROM levels_total
   WHERE ${PAIR}
   GROUP BY session_date
),
steps AS (
  SELECT c.regime AS regime, (d.spot / c.spot - 1) * 100 AS next_return_pct, (r.high - r.low) / c.spot * 100 AS next_range_pct
    FROM closes AS c
    INNER JOIN closes AS d ON d.n = c.n + 1
    INNER JOIN ranges AS r ON r.session_date = d.session_date
   WHERE c.regime IS NOT NULL AND c.spot IS NOT NULL AND c.spot != 0 AND d.spot IS NOT NULL
)
SELECT {exchange:String} AS exchange, {symbol:String} AS symbol, regime, count() AS sessions,
       avg(next_return_pct) AS mean_next_return_pct, quantileExactInclusive(0.5)(next_return_pct) AS median_next_return_pct,
       avg(next_range_pct) AS mean_next_range_pct, quantileExactInclusive(0.5)(next_range_pct) AS median_next_range_pct
  FROM steps
 GROUP BY regime
 ORDER BY regime;

-- flip_crossings(exchange = 'deribit', symbol = 'BTC'): every TOTAL capture at which spot stood on the
-- other side of the gamma flip than at the capture before (at or above counts as above).
CREATE OR REPLACE VIEW flip_crossings AS
WITH caps AS (
  SELECT exchange, symbol, session_date, timestamp_utc, type, spot, flip, row_number() OVER (ORDER BY timestamp_utc) AS n
    FROM levels_total
   WHERE ${PAIR}
)
SELECT c.exchange AS exchange, c.symbol AS symbol, c.session_date AS session_date, c.timestamp_utc AS timestamp_utc, c.type AS type,
       if(c.spot >= c.flip, 'up', 'down') AS direction, c.spot AS spot, c.flip AS flip,
       p.timestamp_utc AS previous_timestamp_utc, p.spot AS previous_spot, p.flip AS previous_flip
  FROM caps AS c
  INNER JOIN caps AS p ON p.n + 1 = c.n
 WHERE (c.spot >= c.flip) != (p.spot >= p.flip)
 ORDER BY c.timestamp_utc;
`;
