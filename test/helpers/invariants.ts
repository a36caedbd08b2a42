// The warehouse invariants every reliability scenario ends on: nothing lost (ledger `loaded` ⇔ rows
// present, as many as the ledger says), nothing duplicated (unique keys, one loaded version per file),
// no temp file left, every loaded file archived with its sha256. Read-only, so it can run between
// runs of a crash loop without changing what the next run sees.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { withAttachedWarehouse } from './attached-warehouse.js';
import { listFiles } from './sync.js';

export interface WarehouseReport {
  /** Ledger rows with status loaded. */
  loadedFiles: number;
  /** Loaded ledger rows whose table holds a different number of rows than the ledger says. */
  rowMismatches: string[];
  /** (exchange, symbol, session_date, file) with rows in a table but no loaded ledger row. */
  orphanRows: string[];
  /** Rows sharing a unique key, summed over the three tables. */
  duplicateRows: number;
  /** Files with more than one loaded version. */
  doubleLoaded: number;
  /** Loaded files whose archive copy is missing or has another sha256. */
  archiveProblems: string[];
  /** `.part` files left in the archive. */
  tempFiles: string[];
}

const ROWS_PER_FILE = `
  WITH counted AS (
    SELECT exchange, symbol, session_date, 'levels' AS file, count(*) AS n FROM levels WHERE source = 'file' GROUP BY ALL
    UNION ALL SELECT exchange, symbol, session_date, 'strikes_total', count(*) FROM strikes_total GROUP BY ALL
    UNION ALL SELECT exchange, symbol, session_date, 'strikes_by_expiry', count(*) FROM strikes_by_expiry GROUP BY ALL),
  loaded AS (SELECT * FROM sync.files WHERE status = 'loaded')`;

const DUPLICATES = `
  SELECT (SELECT count(*) FROM (SELECT count(*) c FROM levels GROUP BY exchange, symbol, timestamp_utc, expiration HAVING c > 1))
       + (SELECT count(*) FROM (SELECT count(*) c FROM strikes_total GROUP BY exchange, symbol, timestamp_utc, strike HAVING c > 1))
       + (SELECT count(*) FROM (SELECT count(*) c FROM strikes_by_expiry GROUP BY exchange, symbol, timestamp_utc, expiration_date, strike HAVING c > 1))
    AS n`;

export function inspectWarehouse(dbPath: string, archiveRoot: string): Promise<WarehouseReport> {
  return withAttachedWarehouse(dbPath, async (connection) => {
    const rows = async <T>(sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJson() as T[];
    const [{ n: loadedFiles } = { n: 0 }] = await rows<{ n: number }>(`SELECT count(*)::INT n FROM sync.files WHERE status = 'loaded'`);
    const mismatched = await rows<{ k: string }>(`${ROWS_PER_FILE}
      SELECT concat_ws('/', l.exchange, l.symbol, l.session_date, l.file, coalesce(c.n, 0), l.rows) k
        FROM loaded l LEFT JOIN counted c USING (exchange, symbol, session_date, file) WHERE c.n IS DISTINCT FROM l.rows`);
    const orphans = await rows<{ k: string }>(`${ROWS_PER_FILE}
      SELECT concat_ws('/', c.exchange, c.symbol, c.session_date, c.file) k
        FROM counted c ANTI JOIN loaded l USING (exchange, symbol, session_date, file)`);
    const [dup] = await rows<{ n: number }>(DUPLICATES);
    const [twice] = await rows<{ n: number }>(
      `SELECT count(*)::INT n FROM (SELECT 1 FROM sync.files WHERE status = 'loaded' GROUP BY exchange, symbol, session_date, file HAVING count(*) > 1)`,
    );
    const archived = await rows<{ archive_path: string | null; sha256: string }>(`SELECT archive_path, sha256 FROM sync.files WHERE status = 'loaded'`);
    return {
      loadedFiles,
      rowMismatches: mismatched.map((r) => r.k),
      orphanRows: orphans.map((r) => r.k),
      duplicateRows: Number(dup?.n ?? 0),
      doubleLoaded: twice?.n ?? 0,
      archiveProblems: archived.filter((f) => !archivedIntact(archiveRoot, f.archive_path, f.sha256)).map((f) => f.archive_path ?? '(no path)'),
      tempFiles: (await listFiles(archiveRoot)).filter((f) => f.endsWith('.part')),
    };
  });
}

/** The ledger records paths relative to the archive root (an absolute one is a problem in itself). */
function archivedIntact(archiveRoot: string, recorded: string | null, sha256: string): boolean {
  if (recorded === null || isAbsolute(recorded) || recorded.split(/[\\/]/).includes('..')) return false;
  const path = join(archiveRoot, recorded);
  if (!existsSync(path)) return false;
  return createHash('sha256').update(readFileSync(path)).digest('hex') === sha256;
}

/** The report of a consistent warehouse holding `loadedFiles` files. */
export function consistent(loadedFiles: number): WarehouseReport {
  return { loadedFiles, rowMismatches: [], orphanRows: [], duplicateRows: 0, doubleLoaded: 0, archiveProblems: [], tempFiles: [] };
}

/** Order-independent checksums of the data tables (hash of every row, summed). */
export function tableChecksums(dbPath: string): Promise<Record<string, string>> {
  return withAttachedWarehouse(dbPath, async (connection) => {
    const out: Record<string, string> = {};
    // levels without the load bookkeeping columns a rebuild or reload may set differently.
    const tables = {
      levels: `SELECT * EXCLUDE (source) FROM levels WHERE source = 'file'`,
      strikes_total: 'SELECT * FROM strikes_total',
      strikes_by_expiry: 'SELECT * FROM strikes_by_expiry',
    };
    for (const [name, select] of Object.entries(tables)) {
      const reader = await connection.runAndReadAll(`SELECT count(*)::BIGINT n, sum(hash(t))::HUGEINT h FROM (${select}) t`);
      const [row] = reader.getRowObjectsJson() as { n: string | number; h: string | number | null }[];
      out[name] = `${row?.n}:${row?.h}`;
    }
    return out;
  });
}
