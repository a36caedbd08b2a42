-- gexwh warehouse schema, version 1. Column names are the contract: add, never rename.
-- Applied by src/warehouse/migrations.ts inside one transaction; sync.migrations is created by the runner.

CREATE SCHEMA IF NOT EXISTS sync;

-- One row per capture x expiration (TOTAL included). source: 'file' (daily levels file) or 'api'
-- (/history/levels fill, TOTAL only, replaced when the session's levels file loads).
CREATE TABLE levels (
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
  source          VARCHAR     NOT NULL CHECK (source IN ('file', 'api')),
  UNIQUE (exchange, symbol, timestamp_utc, expiration)
);

-- One row per capture x strike (TOTAL). The snapshot fields the file repeats live in levels.
-- No unique index: these tables are large, and whole files replace whole sessions.
CREATE TABLE strikes_total (
  exchange       VARCHAR     NOT NULL,
  symbol         VARCHAR     NOT NULL,
  session_date   DATE        NOT NULL,
  timestamp_utc  TIMESTAMPTZ NOT NULL,
  strike         DOUBLE      NOT NULL,  -- DOUBLE: there are half strikes
  call_gex       DOUBLE,
  put_gex        DOUBLE,
  net_gex        DOUBLE,
  call_oi        DOUBLE,
  put_oi         DOUBLE,
  schema_version INTEGER
);

-- One row per capture x expiration x strike.
CREATE TABLE strikes_by_expiry (
  exchange        VARCHAR     NOT NULL,
  symbol          VARCHAR     NOT NULL,
  session_date    DATE        NOT NULL,
  timestamp_utc   TIMESTAMPTZ NOT NULL,
  expiration_date DATE        NOT NULL,
  strike          DOUBLE      NOT NULL,
  call_gex        DOUBLE,
  put_gex         DOUBLE,
  net_gex         DOUBLE,
  call_oi         DOUBLE,
  put_oi          DOUBLE,
  schema_version  INTEGER
);

-- Remote coverage as last seen (GET /history/coverage).
CREATE TABLE sync.coverage (
  exchange         VARCHAR     NOT NULL,
  symbol           VARCHAR     NOT NULL,
  first_ts         TIMESTAMPTZ,
  last_ts          TIMESTAMPTZ,
  sessions         INTEGER,
  files_first_date DATE,
  files_last_date  DATE,
  fetched_at       TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (exchange, symbol)
);

-- Every manifest row last seen (GET /history/files listing).
CREATE TABLE sync.manifest (
  exchange       VARCHAR     NOT NULL,
  symbol         VARCHAR     NOT NULL,
  session_date   DATE        NOT NULL,
  file           VARCHAR     NOT NULL CHECK (file IN ('levels', 'strikes_total', 'strikes_by_expiry')),
  rows           BIGINT      NOT NULL,
  bytes          BIGINT      NOT NULL,
  sha256         VARCHAR     NOT NULL,
  schema_version INTEGER,
  listed_at      TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (exchange, symbol, session_date, file)
);

-- The ledger: one row per file version (sha256) downloaded.
CREATE TABLE sync.files (
  exchange      VARCHAR     NOT NULL,
  symbol        VARCHAR     NOT NULL,
  session_date  DATE        NOT NULL,
  file          VARCHAR     NOT NULL CHECK (file IN ('levels', 'strikes_total', 'strikes_by_expiry')),
  sha256        VARCHAR     NOT NULL,
  bytes         BIGINT,
  rows          BIGINT,
  archive_path  VARCHAR,
  downloaded_at TIMESTAMPTZ,
  loaded_at     TIMESTAMPTZ,
  status        VARCHAR     NOT NULL CHECK (status IN ('loaded', 'failed_verify', 'failed_load', 'superseded')),
  error         VARCHAR,
  updated_at    TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (exchange, symbol, session_date, file, sha256)
);

CREATE SEQUENCE sync.runs_id_seq START 1;

-- One row per sync (or rebuild/repair) run.
CREATE TABLE sync.runs (
  run_id         BIGINT      PRIMARY KEY DEFAULT nextval('sync.runs_id_seq'),
  command        VARCHAR     NOT NULL,
  options        JSON,                  -- never holds the API key
  started_at     TIMESTAMPTZ NOT NULL,
  finished_at    TIMESTAMPTZ,
  credits_spent  INTEGER,
  requests_spent INTEGER,
  files_planned  INTEGER,
  files_loaded   INTEGER,
  files_failed   INTEGER,
  files_deferred INTEGER,
  rows_loaded    BIGINT,
  bytes_downloaded BIGINT,
  outcome        VARCHAR,               -- ok | partial | failed | interrupted | locked | dry_run
  error          VARCHAR
);
