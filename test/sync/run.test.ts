// The sync engine against the emulator, in-process (issue 3 acceptance 1–7 and 10).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PartialFailureError } from '../../src/core/errors.js';
import { addDays } from '../../src/time/dates.js';
import { listFiles, migrateOnly, parseDailyFile, snapshotBench, startBench, type Bench, type BenchSnapshot } from '../helpers/sync.js';

let bench: Bench | undefined;
afterEach(async () => {
  await bench?.close();
  bench = undefined;
});

const ONE_PAIR = { exchange: 'deribit', symbol: 'BTC' } as const;

// Most tests start a fresh emulator on a copy of a state built once: a migrated, empty warehouse, or
// one a clean sync of ONE_PAIR filled (its 9 credits charged to the emulator that built it). The first
// test below starts from no warehouse at all.
let empty: BenchSnapshot;
let synced: BenchSnapshot;
beforeAll(async () => {
  empty = await snapshotBench({}, migrateOnly);
  synced = await snapshotBench({}, async (b) => {
    expect((await b.sync(ONE_PAIR)).filesLoaded).toBe(9);
  });
}, 120_000);
afterAll(async () => {
  await empty?.remove();
  await synced?.remove();
});

describe('fresh sync', () => {
  it('downloads every planned file once, loads it, and the tables hold the emulator numbers; the key never reaches storage, the warehouse or the archive', async () => {
    bench = await startBench();
    const { emulator } = bench;
    const summary = await bench.sync(ONE_PAIR);

    // The key: never sent to storage, never written to the warehouse or the archive.
    expect(emulator.counters.storageTripwire).toBe(0);
    expect(emulator.counters.storageHits).toBeGreaterThanOrEqual(9);
    const key = Buffer.from(emulator.keys.pro);
    for (const file of await listFiles(bench.dir)) {
      expect(readFileSync(file).includes(key), file).toBe(false);
    }

    // 3 days of history: 3 completed sessions × 3 files, each paid exactly once.
    expect(summary.outcome).toBe('ok');
    expect(summary.filesLoaded).toBe(9);
    expect(emulator.counters.credits(emulator.keys.pro)).toBe(9);
    expect(summary.creditsSpent).toBe(9);

    const ledger = await bench.query<{ status: string; n: number }>(`SELECT status, count(*)::INT n FROM sync.files GROUP BY status`);
    expect(ledger).toEqual([{ status: 'loaded', n: 9 }]);

    // Row counts equal the manifest's rows, per file.
    const mismatched = await bench.query(`
      WITH counted AS (
        SELECT session_date, 'levels' file, count(*) n FROM levels GROUP BY ALL
        UNION ALL SELECT session_date, 'strikes_total', count(*) FROM strikes_total GROUP BY ALL
        UNION ALL SELECT session_date, 'strikes_by_expiry', count(*) FROM strikes_by_expiry GROUP BY ALL)
      SELECT m.session_date, m.file FROM sync.manifest m LEFT JOIN counted c USING (session_date, file)
      WHERE c.n IS DISTINCT FROM m.rows`);
    expect(mismatched).toEqual([]);

    // Values: sums per file equal sums over the emulator's own CSV, and one row matches exactly.
    for (const session of ['2026-03-08', '2026-03-09', '2026-03-10']) {
      const file = parseDailyFile(emulator.market.dailyFile('deribit', 'BTC', session, 'strikes_by_expiry', 0).bytes);
      const netIndex = file.header.indexOf('strike_net_gex');
      const expected = file.rows.reduce((sum, row) => sum + Number(row[netIndex]), 0);
      const [got] = await bench.query<{ s: number }>(`SELECT sum(net_gex) s FROM strikes_by_expiry WHERE session_date = '${session}'`);
      expect(got!.s).toBeCloseTo(expected, 2);
    }
    const levelsFile = parseDailyFile(emulator.market.dailyFile('deribit', 'BTC', '2026-03-09', 'levels', 0).bytes);
    const sample = levelsFile.rows[7]!;
    const col = (name: string) => sample[levelsFile.header.indexOf(name)]!;
    const [row] = await bench.query<{ flip: number | null; spot: number; p1_strike: number; regime: string | null }>(
      `SELECT flip, spot, p1_strike, regime FROM levels WHERE timestamp_utc = '${col('timestamp_utc')}'::TIMESTAMPTZ AND expiration = '${col('expiration')}'`,
    );
    expect(row).toEqual({
      flip: col('flip') === '' ? null : Number(col('flip')),
      spot: Number(col('spot')),
      p1_strike: Number(col('p1_strike')),
      regime: col('regime') || null,
    });
  });

  it('a second sync spends 0 credits and 0 requests and changes nothing', async () => {
    bench = await synced.start();
    const { emulator } = bench;
    const before = await bench.query(`SELECT count(*)::INT n, sum(net_gex) s FROM strikes_total`);
    const credits = emulator.counters.credits(emulator.keys.pro);
    const requests = emulator.counters.requests(emulator.keys.pro);

    const summary = await bench.sync(ONE_PAIR);
    expect(summary.filesLoaded).toBe(0);
    expect(emulator.counters.credits(emulator.keys.pro)).toBe(credits);
    expect(emulator.counters.requests(emulator.keys.pro)).toBe(requests);
    expect(await bench.query(`SELECT count(*)::INT n, sum(net_gex) s FROM strikes_total`)).toEqual(before);
  });

  it('after the clock moves one day, downloads exactly the new session', async () => {
    bench = await synced.start();
    const { emulator } = bench;
    emulator.clock.advance(24 * 3600 * 1000);
    const summary = await bench.sync(ONE_PAIR);
    expect(summary.filesLoaded).toBe(3);
    expect(emulator.counters.credits(emulator.keys.pro)).toBe(3); // the 9 synced before were paid to the snapshot's emulator
    const sessions = await bench.query<{ d: string }>(
      `SELECT DISTINCT session_date::VARCHAR d FROM sync.files WHERE downloaded_at IS NOT NULL ORDER BY d DESC LIMIT 1`,
    );
    expect(sessions).toEqual([{ d: '2026-03-11' }]);
  });
});

