// session_closes: each session's latest TOTAL capture time, what levels_close joins levels to by
// equality. Every write to levels refreshes the sessions it touched, in its own transaction, so the
// marker never disagrees with the rows (a stale one would hide a session's close or show an old one).
import type { DuckDBConnection } from '@duckdb/node-api';
import { num, readOne } from './read-rows.js';

/**
 * Recomputes the marker of the sessions listed by `sessions`, SQL naming rows of (exchange, symbol,
 * session_date) that may use $3 and on. $1 and $2 bound their session dates, so the read of levels
 * skips the row groups of every other date. A session left with no TOTAL row loses its marker.
 * Call inside the transaction that wrote levels.
 */
export async function refreshSessionCloses(
  conn: DuckDBConnection,
  sessions: string,
  params: [from: string | null, to: string | null, ...rest: string[]],
): Promise<void> {
  if (!(await hasSessionCloses(conn))) return;
  await conn.run(
    `DELETE FROM session_closes AS c USING (${sessions}) AS s
      WHERE c.exchange = s.exchange AND c.symbol = s.symbol AND c.session_date = s.session_date
        AND c.session_date BETWEEN $1::DATE AND $2::DATE`,
    params,
  );
  await conn.run(
    `INSERT INTO session_closes
     SELECT l.exchange, l.symbol, l.session_date, max(l.timestamp_utc)
       FROM levels AS l
       SEMI JOIN (${sessions}) AS s
         ON l.exchange = s.exchange AND l.symbol = s.symbol AND l.session_date = s.session_date
      WHERE l.expiration = 'TOTAL' AND l.session_date BETWEEN $1::DATE AND $2::DATE
      GROUP BY l.exchange, l.symbol, l.session_date
      ORDER BY l.session_date, l.exchange, l.symbol`,
    params,
  );
}

/** Recomputes every marker from levels (after deletes that may touch any session). */
export async function rebuildSessionCloses(conn: DuckDBConnection): Promise<void> {
  if (!(await hasSessionCloses(conn))) return;
  await conn.run('DELETE FROM session_closes');
  await conn.run(
    `INSERT INTO session_closes
     SELECT exchange, symbol, session_date, max(timestamp_utc)
       FROM levels WHERE expiration = 'TOTAL'
      GROUP BY exchange, symbol, session_date
      ORDER BY session_date, exchange, symbol`,
  );
}

/**
 * Whether the warehouse has the table (version 52 on). Tests open warehouses migrated only up to an
 * older version and load into them; those have no marker to keep, and migration 52 fills it.
 */
async function hasSessionCloses(conn: DuckDBConnection): Promise<boolean> {
  const { n } = await readOne(
    conn,
    `SELECT count(*)::INTEGER AS n FROM duckdb_tables()
      WHERE database_name = current_database() AND schema_name = 'main' AND table_name = 'session_closes'`,
    [],
    { n: num },
  );
  return n > 0;
}
