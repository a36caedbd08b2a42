// The loader's checks before COMMIT, over the batch's files (a temp table the loader fills): each
// file's rows number the manifest's, and no capture × expiration is repeated.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { FileKind } from '../core/file-kinds.js';
import { describeFile, type Prepared } from './load-prepare.js';
import { num, readRows, text } from './read-rows.js';

/** The batch's files: a temp table the loader fills before reading them, and the checks join. */
export const FILES_TABLE = 'gexwh_load_files';

/** The batch's first and last session dates, as $1 and $2. */
export function dateRange(batch: Prepared[]): [string | null, string | null] {
  const dates = batch.map((item) => item.input.sessionDate).sort();
  return [dates[0] ?? null, dates[dates.length - 1] ?? null];
}

/**
 * Each file's rows, now in the table, must number the manifest's. Every inserted row was checked to
 * be of its file's session (load-sql.ts) and older rows of those sessions were deleted first, so the
 * session's count is the file's. The date range lets DuckDB skip the rest of a long history.
 */
export async function checkRowCounts(conn: DuckDBConnection, kind: FileKind, batch: Prepared[]): Promise<void> {
  const counts = await readRows(
    conn,
    // Count first, join after: joined first, DuckDB built its hash table on the batch's millions of rows.
    `SELECT f.path, f.rows::BIGINT AS expected, coalesce(t.n, 0)::BIGINT AS actual
       FROM temp.main.${FILES_TABLE} f
       LEFT JOIN (SELECT exchange, symbol, session_date, count(*) AS n FROM ${kind}
                   WHERE session_date BETWEEN $1::DATE AND $2::DATE
                   GROUP BY exchange, symbol, session_date) t
         ON t.exchange = f.exchange AND t.symbol = f.symbol AND t.session_date = f.session_date`,
    dateRange(batch),
    { path: text, expected: num, actual: num },
  );
  const problems: string[] = [];
  const byPath = new Map(batch.map((item) => [item.input.path, item.input]));
  for (const { path, expected, actual } of counts) {
    const input = byPath.get(path);
    if (!input) continue;
    if (actual !== expected) problems.push(`${describeFile(input)}: read ${actual} rows, the manifest says ${expected}`);
  }
  if (problems.length > 0) throw new Error(problems.join('; '));
}

/**
 * levels holds one row per capture × expiration. No index enforces it (an index is rewritten whole at
 * every checkpoint: sql/006), so the loader does, over the batch's sessions only: older rows of those
 * sessions were deleted, so a repeat can only come from the files just read.
 */
export async function checkUniqueCaptures(conn: DuckDBConnection, batch: Prepared[]): Promise<void> {
  const repeats = await readRows(
    conn,
    `SELECT t.exchange, t.symbol, t.session_date::VARCHAR AS session_date,
            strftime(t.timestamp_utc, '%Y-%m-%dT%H:%M:%SZ') AS timestamp_utc, t.expiration, count(*)::BIGINT AS copies
       FROM levels t
       SEMI JOIN temp.main.${FILES_TABLE} f
         ON t.exchange = f.exchange AND t.symbol = f.symbol AND t.session_date = f.session_date
      WHERE t.session_date BETWEEN $1::DATE AND $2::DATE
      GROUP BY ALL HAVING count(*) > 1
      ORDER BY ALL LIMIT 3`,
    dateRange(batch),
    { exchange: text, symbol: text, session_date: text, timestamp_utc: text, expiration: text, copies: num },
  );
  if (repeats.length === 0) return;
  const list = repeats.map((r) => `${r.exchange}/${r.symbol} ${r.session_date} capture ${r.timestamp_utc} expiration ${r.expiration} (${r.copies} rows)`);
  throw new Error(`the file repeats a capture × expiration: ${list.join('; ')}`);
}
