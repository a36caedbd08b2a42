-- levels without its UNIQUE (exchange, symbol, timestamp_utc, expiration) index. DuckDB writes an
-- ART index whole at every checkpoint, so the index made each nightly sync pay for the history held
-- (measured: +80 ms per checkpoint at one year of one symbol, growing linearly). Uniqueness is kept
-- by the writers instead, as for strikes_total and strikes_by_expiry, which never had an index: a
-- levels file replaces every row of its session and the loader refuses a batch with a repeated
-- capture (loader.ts), and a /history/levels fill inserts only captures not held (levels-api.ts).
-- DuckDB cannot drop a constraint, so the table is copied; views bind by name and need no change.
CREATE TABLE levels_v6 (
  exchange        VARCHAR     NOT NULL,
  symbol          VARCHAR     NOT NULL,
  session_date    DATE        NOT NULL,
  timestamp_utc   TIMESTAMPTZ NOT NULL,
  type            VARCHAR,
  oi_date         DATE,
  expiration      VARCHAR     NOT NULL,  -- 'TOTAL' or ISO date text
  expiration_date DATE,                  -- NULL for TOTAL
  dte             DOUBLE,
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
  schema_version  INTEGER,
  source          VARCHAR     NOT NULL CHECK (source IN ('file', 'api'))
);

INSERT INTO levels_v6 SELECT * FROM levels;
DROP TABLE levels;
ALTER TABLE levels_v6 RENAME TO levels;
