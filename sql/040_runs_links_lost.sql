-- gexwh sync state, version 40: file link requests whose answer was lost per run. A link request
-- whose connection reset after the server may have charged it is counted here, apart from
-- credits_spent (the links that arrived): the run cost at most credits_spent + links_lost credits.
ALTER TABLE sync.runs ADD COLUMN links_lost INTEGER DEFAULT 0;
