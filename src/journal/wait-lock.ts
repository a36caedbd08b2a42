// Its own module so --help can show the default without loading the loader and DuckDB.
/** A nightly cron run waits this long for a reader to let the warehouse go before it gives up (exit 5). */
export const DEFAULT_WAIT_LOCK_SECONDS = 300;
