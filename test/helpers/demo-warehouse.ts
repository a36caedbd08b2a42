// A demo-like warehouse without the network: the emulator's daily files (levels, strikes_total,
// strikes_by_expiry) of every completed session of a few weeks for deribit BTC and tradfi SPY,
// loaded by the real loader, plus api-filled levels of today's session (as `sync --fill-levels`
// leaves them), so the views see both sources and enough history for 30-day compares.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startEmulator } from '../../emulator/index.js';
import { FILE_KINDS } from '../../src/core/file-kinds.js';
import { LEVELS_FIELDS } from '../../src/warehouse/layouts.js';
import { loadFiles, type LoadInput } from '../../src/warehouse/loader.js';
import type { Warehouse } from '../../src/warehouse/open.js';
import { finishRun, startRun } from '../../src/warehouse/runs.js';
import { rebuildSessionCloses } from '../../src/warehouse/session-closes.js';

export const DEMO_NOW = new Date('2026-03-16T14:07:00Z');
export const DEMO_PAIRS = [
  ['deribit', 'BTC'],
  ['tradfi', 'SPY'],
] as const;

function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export interface DemoOptions {
  /** Sessions from this date (default 2026-02-10) to the day before DEMO_NOW. */
  from?: string;
  strikes?: number;
}

/** Loads the demo-like history into an open, migrated warehouse; returns the files loaded. */
export async function loadDemoHistory(wh: Warehouse, dir: string, options: DemoOptions = {}): Promise<number> {
  const emulator = await startEmulator({ now: DEMO_NOW, days: 40, expirations: 3, strikes: options.strikes ?? 10, seed: 11, symbols: ['BTC', 'SPY'] });
  try {
    const inputs: LoadInput[] = [];
    for (const [exchange, symbol] of DEMO_PAIRS) {
      const market = emulator.market.symbolInfo(symbol)!.market;
      for (let date = options.from ?? '2026-02-10'; date <= '2026-03-15'; date = addDays(date, 1)) {
        if (emulator.market.sessionCaptures(market, date).length === 0) continue; // TradFi weekend
        for (const file of FILE_KINDS) {
          const daily = emulator.market.dailyFile(exchange, symbol, date, file, 0);
          const path = join(dir, `${exchange}_${symbol}_${date}_${file}.csv.gz`);
          writeFileSync(path, daily.bytes);
          inputs.push({
            exchange,
            symbol,
            sessionDate: date,
            file,
            path,
            sha256: daily.sha256,
            bytes: daily.bytes.length,
            rows: daily.rows,
            archivePath: path,
            downloadedAt: DEMO_NOW,
          });
        }
      }
      // Today's session so far, as api fills of TOTAL levels.
      const today = emulator.market.sessionDateOf(market, DEMO_NOW);
      for (const at of emulator.market.sessionCaptures(market, today).filter((t) => t <= DEMO_NOW)) {
        const fields = emulator.market.totalLevels(symbol, [exchange], at) as unknown as Record<string, unknown>;
        await wh.connection.run(
          `INSERT INTO levels (exchange, symbol, session_date, timestamp_utc, type, expiration, source, ${LEVELS_FIELDS.join(', ')})
           VALUES ($1, $2, $3::DATE, $4::TIMESTAMPTZ, 'intraday', 'TOTAL', 'api', ${LEVELS_FIELDS.map((_, i) => `$${i + 5}`).join(', ')})`,
          [exchange, symbol, today, at.toISOString(), ...LEVELS_FIELDS.map((f) => (fields[f] ?? null) as string | number | null)],
        );
      }
    }
    const report = await loadFiles(wh.connection, inputs);
    // The api rows above went in by hand: keep their sessions' close marker as a fill would.
    await rebuildSessionCloses(wh.connection);
    if (report.failed.length > 0) throw new Error(`demo history: ${report.failed.length} file(s) failed to load`);
    await addLiveCaptures(wh);
    const runId = await startRun(wh.connection, { command: 'sync', options: { symbols: ['BTC', 'SPY'] }, startedAt: new Date(DEMO_NOW.getTime() - 60_000) });
    await finishRun(wh.connection, runId, { outcome: 'ok', filesLoaded: inputs.length, rowsLoaded: report.rowsLoaded, finishedAt: DEMO_NOW });
    return inputs.length;
  } finally {
    await emulator.close();
  }
}

/**
 * Live-capture rows as `gexwh capture` stores them, derived from the history so they are plausible:
 * today's TOTAL levels as live_levels, today's per-expiration levels as term_structure, and the
 * last session's per-expiration strikes as live_strikes.
 */
async function addLiveCaptures(wh: Warehouse): Promise<void> {
  await wh.connection.run(`
    INSERT INTO live_levels BY NAME
    SELECT * EXCLUDE (timestamp_utc, type, oi_date, schema_version, source), timestamp_utc AS as_of, 'TOTAL' AS expiration, oi_date AS oi_as_of,
           'live' AS data_source, true AS is_live, true AS market_open, NULL::TIMESTAMPTZ AS next_open, timestamp_utc + INTERVAL 4 SECOND AS captured_at
      FROM levels_total WHERE session_date = (SELECT max(session_date) FROM levels_total);
    INSERT INTO term_structure BY NAME
    SELECT exchange, symbol, session_date, timestamp_utc AS as_of, oi_date AS oi_as_of, 'live' AS data_source, true AS is_live, true AS market_open,
           upper(strftime(expiration_date, '%d%b%y')) AS expiration, expiration_date, dte AS days_to_expiry, v.venue,
           call_oi_total + put_oi_total AS oi_usd, call_oi_total AS call_oi_usd, put_oi_total AS put_oi_usd, NULL AS contracts,
           net_gex AS total_gex, abs_gex, call_gex AS upside_gex, put_gex AS downside_gex, spot, timestamp_utc AS entry_ts,
           timestamp_utc + INTERVAL 4 SECOND AS captured_at
      FROM levels_expiry, (VALUES ('TOTAL'), ('deribit')) v(venue)
     WHERE session_date = (SELECT max(session_date) FROM levels_expiry);
    INSERT INTO live_strikes BY NAME
    SELECT exchange, symbol, session_date, timestamp_utc AS as_of, upper(strftime(expiration_date, '%d%b%y')) AS expiration, expiration_date,
           strike, call_gex, put_gex, net_gex, abs(call_gex) + abs(put_gex) AS total_gex, spot, timestamp_utc + INTERVAL 4 SECOND AS captured_at
      FROM strikes_expiry WHERE session_date = (SELECT max(session_date) FROM strikes_expiry);`);
}
