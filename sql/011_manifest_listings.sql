-- gexwh sync state, version 11: how much of each pair's manifest sync.manifest holds. Listing costs
-- a request per 400 rows, so a sync with --since lists only from that date, and a listing cut short
-- by --max-requests keeps what it read. complete_from is the oldest session date from which every
-- manifest row up to the newest stored one has been listed; NULL means from the pair's first file.
-- A later sync lists [its --since or the beginning, complete_from) when it needs older sessions.
CREATE TABLE sync.listings (
  exchange      VARCHAR     NOT NULL,
  symbol        VARCHAR     NOT NULL,
  complete_from DATE,
  listed_at     TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (exchange, symbol)
);

-- Every pair listed by an older version was listed from its first file (listings were whole or
-- not stored at all).
INSERT INTO sync.listings (exchange, symbol, complete_from, listed_at)
SELECT exchange, symbol, NULL, max(listed_at) FROM sync.manifest GROUP BY exchange, symbol;
