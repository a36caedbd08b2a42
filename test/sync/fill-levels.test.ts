// `sync --fill-levels` (issue 5): the pure window planner, then the fill against the emulator.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startMigratedBench } from '../helpers/migrated-bench.js';
import {
  MAX_FILL_WINDOW_MS,
  fillRange,
  planFillWindows,
  sessionEndMs,
  sessionStartMs,
  sessionsToFill,
  type FillPairState,
} from '../../src/sync/fill-windows.js';
import { sessionDatesBetween } from '../../src/time/sessions.js';
import type { Bench } from '../helpers/sync.js';

const HOUR_MS = 3_600_000;

function cryptoState(overrides: Partial<FillPairState> = {}): FillPairState {
  return {
    exchange: 'deribit',
    symbol: 'BTC',
    market: 'crypto',
    firstDate: '2026-01-01',
    lastDate: '2026-03-11',
    fileSessions: new Set(),
    api: new Map(),
    ...overrides,
  };
}

describe('fill plan (pure)', () => {
  it('skips sessions with a loaded levels file or a complete api fill, and resumes a partial one at its last capture', () => {
    const sessions = sessionsToFill(
      cryptoState({
        firstDate: '2026-03-08',
        lastDate: '2026-03-11',
        fileSessions: new Set(['2026-03-08']),
        api: new Map([
          ['2026-03-09', { lastCapture: '2026-03-09T23:45:00.000Z', complete: true }],
          ['2026-03-11', { lastCapture: '2026-03-11T10:15:00.000Z', complete: false }],
        ]),
      }),
    );
    expect(sessions.map((s) => s.sessionDate)).toEqual(['2026-03-10', '2026-03-11']);
    expect(new Date(sessions[0]!.startMs).toISOString()).toBe('2026-03-10T00:00:00.000Z');
    expect(new Date(sessions[1]!.startMs).toISOString()).toBe('2026-03-11T10:15:00.000Z');
    expect(new Date(sessions[1]!.endMs).toISOString()).toBe('2026-03-12T00:00:00.000Z');
  });

  it('TradFi: exchange holidays and weekends are not asked for', () => {
    // Thanksgiving week 2026 and Christmas: 11-26 and 12-25 closed, 11-27 and 12-24 close early.
    const sessions = sessionsToFill(cryptoState({ exchange: 'tradfi', symbol: 'SPY', market: 'tradfi', firstDate: '2026-11-23', lastDate: '2026-12-28' }));
    const dates = sessions.map((s) => s.sessionDate);
    expect(dates).not.toContain('2026-11-26');
    expect(dates).not.toContain('2026-12-25');
    expect(dates).toContain('2026-11-27');
    expect(dates).toContain('2026-12-24');
    expect(dates).toHaveLength(26 - 2); // 26 weekdays
  });

  it('range: since and until narrow the coverage; today is the session of last_ts', () => {
    const coverage = { first_ts: '2025-12-01T00:00:00Z', last_ts: '2026-03-11T14:00:00Z' };
    expect(fillRange('crypto', coverage, {})).toEqual({ firstDate: '2025-12-01', lastDate: '2026-03-11' });
    expect(fillRange('crypto', coverage, { since: '2026-03-01', until: '2026-03-05' })).toEqual({ firstDate: '2026-03-01', lastDate: '2026-03-05' });
    expect(fillRange('crypto', coverage, { since: '2026-04-01' })).toBeNull();
    // 01:00 UTC is still the previous New York date.
    expect(fillRange('tradfi', { first_ts: '2026-03-02T14:30:00Z', last_ts: '2026-03-11T01:00:00Z' }, {})?.lastDate).toBe('2026-03-10');
  });

  it('never plans a window over 31 days; 70 days newest first give 3 windows, the first ending with today', () => {
    const state = cryptoState();
    const windows = planFillWindows(state, sessionsToFill(state), 'newest');
    expect(windows).toHaveLength(3);
    expect(windows[0]!.end).toBe('2026-03-12T00:00:00.000Z');
    expect(windows[0]!.sessions).toHaveLength(31);
    for (const w of windows) expect(Date.parse(w.end) - Date.parse(w.start)).toBeLessThanOrEqual(MAX_FILL_WINDOW_MS);
    const covered = windows.flatMap((w) => w.sessions).sort();
    expect(covered).toEqual(sessionDatesBetween('crypto', '2026-01-01', '2026-03-11'));
    const oldest = planFillWindows(state, sessionsToFill(state), 'oldest');
    expect(oldest[0]!.start).toBe('2026-01-01T00:00:00.000Z');
    expect(oldest.flatMap((w) => w.sessions).sort()).toEqual(covered);
  });

  it('measures New York windows in real hours: across the end of DST a 31-date window is split', () => {
    // 2026-11-01 has 25 hours in New York; weekdays only.
    expect(sessionEndMs('tradfi', '2026-11-01') - sessionStartMs('tradfi', '2026-11-01')).toBe(25 * HOUR_MS);
    const state: FillPairState = { ...cryptoState(), exchange: 'tradfi', symbol: 'SPY', market: 'tradfi', firstDate: '2026-10-15', lastDate: '2026-11-14' };
    const windows = planFillWindows(state, sessionsToFill(state), 'oldest');
    for (const w of windows) expect(Date.parse(w.end) - Date.parse(w.start)).toBeLessThanOrEqual(MAX_FILL_WINDOW_MS);
    expect(windows.flatMap((w) => w.sessions)).toEqual(sessionDatesBetween('tradfi', '2026-10-15', '2026-11-14'));
    // Oct 15 00:00 EDT to Nov 14 00:00 EST is 30 days + 1 hour: fits; one day more would not.
    expect(windows).toHaveLength(1);
    const longer = { ...state, lastDate: '2026-11-16' };
    const split = planFillWindows(longer, sessionsToFill(longer), 'oldest');
    expect(split.length).toBe(2);
  });
});

