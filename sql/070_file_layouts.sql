-- Schema on read: each file's schema_version as loaded, and every file layout the loader has met.
-- The ledger records the schema_version a loaded file version was read as (the manifest's, else the
-- file's own column).
ALTER TABLE sync.files ADD COLUMN schema_version INTEGER;

-- One row per layout loaded: a file kind, a schema_version and a header (its names in file order,
-- comma-joined). first_file names the file it was first met in; columns_added lists the table columns
-- its unknown header names added (name and type, e.g. 'gamma_tilt DOUBLE'), empty when none.
CREATE TABLE sync.layouts (
  file           VARCHAR     NOT NULL CHECK (file IN ('levels', 'strikes_total', 'strikes_by_expiry')),
  schema_version INTEGER,
  header         VARCHAR     NOT NULL,
  first_file     VARCHAR     NOT NULL,
  first_seen_at  TIMESTAMPTZ NOT NULL,
  columns_added  VARCHAR[]   NOT NULL
);
