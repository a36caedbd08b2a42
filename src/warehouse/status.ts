// `gexwh status`'s local side: per (exchange, symbol) of the coverage, what the warehouse holds,
// lacks and failed, and the last runs. Stores the fresh coverage when it may write.
import { LockError } from '../core/errors.js';
import { checkSelectionNames, type NameSelection } from '../core/known-names.js';
import { heldPairs, HELD_SOURCE } from './held-pairs.js';
import { openReader, openWarehouse, type Warehouse } from './open.js';
import { creditsSpent, lastRun, type RunRow } from './runs.js';
import { upsertCoverage } from './manifest.js';
import { nullable, num, readRows, text, type RowOf } from './read-rows.js';
import { listLayouts, type LayoutRecord } from './schema-evolution.js';

export { describeLayout } from './schema-evolution.js';

// The fresh coverage as the status command passes it (checked by sync/coverage's usableCoverage).
type Row = Record<string, unknown>;

const PAIR_ROW = {
  exchange: text,
  symbol: text,
  remote_first: nullable(text),
  remote_last: nullable(text),
  manifest_from: nullable(text),
  sessions_held: num,
  newest_held: nullable(text),
  files_loaded: num,
  /** Null: the pair's manifest was never listed. */
  files_missing: nullable(num),
  files_failed: num,
};

export type StatusPair = RowOf<typeof PAIR_ROW> & { state: string };

export interface WarehouseStatus {
  pairs: StatusPair[];
  lastRun: RunRow | undefined;
  lastSync: RunRow | undefined;
  /** Credits spent by the runs recorded in the warehouse. */
  creditsSpent?: { sinceMidnightUtc: number; allRuns: number };
  /** Set when another process holds the warehouse read-write, so nothing of it could be read. */
  held?: string;
  /** The daily file layouts loaded so far (sync.layouts). */
  layouts?: LayoutRecord[];
}

/**
 * Stores the coverage just fetched, when nobody else holds the warehouse; beside a reader or a
 * writer the status shows the coverage last stored. Sandboxed like the reads: a view from elsewhere
 * that a migration or the upsert touches reads no file.
 */
async function storeCoverage(db: string, freshCoverage: Row[]): Promise<void> {
  let warehouse: Warehouse;
  try {
    warehouse = await openWarehouse(db, { sandbox: { writable: true } });
  } catch (error) {
    if (error instanceof LockError) return;
    throw error;
  }
  try {
    await upsertCoverage(warehouse.connection, freshCoverage as never, new Date());
  } finally {
    warehouse.close();
  }
}

/** The sandboxed reader; beside a writer, nothing. */
async function openForStatus(db: string): Promise<Warehouse | { held: string }> {
  try {
    return await openReader(db);
  } catch (error) {
    if (!(error instanceof LockError)) throw error;
    return { held: `${error.message}; its tables cannot be read until it lets go` };
  }
}

export async function readWarehouseStatus(db: string, freshCoverage: Row[] | undefined, filter: NameSelection): Promise<WarehouseStatus> {
  if (freshCoverage) await storeCoverage(db, freshCoverage);
  const warehouse = await openForStatus(db);
  if ('held' in warehouse) return { pairs: [], lastRun: undefined, lastSync: undefined, held: warehouse.held };
  try {
    const conn = warehouse.connection;
    if (filter.exchanges || filter.symbols) checkSelectionNames(filter, { pairs: await heldPairs(conn), source: HELD_SOURCE });
    const pairs = await readRows(
      conn,
      `
      WITH loaded AS (
        SELECT exchange, symbol, count(DISTINCT session_date)::INTEGER AS sessions_held,
               max(session_date)::VARCHAR AS newest_held, count(*)::INTEGER AS files_loaded
          FROM sync.files WHERE status = 'loaded' GROUP BY ALL),
      failed AS (
        SELECT exchange, symbol, count(*)::INTEGER AS files_failed
          FROM sync.files f WHERE status IN ('failed_verify', 'failed_load')
           AND NOT EXISTS (SELECT 1 FROM sync.files g WHERE g.status = 'loaded' AND g.exchange = f.exchange
                             AND g.symbol = f.symbol AND g.session_date = f.session_date AND g.file = f.file)
         GROUP BY ALL),
      listed AS (
        -- From this session on the stored manifest is complete (a --since listing starts later).
        SELECT l.exchange, l.symbol,
               coalesce(l.complete_from, (SELECT min(m.session_date) FROM sync.manifest m
                                           WHERE m.exchange = l.exchange AND m.symbol = l.symbol))::VARCHAR AS manifest_from
          FROM sync.listings l),
      missing AS (
        SELECT m.exchange, m.symbol, count(*)::INTEGER AS files_missing
          FROM sync.manifest m
         WHERE NOT EXISTS (SELECT 1 FROM sync.files f WHERE f.status = 'loaded' AND f.exchange = m.exchange
                             AND f.symbol = m.symbol AND f.session_date = m.session_date AND f.file = m.file AND f.sha256 = m.sha256)
         GROUP BY ALL)
      SELECT c.exchange, c.symbol, c.files_first_date::VARCHAR AS remote_first, c.files_last_date::VARCHAR AS remote_last,
             li.manifest_from, coalesce(l.sessions_held, 0) AS sessions_held, l.newest_held,
             coalesce(l.files_loaded, 0) AS files_loaded,
             -- Unknown, not 0, for a pair whose manifest was never listed: nothing says what it lacks.
             CASE WHEN li.manifest_from IS NULL AND l.files_loaded IS NULL THEN NULL ELSE coalesce(mi.files_missing, 0) END AS files_missing,
             coalesce(f.files_failed, 0) AS files_failed
        FROM sync.coverage c
        LEFT JOIN listed li USING (exchange, symbol)
        LEFT JOIN loaded l USING (exchange, symbol)
        LEFT JOIN failed f USING (exchange, symbol)
        LEFT JOIN missing mi USING (exchange, symbol)
       ORDER BY c.exchange, c.symbol`,
      [],
      PAIR_ROW,
    );
    const chosen = pairs
      .filter((row) => (!filter.exchanges || filter.exchanges.includes(row.exchange)) && (!filter.symbols || filter.symbols.includes(row.symbol)))
      .map((row) => ({ ...row, state: pairState(row) }));
    return {
      pairs: chosen,
      lastRun: await lastRun(conn),
      lastSync: await lastRun(conn, 'sync'),
      creditsSpent: await creditsSpent(conn),
      layouts: await listLayouts(conn),
    };
  } finally {
    warehouse.close();
  }
}

/** One word on a pair for the reader: what its numbers add up to, worst first. */
export function pairState(row: RowOf<typeof PAIR_ROW>): string {
  if (row.files_missing === null) return 'never synced';
  if (row.files_failed > 0) return 'failed files';
  if (row.files_missing > 0) return 'files missing';
  if (row.remote_last !== null && (row.newest_held === null || row.remote_last > row.newest_held)) return 'behind remote';
  return 'up to date';
}
