// `gexwh emulate --days 60` with its default chains (12 expirations x 120 strikes), then one CLI sync
// of every history venue (bybit, deribit, okx, derive BTC; tradfi SPY) over its two newest sessions
// (--since: the manifest is listed from there, so only those files are built). The emulator runs in
// this process on port 0, built (dist/) so it can build its files in worker threads as `gexwh
// emulate` does, with no facts cache (as on a fresh machine); the sync is the CLI's code run in this
// process (only its output and exit code are checked). What size does not change is checked on
// smaller histories: all 60 sessions of a history synced end to end is test/cli/emulate.test.ts's
// (`gexwh emulate --days 60` with small chains); the full 60 days of default chains, 9.4 M rows, is
// `npm run bench`'s full-sync scenario, a measure rather than a test.
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
  it('is synced end to end for every history venue over its newest sessions, every capture with the whole chain', { timeout: 300_000 }, async () => {
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
    // The emulator builds every listed file to learn its sha256 before it answers a listing (a real
    // server answers at once): on a loaded machine that can pass the CLI's 60 s per call. The test is
    // about what the sync holds, so its calls may wait as long as the test does.
    // DuckDB at its own default, one thread per core: the rest of the suite runs it on one thread a
    // worker (GEXWH_THREADS=1, set by the global setup), and this is the largest load it makes.
    const env = { GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.admin, GEXWH_API_TIMEOUT: '300', GEXWH_THREADS: undefined };
    const sync = await runCliInProcess(
      [
        'sync',
        '--json',
        '--db',
        db,
        '--archive',
        join(dir, 'raw'),
        '--exchange',
        'bybit,deribit,okx,derive,tradfi',
        '--symbol',
        'BTC,SPY',
        '--since',
        '2026-06-15',
      ],
      { env },
    );
    expect(sync.stderr).toBe('');
    expect(sync.code).toBe(0);
    expect(JSON.parse(sync.stdout)).toMatchObject({ files_loaded: 30 });
    const warehouse = await openWarehouse(db, { readOnly: true });
    try {
      const reader = await warehouse.connection.runAndReadAll(
        `WITH chains AS (
           SELECT exchange, symbol, session_date, timestamp_utc, expiration_date, count(*) AS strikes
             FROM strikes_by_expiry GROUP BY ALL),
         captures AS (
           SELECT exchange, symbol, session_date, timestamp_utc, count(*) AS chains, min(strikes) AS fewest, max(strikes) AS most
             FROM chains GROUP BY ALL),
         days AS (
           SELECT exchange, symbol, session_date, count(*) AS captures, min(chains) AS min_chains, max(chains) AS max_chains,
                  min(fewest) AS min_strikes, max(most) AS max_strikes
             FROM captures GROUP BY ALL)
         SELECT exchange, symbol, session_date::VARCHAR AS session, captures::INT AS captures, min_chains::INT AS min_chains,
                max_chains::INT AS max_chains, min_strikes::INT AS min_strikes, max_strikes::INT AS max_strikes,
                (SELECT count(*) FROM levels l WHERE l.exchange = days.exchange AND l.symbol = days.symbol AND l.session_date = days.session_date)::INT AS level_rows,
                (SELECT count(DISTINCT timestamp_utc) FROM strikes_total t
                  WHERE t.exchange = days.exchange AND t.symbol = days.symbol AND t.session_date = days.session_date)::INT AS total_captures
           FROM days ORDER BY exchange, session_date`,
      );
      // Each session with every capture (96 a UTC day; SPY's 27 of a New York trading day), each of
      // the default chain's 12 expirations of 120 strikes; levels: TOTAL plus each expiration, per capture.
      const day = (exchange: string, symbol: string, session: string, captures: number) => ({
        exchange,
        symbol,
        session,
        captures,
        min_chains: 12,
        max_chains: 12,
        min_strikes: 120,
        max_strikes: 120,
        level_rows: captures * 13,
        total_captures: captures,
      });
      const both = (exchange: string, symbol: string, captures: number) => [
        day(exchange, symbol, '2026-06-15', captures),
        day(exchange, symbol, '2026-06-16', captures),
      ];
      expect(reader.getRowObjectsJson()).toEqual([
        ...both('bybit', 'BTC', 96),
        ...both('deribit', 'BTC', 96),
        ...both('derive', 'BTC', 96),
        ...both('okx', 'BTC', 96),
        ...both('tradfi', 'SPY', 27),
      ]);
    } finally {
      warehouse.close();
    }
  });
});
