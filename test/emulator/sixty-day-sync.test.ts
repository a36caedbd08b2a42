// `gexwh emulate --days 60` with its default chains (12 expirations x 120 strikes), then CLI syncs
// end to end: one venue and symbol over the whole history (bybit BTC: 60 sessions x 3 files), and
// every other history venue (deribit, okx, derive BTC; tradfi SPY) for its newest session (--since:
// the manifest is listed from there, so only those files are built). The emulator runs in this
// process on port 0, built (dist/) so it can build its files in worker threads as `gexwh emulate`
// does, with no facts cache (as on a fresh machine); the syncs are the CLI's code run in this process
// (only their output and exit code are checked).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { openWarehouse } from '../../src/warehouse/index.js';
import { runCliInProcess } from '../helpers/cli.js';

// The built emulator: its worker threads run dist/'s file-worker.js (vitest runs src/ as TypeScript,
// which a worker thread cannot load).
const BUILT_EMULATOR = new URL('../../dist/emulator/index.js', import.meta.url).href;
const { startEmulator } = (await import(BUILT_EMULATOR)) as typeof import('../../emulator/index.js');

let emulator: Emulator | undefined;
let dir: string | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a 60-day emulator with the default chains', () => {
  // An ordinary test: it checks what a user-sized sync holds, not how long it takes, and runs beside
  // another file (test/sequencer.ts starts it first, as the longest single file of the suite).
  it('is synced end to end: one venue and symbol over 60 days, every other venue for its newest session', { timeout: 600_000 }, async () => {
    // The chain sizes and history length `gexwh emulate --days 60` uses.
    // Two build workers (a 2-core machine's default), building only the files a listing asks for.
    emulator = await startEmulator({
      now: '2026-06-17T12:00:00Z',
      days: 60,
      seed: 42,
      expirations: 12,
      strikes: 120,
      buildWorkers: 2,
      warmFiles: false,
      factsCache: false,
    });
    dir = mkdtempSync(join(tmpdir(), 'gexwh-sixty-'));
    const db = join(dir, 'gex.duckdb');
    // The emulator builds every listed file to learn its sha256 before it answers a listing: the
    // first page of 60 days of default chains takes over a minute on a loaded machine (a real server
    // answers at once), past the CLI's 60 s per call. The test is about what the sync holds, so its
    // calls may wait as long as the test does.
    const env = { GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.admin, GEXWH_API_TIMEOUT: '600' };
    const sync = await runCliInProcess(['sync', '--json', '--db', db, '--archive', join(dir, 'raw'), '--exchange', 'bybit', '--symbol', 'BTC'], { env });
    expect(sync.stderr).toBe('');
    expect(sync.code).toBe(0);
    const warehouse = await openWarehouse(db, { readOnly: true });
    try {
      const reader = await warehouse.connection.runAndReadAll(
        `SELECT (SELECT count(DISTINCT session_date) FROM levels WHERE exchange = 'bybit')::INT AS level_sessions,
                (SELECT count(DISTINCT session_date) FROM strikes_total WHERE exchange = 'bybit')::INT AS total_sessions,
                (SELECT count(DISTINCT session_date) FROM strikes_by_expiry WHERE exchange = 'bybit')::INT AS expiry_sessions,
                (SELECT list(DISTINCT n) FROM (
                   SELECT count(DISTINCT expiration_date) AS n, count(*) / count(DISTINCT expiration_date) AS per
                     FROM strikes_by_expiry WHERE session_date = DATE '2026-06-16' GROUP BY timestamp_utc))::VARCHAR AS expirations,
                (SELECT list(DISTINCT per) FROM (
                   SELECT count(*) / count(DISTINCT expiration_date) AS per
                     FROM strikes_by_expiry WHERE session_date = DATE '2026-06-16' GROUP BY timestamp_utc))::VARCHAR AS strikes,
                (SELECT count(DISTINCT timestamp_utc) FROM strikes_by_expiry WHERE session_date = DATE '2026-06-16')::INT AS captures`,
      );
      // Every capture of a day: the default chain's 12 expirations of 120 strikes each, 96 captures.
      expect(reader.getRowObjects()).toEqual([
        { level_sessions: 60, total_sessions: 60, expiry_sessions: 60, expirations: '[12]', strikes: '[120.0]', captures: 96 },
      ]);
    } finally {
      warehouse.close();
    }

    const others = await runCliInProcess(
      ['sync', '--json', '--db', db, '--archive', join(dir, 'raw'), '--exchange', 'deribit,okx,derive,tradfi', '--symbol', 'BTC,SPY', '--since', '2026-06-16'],
      { env },
    );
    expect(others.stderr).toBe('');
    expect(others.code).toBe(0);
    const after = await openWarehouse(db, { readOnly: true });
    try {
      const reader = await after.connection.runAndReadAll(
        `WITH chains AS (
           SELECT exchange, symbol, session_date, timestamp_utc, expiration_date, count(*) AS strikes
             FROM strikes_by_expiry WHERE exchange <> 'bybit' GROUP BY ALL),
         captures AS (
           SELECT exchange, symbol, session_date, timestamp_utc, count(*) AS chains, min(strikes) AS fewest, max(strikes) AS most
             FROM chains GROUP BY ALL)
         SELECT exchange, symbol, list(DISTINCT session_date::VARCHAR)::VARCHAR AS sessions, count(*)::INT AS captures,
                min(chains)::INT AS min_chains, max(chains)::INT AS max_chains, min(fewest)::INT AS min_strikes, max(most)::INT AS max_strikes,
                (SELECT count(*) FROM levels l WHERE l.exchange = captures.exchange AND l.symbol = captures.symbol)::INT AS level_rows
           FROM captures GROUP BY ALL ORDER BY exchange`,
      );
      // Each venue's newest session, every capture with the default chains; SPY's 27 captures of a
      // New York trading day (levels: TOTAL plus each expiration, per capture).
      const day = (exchange: string, symbol: string, captures: number) => ({
        exchange,
        symbol,
        sessions: '[2026-06-16]',
        captures,
        min_chains: 12,
        max_chains: 12,
        min_strikes: 120,
        max_strikes: 120,
        level_rows: captures * 13,
      });
      expect(reader.getRowObjectsJson()).toEqual([day('deribit', 'BTC', 96), day('derive', 'BTC', 96), day('okx', 'BTC', 96), day('tradfi', 'SPY', 27)]);
    } finally {
      after.close();
    }
  });
});
