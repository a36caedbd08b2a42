// Cross-checks between the ledger and the tables, for `verify`: every loaded file
// version must account for exactly its rows, and no session may hold rows no loaded file explains.
import type { DuckDBConnection } from '@duckdb/node-api';
import { FILE_KINDS, type FileKind } from '../core/file-kinds.js';
import { nullable, num, oneOf, readRows, text } from './read-rows.js';

export interface RowCountMismatch {
  exchange: string;
  symbol: string;
  sessionDate: string;
  file: FileKind;
  /** The loaded version's sha256; null when rows exist with no loaded ledger row. */
  sha256: string | null;
  expected: number;
  actual: number;
}

/** Per (exchange, symbol, session, file): ledger rows of the loaded version vs rows in the table. */
export async function rowCountMismatches(conn: DuckDBConnection): Promise<RowCountMismatch[]> {
  return readRows(
    conn,
    `
    WITH counts AS (
      SELECT exchange, symbol, session_date, 'levels' AS file, count(*) AS n FROM levels WHERE source = 'file' GROUP BY ALL
      UNION ALL
      SELECT exchange, symbol, session_date, 'strikes_total', count(*) FROM strikes_total GROUP BY ALL
      UNION ALL
      SELECT exchange, symbol, session_date, 'strikes_by_expiry', count(*) FROM strikes_by_expiry GROUP BY ALL
    ), ledger AS (
      SELECT exchange, symbol, session_date, file, sha256, rows FROM sync.files WHERE status = 'loaded'
    )
    SELECT exchange, symbol, session_date::VARCHAR AS "sessionDate", file, l.sha256,
           coalesce(l.rows, 0)::BIGINT AS expected, coalesce(c.n, 0)::BIGINT AS actual
      FROM ledger l FULL OUTER JOIN counts c USING (exchange, symbol, session_date, file)
     WHERE coalesce(l.rows, 0) <> coalesce(c.n, 0)
     ORDER BY exchange, symbol, session_date, file`,
    [],
    { exchange: text, symbol: text, sessionDate: text, file: oneOf(FILE_KINDS), sha256: nullable(text), expected: num, actual: num },
  );
}
