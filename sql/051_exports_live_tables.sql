-- gexwh export ledger, version 51: the export also writes the live-capture tables (live_levels,
-- term_structure, live_strikes), partitioned like the history tables, and to object storage: each
-- written file's sha256 and size are kept, so the export's manifest can list them and a rerun after
-- a cut can check an uploaded object (HEAD) instead of sending it again. The table_name CHECK of 004
-- named the three history tables only; DuckDB cannot alter a constraint, so the ledger is copied.
CREATE TABLE sync.exports_v51 (
  out_dir      VARCHAR     NOT NULL,  -- absolute export root, or the s3:// prefix
  table_name   VARCHAR     NOT NULL CHECK (table_name IN ('levels', 'strikes_total', 'strikes_by_expiry', 'live_levels', 'term_structure', 'live_strikes')),
  exchange     VARCHAR     NOT NULL,
  symbol       VARCHAR     NOT NULL,
  session_date DATE        NOT NULL,
  format       VARCHAR     NOT NULL CHECK (format IN ('parquet', 'csv')),
  fingerprint  VARCHAR     NOT NULL,
  rows         BIGINT      NOT NULL,
  path         VARCHAR     NOT NULL,  -- the partition file, absolute (or its object key)
  exported_at  TIMESTAMPTZ NOT NULL,
  sha256       VARCHAR,               -- of the file as written; NULL for rows of older versions
  bytes        BIGINT,
  PRIMARY KEY (out_dir, table_name, exchange, symbol, session_date, format)
);
INSERT INTO sync.exports_v51 SELECT *, NULL, NULL FROM sync.exports;
DROP TABLE sync.exports;
ALTER TABLE sync.exports_v51 RENAME TO exports;
