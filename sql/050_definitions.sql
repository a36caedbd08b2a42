-- gexwh schema, version 50: the views and macros live once, in sql/views.sql, re-applied whenever
-- that file changes. sync.definitions records the sha256 of the text last applied, so an upgrade
-- (or a fresh warehouse) runs it once after the numbered migrations, and an unchanged file costs
-- nothing at open. The numbered migrations before 50 keep the definitions they applied in their day:
-- they are the history an older warehouse went through, not the current views.
CREATE TABLE sync.definitions (
  name       VARCHAR     PRIMARY KEY,  -- 'views': sql/views.sql
  sha256     VARCHAR     NOT NULL,
  applied_at TIMESTAMPTZ NOT NULL
);
