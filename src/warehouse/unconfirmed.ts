// The manifest rows a journal's listing put in sync.manifest without the API's word on them
// (`gexwh load --trust-journal` with no key): marked here until a run with a key checks them.
import type { DuckDBConnection } from '@duckdb/node-api';
import { readRows, text } from './read-rows.js';

export interface UnconfirmedRow {
  exchange: string;
  symbol: string;
  sessionDate: string;
  file: string;
  sha256: string;
}

/** Marks rows stored unchecked (a later mark of the same file replaces the earlier one). */
export async function markUnconfirmed(conn: DuckDBConnection, rows: readonly UnconfirmedRow[], at: Date = new Date()): Promise<void> {
  for (const row of rows) {
    await conn.run(
      `INSERT OR REPLACE INTO sync.unconfirmed_manifest (exchange, symbol, session_date, file, sha256, stored_at)
       VALUES ($1, $2, $3::DATE, $4, $5, $6::TIMESTAMPTZ)`,
      [row.exchange, row.symbol, row.sessionDate, row.file, row.sha256, at.toISOString()],
    );
  }
}

export async function listUnconfirmed(conn: DuckDBConnection): Promise<UnconfirmedRow[]> {
  return readRows(
    conn,
    `SELECT exchange, symbol, strftime(session_date, '%Y-%m-%d') AS session_date, file, sha256
       FROM sync.unconfirmed_manifest ORDER BY exchange, symbol, session_date, file`,
    [],
    { exchange: text, symbol: text, session_date: text, file: text, sha256: text },
  ).then((rows) => rows.map((r) => ({ exchange: r.exchange, symbol: r.symbol, sessionDate: r.session_date, file: r.file, sha256: r.sha256 })));
}

/** The marks of rows a run with a key has checked against the API's manifest. */
export async function dropUnconfirmed(conn: DuckDBConnection, rows: readonly UnconfirmedRow[]): Promise<void> {
  for (const row of rows) {
    await conn.run(`DELETE FROM sync.unconfirmed_manifest WHERE exchange = $1 AND symbol = $2 AND session_date = $3::DATE AND file = $4`, [
      row.exchange,
      row.symbol,
      row.sessionDate,
      row.file,
    ]);
  }
}

/** A manifest row the API does not list: it goes (an unconfirmed claim of a file that does not exist). */
export async function removeManifestRow(conn: DuckDBConnection, row: Omit<UnconfirmedRow, 'sha256'>): Promise<void> {
  await conn.run(`DELETE FROM sync.manifest WHERE exchange = $1 AND symbol = $2 AND session_date = $3::DATE AND file = $4`, [
    row.exchange,
    row.symbol,
    row.sessionDate,
    row.file,
  ]);
}
