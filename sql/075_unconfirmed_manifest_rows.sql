-- gexwh sync state, version 75: manifest rows stored from the archive's journal without being checked
-- against the API's manifest (gexwh load --trust-journal with no key configured). A journal's listing
-- is a claim anyone who can write the archive can make; these rows, and any file loaded under them,
-- stay unconfirmed (gexwh verify names them) until a run with a key lists the API's manifest for them.
CREATE TABLE sync.unconfirmed_manifest (
  exchange     VARCHAR     NOT NULL,
  symbol       VARCHAR     NOT NULL,
  session_date DATE        NOT NULL,
  file         VARCHAR     NOT NULL,
  sha256       VARCHAR     NOT NULL,
  stored_at    TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (exchange, symbol, session_date, file)
);
