-- gexwh export ledger, version 4: one row per partition file written by `gexwh export`, so a rerun
-- writes only new or changed sessions. The fingerprint is taken from the loaded file
-- versions (sha256 in sync.files), the partition's row count and the table's column layout.
CREATE TABLE sync.exports (
  out_dir      VARCHAR     NOT NULL,  -- absolute export root
  table_name   VARCHAR     NOT NULL CHECK (table_name IN ('levels', 'strikes_total', 'strikes_by_expiry')),
  exchange     VARCHAR     NOT NULL,
  symbol       VARCHAR     NOT NULL,
  session_date DATE        NOT NULL,
  format       VARCHAR     NOT NULL CHECK (format IN ('parquet', 'csv')),
  fingerprint  VARCHAR     NOT NULL,
  rows         BIGINT      NOT NULL,
  path         VARCHAR     NOT NULL,  -- the partition file, absolute
  exported_at  TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (out_dir, table_name, exchange, symbol, session_date, format)
);