let bench: Bench | undefined;
afterEach(async () => {
  await bench?.close();
  bench = undefined;
});

const PAIR = { exchange: 'deribit', symbol: 'BTC' } as const;
// Every bench here lists the same market's files (only the days differ): one facts cache for the
// file, so the emulator builds each listed file once for its sha256, not once per test.
const factsCache = mkdtempSync(join(tmpdir(), 'gexwh-fill-facts-'));
afterAll(() => rmSync(factsCache, { recursive: true, force: true }));
const SMALL = { symbols: ['BTC'], expirations: 2, strikes: 6, factsCache };

/** Rows per capture in levels_total, and the totals. */
async function captureCounts(b: Bench) {
  const [row] = await b.query<{ rows: number; captures: number; api: number; file: number; closes: number }>(
    `SELECT count(*)::INT AS "rows", count(DISTINCT timestamp_utc)::INT AS captures,
            count(*) FILTER (WHERE source = 'api')::INT api, count(*) FILTER (WHERE source = 'file')::INT file,
            count(*) FILTER (WHERE type = 'close')::INT closes
       FROM levels_total WHERE exchange = 'deribit' AND symbol = 'BTC'`,
  );
  return row!;
}

/** Every capture of the emulator for deribit/BTC from the first history date up to its clock. */
function expectedCaptures(b: Bench, firstDate: string): number {
  const now = b.emulator.clock.now();
  const today = now.toISOString().slice(0, 10);
  let count = 0;
  for (const date of sessionDatesBetween('crypto', firstDate, today)) {
    count += b.emulator.market.sessionCaptures('crypto', date).filter((ts) => ts.getTime() <= now.getTime()).length;
  }
  return count;
}

