// What `gexwh demo` prints once its sync is done: the rows per table, the newest TOTAL levels per
// pair, and three made-up trade times per pair joined to the levels known at that moment.
import { openReader } from './open.js';

type Row = Record<string, unknown>;

export async function demoReport(db: string): Promise<{ tables: Row[]; levels: Row[]; pointInTime: Row[] }> {
  const warehouse = await openReader(db);
  try {
    const read = async (sql: string) => (await warehouse.connection.runAndReadAll(sql)).getRowObjectsJson();
    const tables = await read(`
      SELECT 'levels' AS "table", count(*)::INTEGER AS rows FROM levels
      UNION ALL SELECT 'strikes_total', count(*)::INTEGER FROM strikes_total
      UNION ALL SELECT 'strikes_by_expiry', count(*)::INTEGER FROM strikes_by_expiry
      UNION ALL SELECT 'sync.files (loaded)', count(*)::INTEGER FROM sync.files WHERE status = 'loaded'`);
    const levels = await read(`
      SELECT exchange, symbol, strftime(timestamp_utc, '%Y-%m-%d %H:%M') AS captured_utc, type, spot, flip, regime,
             round(net_gex / 1e6, 2) AS net_gex_musd, p1_strike, n1_strike
        FROM levels WHERE expiration = 'TOTAL'
     QUALIFY row_number() OVER (PARTITION BY exchange, symbol ORDER BY timestamp_utc DESC) = 1
       ORDER BY exchange, symbol`);
    // Three made-up trade times per pair, joined to the levels known at that moment (no look-ahead).
    await warehouse.connection.run(`
      CREATE TEMP TABLE demo_trades AS
      SELECT exchange, symbol, max(timestamp_utc) - INTERVAL (offset_minutes) MINUTE AS ts
        FROM levels_total, (VALUES (7), (185), (1447)) o(offset_minutes)
       GROUP BY exchange, symbol, offset_minutes`);
    const pointInTime = await read(`
      SELECT exchange, symbol, strftime(ts, '%Y-%m-%d %H:%M') AS trade_utc, strftime(timestamp_utc, '%Y-%m-%d %H:%M') AS levels_as_of,
             spot, flip, regime
        FROM pit_levels('demo_trades') ORDER BY exchange, symbol, ts`);
    return { tables, levels, pointInTime };
  } finally {
    warehouse.close();
  }
}
