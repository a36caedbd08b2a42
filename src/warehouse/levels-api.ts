// Writes /history/levels rows (--fill-levels) as source 'api' TOTAL levels. File rows
// always win: a capture that exists is left alone, and a session that has its levels file loaded
// gets no api rows at all. When the file loads later it deletes the session's api rows (loader).
import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import { DATE_PATTERN, LEVELS_FIELDS } from './layouts.js';
import { refreshSessionCloses } from './session-closes.js';

/** A HistoryLevelsRow of the spec: TOTAL, no expiration or dte. */
export interface HistoryLevelsRow {
  schema_version: number;
  timestamp_utc: string;
  session_date: string;
  type: string;
  exchange?: string;
  symbol?: string;
  oi_date: string | null;
  [field: string]: unknown;
}

const STAGE = 'gexwh_api_levels_stage';
const NUMERIC_FIELDS = LEVELS_FIELDS.filter((f) => f !== 'regime' && f !== 'flip_count');

function appendNumber(appender: DuckDBAppender, value: unknown): void {
  if (typeof value === 'number' && Number.isFinite(value)) appender.appendDouble(value);
  else appender.appendNull();
}

function appendText(appender: DuckDBAppender, value: unknown): void {
  if (typeof value === 'string') appender.appendVarchar(value);
  else appender.appendNull();
}

async function stage(conn: DuckDBConnection, rows: readonly HistoryLevelsRow[]): Promise<void> {
  const numeric = NUMERIC_FIELDS.map((f) => `${f} DOUBLE`).join(', ');
  await conn.run(
    `CREATE OR REPLACE TEMP TABLE ${STAGE} (timestamp_utc VARCHAR, session_date VARCHAR, type VARCHAR,
       oi_date VARCHAR, schema_version DOUBLE, flip_count DOUBLE, regime VARCHAR, ${numeric})`,
  );
  const appender = await conn.createAppender(STAGE, 'main', 'temp');
  for (const row of rows) {
    appendText(appender, row.timestamp_utc);
    appendText(appender, row.session_date);
    appendText(appender, row.type);
    appendText(appender, row.oi_date);
    appendNumber(appender, row.schema_version);
    appendNumber(appender, row.flip_count);
    appendText(appender, row.regime);
    for (const field of NUMERIC_FIELDS) appendNumber(appender, row[field]);
    appender.endRow();
  }
  appender.flushSync();
  appender.closeSync();
}

/** The sessions the staged rows belong to get their close marker recomputed (a fill can add a later capture). */
async function refreshApiSessions(conn: DuckDBConnection, exchange: string, symbol: string, rows: readonly HistoryLevelsRow[]): Promise<void> {
  const dates = rows.map((row) => row.session_date).sort();
  await refreshSessionCloses(
    conn,
    `SELECT DISTINCT $3::VARCHAR AS exchange, $4::VARCHAR AS symbol, session_date::DATE AS session_date FROM temp.main.${STAGE}`,
    [dates[0] ?? null, dates[dates.length - 1] ?? null, exchange, symbol],
  );
}

/** Inserts api levels rows for one (exchange, symbol); returns how many were new. */
export async function insertApiLevels(conn: DuckDBConnection, exchange: string, symbol: string, rows: readonly HistoryLevelsRow[]): Promise<number> {
  const unique = new Map<string, HistoryLevelsRow>();
  for (const row of rows) if (DATE_PATTERN.test(row.session_date)) unique.set(row.timestamp_utc, row);
  if (unique.size === 0) return 0;
  await stage(conn, [...unique.values()]);
  try {
    const fields = LEVELS_FIELDS.join(', ');
    const values = LEVELS_FIELDS.map((f) => (f === 'flip_count' ? 'CAST(s.flip_count AS INTEGER)' : `s.${f}`)).join(', ');
    const result = await conn.run(
      `INSERT INTO levels (exchange, symbol, session_date, timestamp_utc, type, oi_date, expiration, expiration_date, dte,
                           ${fields}, schema_version, source)
       SELECT $1, $2, s.session_date::DATE, s.timestamp_utc::TIMESTAMPTZ, s.type, s.oi_date::DATE, 'TOTAL', NULL, NULL,
              ${values}, CAST(s.schema_version AS INTEGER), 'api'
         FROM temp.main.${STAGE} s
        WHERE NOT EXISTS (SELECT 1 FROM levels f
                           WHERE f.exchange = $1 AND f.symbol = $2 AND f.session_date = s.session_date::DATE
                             AND (f.source = 'file' OR f.timestamp_utc = s.timestamp_utc::TIMESTAMPTZ))`,
      [exchange, symbol],
    );
    if (result.rowsChanged > 0) await refreshApiSessions(conn, exchange, symbol, [...unique.values()]);
    return result.rowsChanged;
  } finally {
    await conn.run(`DROP TABLE IF EXISTS temp.main.${STAGE}`);
  }
}