describe('sync --fill-levels against the emulator', () => {
  it('fills a month with one request, then the files replace the api rows: one row per capture', async () => {
    bench = await startMigratedBench({ ...SMALL, days: 30 });
    const { emulator } = bench;
    const levelsHits = () => emulator.counters.hits(/\/history\/levels\//);
    // Spend no credit on levels files: only one strikes file is bought.
    const first = await bench.sync({ ...PAIR, files: 'strikes_total', maxCredits: 1 }, { fillLevels: true });
    expect(first.levelsFilled).toMatchObject({ sessions: 31, windows: 1, requests: 1 });
    expect(levelsHits()).toBe(1);
    const total = expectedCaptures(bench, '2026-02-09');
    expect(first.levelsFilled!.rows).toBe(total);
    const afterFill = await captureCounts(bench);
    expect(afterFill).toMatchObject({ rows: total, captures: total, api: total, file: 0, closes: 30 });

    // Now buy the levels files of the last three sessions: their api rows are replaced, the others' and today's stay.
    const second = await bench.sync({ ...PAIR, files: 'levels', since: '2026-03-08' });
    expect(second.filesLoaded).toBe(3);
    const afterFiles = await captureCounts(bench);
    expect(afterFiles.rows).toBe(afterFiles.captures);
    expect(afterFiles.captures).toBe(total);
    const bought = ['2026-03-08', '2026-03-09', '2026-03-10'].reduce((n, date) => n + emulator.market.sessionCaptures('crypto', date).length, 0);
    expect(afterFiles.file).toBe(bought);
    expect(afterFiles.api).toBe(total - bought);
    const mixed = await bench.query(`SELECT session_date FROM levels WHERE expiration = 'TOTAL' GROUP BY ALL HAVING count(DISTINCT source) > 1`);
    expect(mixed).toEqual([]);

    // A fill of the whole month now re-requests only today's session, from its last capture: nothing duplicated.
    const third = await bench.sync({ ...PAIR, files: 'strikes_total', maxCredits: 1 }, { fillLevels: true });
    expect(third.levelsFilled).toMatchObject({ sessions: 1, windows: 1, requests: 1, rows: 0 });
    expect(await captureCounts(bench)).toEqual(afterFiles);
  });

  it('refreshes the session in progress: new captures added, the close row arrives once the session ends', async () => {
    bench = await startMigratedBench({ ...SMALL, days: 2 });
    const { emulator } = bench;
    await bench.sync({ ...PAIR, files: 'strikes_total', maxCredits: 1 }, { fillLevels: true });
    const before = await captureCounts(bench);
    expect(before.closes).toBe(2);

    emulator.clock.advance(HOUR_MS);
    const refresh = await bench.sync({ ...PAIR, files: 'strikes_total', maxCredits: 1 }, { fillLevels: true });
    expect(refresh.levelsFilled).toMatchObject({ sessions: 1, requests: 1, rows: 4 });
    const after = await captureCounts(bench);
    expect(after).toMatchObject({ rows: before.rows + 4, captures: before.rows + 4 });

    // Past midnight: yesterday is complete; its last capture (held as intraday) becomes its close.
    emulator.clock.set(new Date('2026-03-12T00:20:00Z'));
    const next = await bench.sync({ ...PAIR, files: 'strikes_total', maxCredits: 1 }, { fillLevels: true });
    expect(next.levelsFilled).toMatchObject({ sessions: 2, windows: 1, requests: 1 });
    const done = await captureCounts(bench);
    expect(done.rows).toBe(done.captures);
    expect(done.captures).toBe(expectedCaptures(bench, '2026-03-09'));
    expect(done.closes).toBe(3);

    // Yesterday is complete now: the next fill asks only for today.
    const last = await bench.sync({ ...PAIR, files: 'strikes_total', maxCredits: 1 }, { fillLevels: true });
    expect(last.levelsFilled).toMatchObject({ sessions: 1, requests: 1, rows: 0 });
  });

  it('pages with next_cursor (same end and granularity) and splits 45 days into two windows, never sending one over 31 days', async () => {
    bench = await startMigratedBench({ ...SMALL, days: 45, historyPageRows: 1000 });
    const { emulator } = bench;
    const summary = await bench.sync({ ...PAIR, files: 'strikes_total', maxCredits: 1 }, { fillLevels: true });
    const total = expectedCaptures(bench, '2026-01-25');
    // Newest window: 31 sessions, 30 × 96 + 57 rows = 3 pages of 1000; older window: 15 × 96 = 2 pages.
    expect(summary.levelsFilled).toMatchObject({ sessions: 46, windows: 2, requests: 5, rows: total });
    expect(emulator.counters.hits(/\/history\/levels\/.*cursor=/)).toBe(3);
    expect(emulator.counters.hits(/\/history\/levels\/.*start=/)).toBe(2);
    expect(summary.warnings.filter((w) => /range_too_large|fill/.test(w))).toEqual([]);
    const counts = await captureCounts(bench);
    expect(counts).toMatchObject({ rows: total, captures: total, api: total });
  });

  it('--max-requests caps the fill between pages and keeps what was fetched', async () => {
    bench = await startMigratedBench({ ...SMALL, days: 30, historyPageRows: 1000 });
    const { emulator } = bench;
    // One request lists the manifest, leaving two pages for the fill.
    const summary = await bench.sync({ ...PAIR, files: 'strikes_total', maxCredits: 1, maxRequests: 3 }, { fillLevels: true });
    expect(summary.levelsFilled).toMatchObject({ requests: 2, rows: 2000, stoppedBy: 'max_requests' });
    expect(summary.requestsSpent).toBe(3);
    expect(emulator.counters.hits(/\/history\/levels\//)).toBe(2);
    expect(summary.warnings.some((w) => w.includes('--max-requests 3'))).toBe(true);
    expect((await captureCounts(bench)).rows).toBe(2000);

    // The next run resumes where the fill stopped and completes the month.
    const rest = await bench.sync({ ...PAIR, files: 'strikes_total', maxCredits: 1 }, { fillLevels: true });
    const counts = await captureCounts(bench);
    expect(counts.rows).toBe(counts.captures);
    expect(counts.rows).toBe(expectedCaptures(bench, '2026-02-09'));
    expect(rest.levelsFilled!.rows).toBe(counts.rows - 2000);
  });

  it('a 429 stops the fill cleanly: the pages fetched are written, the run ends ok', async () => {
    bench = await startMigratedBench({ ...SMALL, days: 12, historyPageRows: 1000 }); // over 1,000 captures: more than one page
    const { emulator } = bench;
    // 500 a day: leave room for the manifest listing and one page.
    emulator.setQuota(emulator.keys.pro, { requestsUsed: 498 });
    const summary = await bench.sync({ ...PAIR, files: 'strikes_total', maxCredits: 1 }, { fillLevels: true });
    expect(summary.outcome).toBe('ok');
    expect(summary.levelsFilled).toMatchObject({ requests: 1, rows: 1000, stoppedBy: 'quota' });
    expect(summary.quotaStop?.bucket).toBe('requests');
    expect((await captureCounts(bench)).rows).toBe(1000);
  });

  it('dry run counts windows and requests nothing', async () => {
    bench = await startMigratedBench({ ...SMALL, days: 30 });
    const summary = await bench.sync({ ...PAIR, files: 'strikes_total' }, { fillLevels: true, dryRun: true, command: 'plan' });
    expect(summary.levelsFilled).toMatchObject({ sessions: 31, windows: 1, requests: 0, rows: 0 });
    expect(bench.emulator.counters.hits(/\/history\/levels\//)).toBe(0);
  });
});