describe('budget', () => {
  it('spends exactly K credits, newest sessions first, and defers the rest with the reset time', async () => {
    bench = await empty.start();
    const { emulator } = bench;
    const summary = await bench.sync({ ...ONE_PAIR, maxCredits: 4 });
    expect(emulator.counters.credits(emulator.keys.pro)).toBe(4);
    expect(summary.filesLoaded).toBe(4);
    expect(summary.filesDeferred).toBe(5);
    expect(summary.outcome).toBe('ok');
    const loaded = await bench.query<{ d: string; file: string }>(`SELECT session_date::VARCHAR d, file FROM sync.files ORDER BY d DESC, file`);
    // Newest session complete (3 files), then the next session's first file in canonical order.
    expect(loaded.filter((r) => r.d === '2026-03-10')).toHaveLength(3);
    expect(loaded.filter((r) => r.d === '2026-03-09')).toEqual([{ d: '2026-03-09', file: 'levels' }]);
    expect(summary.creditsReset).toBe('2026-03-12T00:00:00.000Z');
  });

  it('a 429 on credits stops asking, keeps what was loaded, and reports the reset time', async () => {
    bench = await empty.start();
    const { emulator } = bench;
    const body = JSON.stringify({
      error: 'history_files_limit_exceeded',
      message: 'Daily history file limit reached',
      rate_limit: { limit: 20, remaining: 0, reset: '2026-03-12T00:00:00Z' },
    });
    emulator.faults.add({
      where: 'api',
      match: /\/history\/files\/deribit\/BTC\/2026-03-0[89]\//,
      times: Infinity,
      action: { kind: 'body', status: 429, body, contentType: 'application/json' },
    });
    const summary = await bench.sync({ ...ONE_PAIR, concurrency: 1 });
    expect(summary.outcome).toBe('ok');
    expect(summary.filesLoaded).toBe(3);
    expect(summary.filesDeferred).toBe(6);
    expect(summary.quotaStop).toEqual({ bucket: 'files', resetAt: '2026-03-12T00:00:00.000Z' });
    // Stopped asking: one 429, not one per deferred file.
    expect(emulator.counters.hits(/\/history\/files\/deribit\/BTC\/2026-03-0[89]\//)).toBe(1);
  });
});

describe('manifest paging', () => {
  // These four list 420-450 files of the same market: the emulator's facts cache, shared by them, builds
  // each file once for its sha256 instead of once per test (whichever test runs first fills it). The
  // smallest chain (1 expiration, 3 strikes): what they check is the listing, not what a file holds.
  const factsCache = mkdtempSync(join(tmpdir(), 'gexwh-paging-facts-'));
  afterAll(() => rmSync(factsCache, { recursive: true, force: true }));
  const longHistory = (days: number) => startBench({ days, symbols: ['BTC'], factsCache, strikes: 3, expirations: 1 });

  it('lists a history longer than one 400-row page with nothing skipped or duplicated', async () => {
    bench = await longHistory(150);
    await bench.query('SELECT 1'); // a plan never creates a warehouse: it keeps its listing in one that exists
    const summary = await bench.sync(ONE_PAIR, { dryRun: true, command: 'plan' });
    const [stats] = await bench.query<{ n: number; distinct_keys: number; first_date: string; last_date: string }>(
      `SELECT count(*)::INT n, count(DISTINCT (session_date, file))::INT distinct_keys, min(session_date)::VARCHAR first_date, max(session_date)::VARCHAR last_date
         FROM sync.manifest WHERE exchange = 'deribit' AND symbol = 'BTC'`,
    );
    expect(stats).toEqual({ n: 450, distinct_keys: 450, first_date: '2025-10-12', last_date: '2026-03-10' });
    expect(summary.requestsSpent).toBe(2);
    expect(bench.emulator.counters.credits(bench.emulator.keys.pro)).toBe(0);
  }, 180_000); // its own: run first, it builds the shared cache's 450 files (62 s at load 14 with 3 × 12 chains)

  const manifestState = async (b: Bench) => {
    const [state] = await b.query<{ rows: number; oldest: string; complete_from: string | null }>(
      `SELECT (SELECT count(*)::INT FROM sync.manifest) AS rows, (SELECT min(session_date)::VARCHAR FROM sync.manifest) AS oldest,
              (SELECT complete_from::VARCHAR FROM sync.listings WHERE exchange = 'deribit' AND symbol = 'BTC') AS complete_from`,
    );
    return state!;
  };

  it('--since lists the manifest from that date only; a later sync without it lists just the older sessions', async () => {
    bench = await longHistory(140); // 420 manifest rows: 2 pages
    const requests = () => bench!.emulator.counters.requests(bench!.emulator.keys.pro);

    const recent = await bench.sync({ ...ONE_PAIR, since: '2026-03-06' });
    expect(recent.requestsSpent).toBe(1);
    expect(recent.filesLoaded).toBe(15);
    expect(await manifestState(bench)).toEqual({ rows: 15, oldest: '2026-03-06', complete_from: '2026-03-06' });

    const before = requests();
    const all = await bench.sync(ONE_PAIR, { dryRun: true, command: 'plan' });
    expect(requests() - before).toBe(2); // the 405 older rows, not the 15 held again
    expect(await manifestState(bench)).toEqual({ rows: 420, oldest: '2025-10-22', complete_from: null });
    expect(all.plan.toDownload + all.plan.deferred).toBe(405);

    const again = requests();
    await bench.sync(ONE_PAIR, { dryRun: true, command: 'plan' });
    expect(requests()).toBe(again);
  });

  it('--max-requests caps the listing; what was read is kept and the next runs list only the rest', async () => {
    bench = await longHistory(140);
    const requests = () => bench!.emulator.counters.requests(bench!.emulator.keys.pro);
    await bench.query('SELECT 1'); // a plan never creates a warehouse: it keeps its listing in one that exists

    const first = await bench.sync({ ...ONE_PAIR, maxRequests: 1 }, { dryRun: true, command: 'plan' });
    expect(requests()).toBe(1);
    expect(first.warnings.join('\n')).toMatch(/--max-requests 1 reached while listing the manifest of deribit\/BTC/);
    const cut = await manifestState(bench);
    expect(cut.rows).toBe(400);
    // The oldest session read may be partly listed: complete from the day after it.
    expect(cut.complete_from).toBe(addDays(cut.oldest, 1));
    expect(first.plan.toDownload + first.plan.deferred).toBe(400);

    await bench.sync({ ...ONE_PAIR, maxRequests: 1 }, { dryRun: true, command: 'plan' });
    expect(requests()).toBe(2);
    expect(await manifestState(bench)).toEqual({ rows: 420, oldest: '2025-10-22', complete_from: null });
    const [distinct] = await bench.query<{ n: number }>(`SELECT count(DISTINCT (session_date, file))::INT n FROM sync.manifest`);
    expect(distinct!.n).toBe(420);

    await bench.sync({ ...ONE_PAIR, maxRequests: 1 }, { dryRun: true, command: 'plan' });
    expect(requests()).toBe(2);
  });

  it('a 429 in the middle of a listing keeps the pages read; after the reset only the rest is listed', async () => {
    bench = await longHistory(140);
    const { emulator } = bench;
    emulator.setQuota(emulator.keys.pro, { requestsUsed: 499 }); // one request left today
    await bench.query('SELECT 1'); // a plan never creates a warehouse: it keeps its listing in one that exists

    const cut = await bench.sync(ONE_PAIR, { dryRun: true, command: 'plan' });
    expect(cut.quotaStop).toBeDefined();
    expect(cut.warnings.join('\n')).toMatch(/request quota exhausted while listing manifests; what was listed is kept/);
    const held = await manifestState(bench);
    expect(held.rows).toBe(400);
    expect(held.complete_from).toBe(addDays(held.oldest, 1));

    emulator.clock.set('2026-03-12T00:30:00Z'); // the quota resets at midnight UTC
    const before = emulator.counters.requests(emulator.keys.pro);
    await bench.sync(ONE_PAIR, { dryRun: true, command: 'plan' });
    // The new session (2026-03-11) and the older rest: one page each.
    expect(emulator.counters.requests(emulator.keys.pro) - before).toBe(2);
    expect(await manifestState(bench)).toEqual({ rows: 423, oldest: '2025-10-22', complete_from: null });
  });
});

describe('faults', () => {
  // One sync with every recoverable fault: each is recovered, none costs a credit more.
  it('503 bursts on the API and on storage, and a body corrupted once (fetched again on the same link), are recovered with no extra credit', async () => {
    bench = await empty.start();
    const { emulator } = bench;
    emulator.faults.add({
      where: 'api',
      match: /\/history\/files\/deribit\/BTC\/\d/,
      times: 3,
      action: { kind: 'status', status: 503, error: 'files_unavailable' },
    });
    emulator.faults.add({ where: 'storage', match: /levels/, times: 1, action: { kind: 'corrupt' } });
    emulator.faults.add({ where: 'storage', times: 3, action: { kind: 'status', status: 503 } });
    emulator.faults.add({ where: 'api', match: /\/history\/files\/deribit\/BTC$/, times: 2, action: { kind: 'status', status: 500 } });
    const summary = await bench.sync(ONE_PAIR);
    expect(summary.filesLoaded).toBe(9);
    expect(summary.filesFailed).toEqual([]);
    expect(emulator.counters.credits(emulator.keys.pro)).toBe(9);
    // Every fault fired: 3 + 2 failed API calls, 3 storage 503s and the corrupt body, each tried again.
    expect(emulator.counters.hits(/\/history\/files\/deribit\/BTC\/\d/)).toBe(9 + 3);
    expect(emulator.counters.hits(/\/history\/files\/deribit\/BTC$/)).toBe(1 + 2);
    expect(emulator.counters.storageHits).toBe(9 + 3 + 1);
  });

  it('a body always corrupted ends as failed_verify, partial outcome, every other file loaded', async () => {
    bench = await empty.start();
    const { emulator } = bench;
    emulator.faults.add({ where: 'storage', match: /2026-03-09\/strikes_total/, times: Infinity, action: { kind: 'corrupt' } });
    const error = await bench.sync(ONE_PAIR).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartialFailureError);
    const ledger = await bench.query<{ status: string; n: number }>(`SELECT status, count(*)::INT n FROM sync.files GROUP BY status ORDER BY status`);
    expect(ledger).toEqual([
      { status: 'failed_verify', n: 1 },
      { status: 'loaded', n: 8 },
    ]);
    const [rows] = await bench.query<{ n: number }>(`SELECT count(*)::INT n FROM strikes_total WHERE session_date = '2026-03-09'`);
    expect(rows!.n).toBe(0);
    // The next run tries the failed file again and, with the fault gone, completes.
    emulator.faults.clear();
    const next = await bench.sync(ONE_PAIR);
    expect(next.filesLoaded).toBe(1);
  });

  it('truncated bodies and dropped connections leave no partial rows and no temp files', async () => {
    bench = await empty.start();
    const { emulator } = bench;
    emulator.faults.add({ where: 'storage', match: /strikes_by_expiry/, times: Infinity, action: { kind: 'truncate' } });
    emulator.faults.add({ where: 'storage', match: /2026-03-10\/levels/, times: Infinity, action: { kind: 'drop' } });
    await expect(bench.sync(ONE_PAIR)).rejects.toBeInstanceOf(PartialFailureError);
    const [rows] = await bench.query<{ n: number }>(`SELECT count(*)::INT n FROM strikes_by_expiry`);
    expect(rows!.n).toBe(0);
    const leftovers = (await listFiles(bench.archive)).filter((f) => f.endsWith('.part'));
    expect(leftovers).toEqual([]);
    const archived = (await listFiles(bench.archive)).map((f) => f.split('/').pop()).sort();
    expect(archived).not.toContain('2026-03-10_levels.csv.gz');
    expect(archived.filter((f) => f!.includes('strikes_by_expiry'))).toEqual([]);
  });
});

// That the key never reaches storage, the warehouse or the archive: the fresh sync's test above.
describe('the key', () => {
  it('a Location to a non-loopback http URL or another scheme is refused unsent', async () => {
    bench = await empty.start();
    const { emulator } = bench;
    for (const location of ['http://example.com/x.csv.gz', 'file:///etc/passwd', 'ftp://127.0.0.1/x']) {
      emulator.faults.add({ where: 'api', match: /\/history\/files\/deribit\/BTC\/2026-03-10\/levels/, times: 1, action: { kind: 'redirect', location } });
      const storageBefore = emulator.counters.storageHits;
      await expect(bench.sync({ ...ONE_PAIR, files: 'levels', since: '2026-03-10' })).rejects.toBeInstanceOf(PartialFailureError);
      expect(emulator.counters.storageHits).toBe(storageBefore);
      const [failed] = await bench.query<{ error: string }>(`SELECT error FROM sync.files WHERE status = 'failed_verify' ORDER BY updated_at DESC LIMIT 1`);
      expect(failed!.error).toMatch(/refus|not allowed|unsafe|loopback|scheme/i);
    }
  });
});

describe('rebuilt files', () => {
  it('--full-rescan finds a rebuilt file, replaces its rows and marks the old version superseded', async () => {
    bench = await synced.start();
    const { emulator } = bench;
    const before = await bench.query(`SELECT count(*)::INT n, sum(net_gex) s FROM levels WHERE session_date = '2026-03-08'`);
    emulator.rebuildFile('deribit', 'BTC', '2026-03-08', 'levels');

    const incremental = await bench.sync(ONE_PAIR);
    expect(incremental.filesLoaded).toBe(0); // an old session's rebuild needs a rescan

    const rescan = await bench.sync(ONE_PAIR, { fullRescan: true });
    expect(rescan.filesLoaded).toBe(1);
    const versions = await bench.query<{ status: string }>(
      `SELECT status FROM sync.files WHERE session_date = '2026-03-08' AND file = 'levels' ORDER BY status`,
    );
    expect(versions).toEqual([{ status: 'loaded' }, { status: 'superseded' }]);
    // Same rows and values (a rebuild changes bytes, not data), no duplicates.
    expect(await bench.query(`SELECT count(*)::INT n, sum(net_gex) s FROM levels WHERE session_date = '2026-03-08'`)).toEqual(before);
  });
});
