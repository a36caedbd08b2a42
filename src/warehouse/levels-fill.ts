// Warehouse side of `sync --fill-levels`: what one (exchange, symbol) already holds,
// and the write of fetched /history/levels rows. The insert itself is insertApiLevels (file rows
// win); here it runs in one transaction with the promotion of rows that became the session's close.
import type { DuckDBConnection } from '@duckdb/node-api';
import { inTransaction } from './transaction.js';
import { insertApiLevels, type HistoryLevelsRow } from './levels-api.js';
import { bool, readRows, text } from './read-rows.js';

export interface LevelsFillState {
  /** Sessions whose levels file is loaded (the ledger). */
  fileSessions: Set<string>;
  /** Sessions with api rows: last capture held (ISO) and whether the close row is among them. */
  api: Map<string, { lastCapture: string; complete: boolean }>;
}

export async function readLevelsFillState(conn: DuckDBConnection, exchange: string, symbol: string): Promise<LevelsFillState> {
  const files = await readRows(
    conn,
    `SELECT DISTINCT session_date::VARCHAR AS d FROM sync.files
      WHERE exchange = $1 AND symbol = $2 AND file = 'levels' AND status = 'loaded'`,
    [exchange, symbol],
    { d: text },
  );
  const api = await readRows(
    conn,
    `SELECT session_date::VARCHAR AS d,
            strftime(max(timestamp_utc) AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') AS last_capture,
            bool_or(type = 'close') AS complete
       FROM levels
      WHERE exchange = $1 AND symbol = $2 AND expiration = 'TOTAL' AND source = 'api'
      GROUP BY session_date`,
    [exchange, symbol],
    { d: text, last_capture: text, complete: bool },
  );
  return {
    fileSessions: new Set(files.map((row) => row.d)),
    api: new Map(api.map((row) => [row.d, { lastCapture: row.last_capture, complete: row.complete }])),
  };
}

/**
 * Inserts new api captures and marks held ones that the server now types close (a capture fetched
 * while its session was running comes back as close once the session completes). One transaction.
 * Returns the rows inserted.
 */
export async function writeApiLevels(conn: DuckDBConnection, exchange: string, symbol: string, rows: readonly HistoryLevelsRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  return await inTransaction(conn, async () => {
    const inserted = await insertApiLevels(conn, exchange, symbol, rows);
    for (const row of rows) {
      if (row.type !== 'close') continue;
      await conn.run(
        `UPDATE levels SET type = 'close'
          WHERE exchange = $1 AND symbol = $2 AND timestamp_utc = $3::TIMESTAMPTZ AND expiration = 'TOTAL'
            AND source = 'api' AND type IS DISTINCT FROM 'close'`,
        [exchange, symbol, row.timestamp_utc],
      );
    }
    return inserted;
  });
}
