-- gexwh live captures, version 10 (`gexwh capture`): snapshots of the
-- current-data endpoints, which the API's history does not keep. One capture is one as_of (the
-- server's snapshot time); capturing the same as_of twice adds nothing (primary keys, inserts
-- ON CONFLICT DO NOTHING). exchange is the resolved current-data venue (meta.exchange_resolved):
-- combined (all), tradfi, a single venue, or a +-joined subset.

-- /levels (TOTAL): every levels field plus the live meta.
CREATE TABLE live_levels (
  exchange        VARCHAR     NOT NULL,
  symbol          VARCHAR     NOT NULL,
  session_date    DATE        NOT NULL,  -- of as_of: UTC date (crypto), New York date (TradFi)
  as_of           TIMESTAMPTZ NOT NULL,
  expiration      VARCHAR     NOT NULL,  -- 'TOTAL'
  oi_as_of        DATE,
  data_source     VARCHAR,
  is_live         BOOLEAN,
  market_open     BOOLEAN,
  next_open       TIMESTAMPTZ,
  spot            DOUBLE,
  flip            DOUBLE,
  flip_count      INTEGER,
  regime          VARCHAR,
  net_gex         DOUBLE,
  abs_gex         DOUBLE,
  call_gex        DOUBLE,
  put_gex         DOUBLE,
  call_oi_total   DOUBLE,
  put_oi_total    DOUBLE,
  p1_strike       DOUBLE,
  p1_gex          DOUBLE,
  p2_strike       DOUBLE,
  p2_gex          DOUBLE,
  n1_strike       DOUBLE,
  n1_gex          DOUBLE,
  n2_strike       DOUBLE,
  n2_gex          DOUBLE,
  a1_strike       DOUBLE,
  a1_gex          DOUBLE,
  a2_strike       DOUBLE,
  a2_gex          DOUBLE,
  s_price         DOUBLE,
  s_gex           DOUBLE,
  v_price         DOUBLE,
  v_gex           DOUBLE,
  max_pain        DOUBLE,
  atm_iv          DOUBLE,
  captured_at     TIMESTAMPTZ NOT NULL,  -- meta.timestamp of the response
  PRIMARY KEY (exchange, symbol, as_of, expiration)
);

-- /gex/term-oi: one row per capture x expiration x venue, plus venue 'TOTAL' (the entry's total).
CREATE TABLE term_structure (
  exchange        VARCHAR     NOT NULL,
  symbol          VARCHAR     NOT NULL,
  session_date    DATE        NOT NULL,
  as_of           TIMESTAMPTZ NOT NULL,
  oi_as_of        DATE,
  data_source     VARCHAR,
  is_live         BOOLEAN,
  market_open     BOOLEAN,
  expiration      VARCHAR     NOT NULL,  -- DDMMMYY code as the API sends it
  expiration_date DATE,
  days_to_expiry  DOUBLE,
  venue           VARCHAR     NOT NULL,  -- a venue of the entry, or 'TOTAL'
  oi_usd          DOUBLE,
  call_oi_usd     DOUBLE,
  put_oi_usd      DOUBLE,
  contracts       DOUBLE,
  total_gex       DOUBLE,
  abs_gex         DOUBLE,
  upside_gex      DOUBLE,
  downside_gex    DOUBLE,
  spot            DOUBLE,                -- metadata.current_price
  entry_ts        TIMESTAMPTZ,           -- the entry's own timestamp
  captured_at     TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (exchange, symbol, as_of, expiration, venue)
);

-- /gex/by-strike-enhanced per expiration (--by-strike): one row per capture x expiration x strike.
CREATE TABLE live_strikes (
  exchange        VARCHAR     NOT NULL,
  symbol          VARCHAR     NOT NULL,
  session_date    DATE        NOT NULL,
  as_of           TIMESTAMPTZ NOT NULL,  -- metadata.timestamp_ms of the profile
  expiration      VARCHAR     NOT NULL,  -- DDMMMYY code
  expiration_date DATE,
  strike          DOUBLE      NOT NULL,
  call_gex        DOUBLE,
  put_gex         DOUBLE,
  net_gex         DOUBLE,
  total_gex       DOUBLE,
  spot            DOUBLE,                -- metadata.current_price
  captured_at     TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (exchange, symbol, as_of, expiration, strike)
);
