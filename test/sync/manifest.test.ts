import { describe, expect, it } from 'vitest';
import { ApiSchemaError } from '../../src/core/errors.js';
import {
  estimateListingRows,
  listManifest,
  listPair,
  planListing,
  type FetchManifestPage,
  type ListingInput,
  type ManifestWindow,
} from '../../src/sync/manifest.js';
import { addDays } from '../../src/time/dates.js';
import type { FileKind } from '../../src/sync/selection.js';
import type { CoverageRow, ManifestRow } from '../../src/core/rows.js';

const KINDS: FileKind[] = ['levels', 'strikes_total', 'strikes_by_expiry'];

function cov(exchange: string, symbol: string, files_first_date: string | null, files_last_date: string | null): CoverageRow {
  return { exchange, symbol, first_ts: null, last_ts: null, sessions: null, files_first_date, files_last_date };
}

/** A synthetic manifest: `sessions` consecutive dates from 2021-01-01, `filesPerSession(i)` files each. */
function synthetic(sessions: number, filesPerSession: (i: number) => number = () => 3): ManifestRow[] {
  const rows: ManifestRow[] = [];
  for (let i = 0; i < sessions; i++) {
    const date = addDays('2021-01-01', i);
    for (const file of KINDS.slice(0, filesPerSession(i))) {
      rows.push({ session_date: date, file, rows: i, bytes: 100 + i, sha256: `${date}-${file}`, schema_version: 1 });
    }
  }
  return rows;
}

/** A server like the spec's: start inclusive, end exclusive, newest first, at most pageSize rows. */
function fakeServer(all: ManifestRow[], pageSize = 400) {
  const calls: ManifestWindow[] = [];
  const newestFirst = [...all].sort((a, b) =>
    a.session_date === b.session_date ? KINDS.indexOf(a.file) - KINDS.indexOf(b.file) : a.session_date < b.session_date ? 1 : -1,
  );
  const fetchPage: FetchManifestPage = async (_exchange, _symbol, window) => {
    calls.push({ ...window });
    return newestFirst
      .filter((r) => (window.start === undefined || r.session_date >= window.start) && (window.end === undefined || r.session_date < window.end))
      .slice(0, pageSize);
  };
  return { fetchPage, calls };
}

const pair = { exchange: 'deribit', symbol: 'BTC' };
const keyOf = (r: ManifestRow): string => `${r.session_date}|${r.file}`;

describe('planListing', () => {
  const coverage = (first: string | null, last: string | null): CoverageRow => cov('okx', 'BTC', first, last);
  const plan = (input: Partial<ListingInput> & { coverage: CoverageRow }) =>
    planListing({ newestStored: null, completeFrom: null, fullRescan: false, ...input });

  it.each([
    [null, null, false, false], // no files at all: nothing to list
    [null, null, true, false],
    ['2024-06-03', null, false, true], // new pair
    ['2024-06-03', '2024-06-02', false, true], // newer files
    ['2024-06-03', '2024-06-03', false, false], // nothing new: no request
    ['2024-06-03', '2024-06-04', false, false],
    ['2024-06-03', '2024-06-03', true, true], // --full-rescan lists anyway
  ] as const)('files_last_date %s, stored %s, full %s → listed: %s', (last, stored, fullRescan, expected) => {
    expect(plan({ coverage: coverage('2024-01-01', last), newestStored: stored, fullRescan }) !== null).toBe(expected);
  });

  it('lists a new pair whole, or from --since, and records where it is complete from', () => {
    expect(plan({ coverage: coverage('2024-01-01', '2024-06-03') })).toEqual({ windows: [{ part: 'whole' }], completeFrom: null });
    expect(plan({ coverage: coverage('2024-01-01', '2024-06-03'), since: '2024-05-01' })).toEqual({
      windows: [{ part: 'whole', start: '2024-05-01' }],
      completeFrom: '2024-05-01',
    });
    // A --since at or before the first file bounds nothing; one after the last file lists nothing.
    expect(plan({ coverage: coverage('2024-01-01', '2024-06-03'), since: '2024-01-01' })?.completeFrom).toBeNull();
    expect(plan({ coverage: coverage('2024-01-01', '2024-06-03'), since: '2024-07-01' })).toBeNull();
  });

  it('lists newer sessions from the newest stored one', () => {
    expect(plan({ coverage: coverage('2024-01-01', '2024-06-03'), newestStored: '2024-06-01' })).toEqual({
      windows: [{ part: 'newer', start: '2024-06-01' }],
      completeFrom: null,
    });
  });

  it('lists the older window a wider --since needs, after the newer sessions', () => {
    const input = { coverage: coverage('2024-01-01', '2024-06-03'), newestStored: '2024-06-01', completeFrom: '2024-05-01' };
    expect(plan({ ...input, since: '2024-03-01' })).toEqual({
      windows: [
        { part: 'newer', start: '2024-06-01' },
        { part: 'older', start: '2024-03-01', end: '2024-05-01' },
      ],
      completeFrom: '2024-03-01',
    });
    // No --since: everything older, down to the first file.
    expect(plan(input)).toEqual({
      windows: [
        { part: 'newer', start: '2024-06-01' },
        { part: 'older', end: '2024-05-01' },
      ],
      completeFrom: null,
    });
    // The same --since again, or a later one: the newer sessions only.
    expect(plan({ ...input, since: '2024-05-01' })?.windows).toEqual([{ part: 'newer', start: '2024-06-01' }]);
    expect(plan({ ...input, newestStored: '2024-06-03', since: '2024-05-20' })).toBeNull();
  });

  it('needs no request when nothing older exists than what is held', () => {
    const input = { coverage: coverage('2024-05-01', '2024-06-03'), newestStored: '2024-06-03', completeFrom: '2024-05-01' };
    expect(plan(input)).toEqual({ windows: [], completeFrom: null });
    expect(plan({ ...input, completeFrom: null })).toBeNull();
  });
});

describe('listManifest paging', () => {
  it('lists 1,002 rows in the minimal 3 requests, pages ending mid-session, nothing lost or doubled', async () => {
    const all = synthetic(334);
    const server = fakeServer(all);
    const listing = await listManifest(server.fetchPage, pair);
    expect(listing.complete).toBe(true);
    expect(listing.requests).toBe(3);
    expect(listing.rows).toHaveLength(all.length);
    expect(new Set(listing.rows.map(keyOf))).toEqual(new Set(all.map(keyOf)));
    // The first page ends inside a session, so the second page's end re-includes that session.
    expect(server.calls[0]).toEqual({});
    const firstPageOldest = addDays('2021-01-01', 333 - 133);
    expect(server.calls[1]).toEqual({ end: addDays(firstPageOldest, 1) });
    // Newest session first, canonical file order within a session.
    expect(listing.rows.slice(0, 3).map(keyOf)).toEqual(['2021-11-30|levels', '2021-11-30|strikes_total', '2021-11-30|strikes_by_expiry']);
  });

  it.each([1, 2, 7, 399, 400, 401, 800, 1000])('is exact for %d rows with irregular sessions', async (count) => {
    // 1, 2 or 3 files a session, so page boundaries fall everywhere.
    const all = synthetic(count, (i) => (i % 3) + 1).slice(0, count);
    const server = fakeServer(all);
    const listing = await listManifest(server.fetchPage, pair);
    expect(listing.rows.map(keyOf).sort()).toEqual(all.map(keyOf).sort());
    expect(listing.requests).toBeLessThanOrEqual(Math.floor(count / 397) + 1);
  });

  it('lists from the start date on in one request when little is new', async () => {
    const server = fakeServer(synthetic(1000));
    const listing = await listManifest(server.fetchPage, pair, { start: '2023-09-25' });
    expect(server.calls).toEqual([{ start: '2023-09-25' }]);
    expect(listing.rows.every((r) => r.session_date >= '2023-09-25')).toBe(true);
    expect(listing.rows).toHaveLength(3 * 3);
  });

  it('pages within the start bound and finishes a session split at the bound', async () => {
    const all = synthetic(300);
    const start = addDays('2021-01-01', 300 - 134); // 134 sessions = 402 rows from start on
    const server = fakeServer(all);
    const listing = await listManifest(server.fetchPage, pair, { start });
    expect(listing.rows).toHaveLength(402);
    expect(server.calls).toEqual([{ start }, { start, end: addDays(start, 1) }]);
  });

  it.each([4, 10, 50, 100])('a server whose pages hold %d rows: listed whole down to the floor, nothing lost', async (size) => {
    const all = synthetic(60, (i) => (i % 3) + 1);
    const server = fakeServer(all, size);
    const listing = await listManifest(server.fetchPage, pair, { floor: '2021-01-01' });
    expect(listing.complete).toBe(true);
    expect(listing.rows.map(keyOf).sort()).toEqual(all.map(keyOf).sort());
  });

  it('a short last page costs one more request only when it stops after the bound, and the walk ends', async () => {
    const server = fakeServer(synthetic(10));
    // The bound is a session date: one page, as before.
    expect((await listManifest(server.fetchPage, pair, { start: '2021-01-05', floor: '2021-01-01' })).requests).toBe(1);
    // No session on the start date itself (a weekend --since): one page more, which adds nothing.
    const gap = fakeServer(synthetic(10).filter((r) => r.session_date !== '2021-01-05'));
    const listing = await listManifest(gap.fetchPage, pair, { start: '2021-01-05' });
    expect(listing).toMatchObject({ requests: 2, complete: true });
    expect(new Set(listing.rows.map((r) => r.session_date)).size).toBe(5);
    // One session after the bound, its page as short as it is: ends, no "no progress" error.
    const one = fakeServer(synthetic(10).filter((r) => r.session_date === '2021-01-10'));
    expect(await listManifest(one.fetchPage, pair, { start: '2021-01-07' })).toMatchObject({ requests: 2, complete: true });
  });

  it('stops at maxRequests and says the listing is incomplete', async () => {
    const server = fakeServer(synthetic(1000));
    const listing = await listManifest(server.fetchPage, pair, { maxRequests: 2 });
    expect(listing).toMatchObject({ requests: 2, complete: false });
    expect(listing.rows).toHaveLength(400 + 399); // one row of the second page repeats the first's last
  });

  it('fails instead of looping when the server repeats a page', async () => {
    const page = synthetic(200).slice(0, 400);
    let calls = 0;
    const repeating: FetchManifestPage = async () => {
      calls++;
      if (calls > 10) throw new Error('looped');
      return page;
    };
    await expect(listManifest(repeating, pair)).rejects.toThrow(ApiSchemaError);
    expect(calls).toBe(2);
  });

  it('fails instead of looping when one session fills a whole page', async () => {
    const crowded = Array.from({ length: 500 }, (_, i): ManifestRow => ({
      session_date: '2024-01-01',
      file: KINDS[i % 3]!,
      rows: 1,
      bytes: 1,
      sha256: String(i),
      schema_version: 1,
    }));
    const server = fakeServer(crowded);
    await expect(listManifest(server.fetchPage, pair)).rejects.toThrow(/no progress/);
    expect(server.calls).toHaveLength(2);
  });
});

describe('listPair', () => {
  const all = synthetic(300); // 900 rows, 2021-01-01 .. 2021-10-27: 3 pages of 400
  const input = (overrides: Partial<ListingInput> = {}): ListingInput => ({
    coverage: cov('deribit', 'BTC', '2021-01-01', '2021-10-27'),
    newestStored: null,
    completeFrom: null,
    fullRescan: false,
    ...overrides,
  });

  it('walks the newer sessions, then the older window, and reports the new complete_from', async () => {
    const server = fakeServer(all);
    const state = { completeFrom: '2021-10-01' };
    const plan = planListing(input({ newestStored: '2021-10-20', ...state, since: '2021-09-01' }))!;
    const listing = await listPair(server.fetchPage, pair, plan, state);
    expect(server.calls).toEqual([{ start: '2021-10-20' }, { start: '2021-09-01', end: '2021-10-01' }]);
    const dates = new Set(listing.rows.map((r) => r.session_date));
    expect(dates.size).toBe(8 + 30);
    expect([...dates].every((d) => d >= '2021-09-01' && (d < '2021-10-01' || d >= '2021-10-20'))).toBe(true);
    expect(listing).toMatchObject({ completeFrom: '2021-09-01', requests: 2, complete: true });
  });

  it('a first listing cut short by the cap keeps what it read, complete from the day after its oldest session', async () => {
    const server = fakeServer(all);
    const plan = planListing(input())!;
    const first = await listPair(server.fetchPage, pair, plan, { completeFrom: null }, { maxRequests: 1 });
    expect(first).toMatchObject({ requests: 1, complete: false });
    expect(first.rows).toHaveLength(400);
    const oldest = first.rows.at(-1)!.session_date;
    expect(first.completeFrom).toBe(addDays(oldest, 1));

    // The next run lists only the older window and ends complete from the first file.
    const next = planListing(input({ newestStored: first.rows[0]!.session_date, completeFrom: first.completeFrom }))!;
    expect(next.windows).toEqual([{ part: 'older', end: first.completeFrom }]);
    const rest = await listPair(server.fetchPage, pair, next, { completeFrom: first.completeFrom });
    expect(rest).toMatchObject({ completeFrom: null, complete: true });
    const union = new Map([...first.rows, ...rest.rows].map((r) => [keyOf(r), r]));
    expect([...union.keys()].sort()).toEqual(all.map(keyOf).sort());
  });

  it('drops a newer window cut short: storing it would leave a gap no listing would see', async () => {
    const server = fakeServer(all);
    const state = { completeFrom: null };
    const plan = planListing(input({ newestStored: '2021-01-05', ...state }))!;
    const listing = await listPair(server.fetchPage, pair, plan, state, { maxRequests: 1 });
    expect(listing).toEqual({ rows: [], completeFrom: null, requests: 1, complete: false });
  });

  it('a stop error (the quota used up) ends the walk with what was read; any other error propagates', async () => {
    const server = fakeServer(all);
    const quotaGone = new Error('429');
    let calls = 0;
    const fetchPage: FetchManifestPage = async (...args) => {
      if (++calls === 2) throw quotaGone;
      return server.fetchPage(...args);
    };
    const plan = planListing(input())!;
    const listing = await listPair(fetchPage, pair, plan, { completeFrom: null }, { isStop: (e) => e === quotaGone });
    expect(listing).toMatchObject({ requests: 1, complete: false, stop: quotaGone });
    expect(listing.rows).toHaveLength(400);
    expect(listing.completeFrom).toBe(addDays(listing.rows.at(-1)!.session_date, 1));
    calls = 0;
    await expect(listPair(fetchPage, pair, plan, { completeFrom: null }, { isStop: () => false })).rejects.toBe(quotaGone);
  });

  it('lists everything on a full rescan', async () => {
    const server = fakeServer(all);
    const plan = planListing(input({ newestStored: '2021-10-27', fullRescan: true }))!;
    const listing = await listPair(server.fetchPage, pair, plan, { completeFrom: null });
    expect(listing).toMatchObject({ requests: 3, complete: true, completeFrom: null });
    expect(listing.rows).toHaveLength(900);
    expect(server.calls[0]).toEqual({});
  });
});

describe('estimateListingRows: what a listing with no totals counts against', () => {
  const crypto: CoverageRow = { ...cov('deribit', 'BTC', '2024-01-01', '2024-12-31'), sessions: 366 };
  // A TradFi year: 252 sessions over 366 calendar days of files.
  const tradfi: CoverageRow = { ...cov('tradfi', 'SPY', '2024-01-01', '2024-12-31'), sessions: 252 };

  it('is every session times the three file kinds for a whole listing', () => {
    expect(estimateListingRows({ windows: [{ part: 'whole' }], completeFrom: null }, crypto)).toBe(366 * 3);
    expect(estimateListingRows({ windows: [{ part: 'whole' }], completeFrom: null }, tradfi)).toBe(252 * 3);
  });

  it('spreads the sessions over the file dates for a window (--since, newer, older)', () => {
    // 2024-12-02 .. 2024-12-31: 30 of 366 days.
    expect(estimateListingRows({ windows: [{ part: 'whole', start: '2024-12-02' }], completeFrom: '2024-12-02' }, crypto)).toBe(30 * 3);
    expect(estimateListingRows({ windows: [{ part: 'whole', start: '2024-12-02' }], completeFrom: '2024-12-02' }, tradfi)).toBe(
      Math.ceil((30 * 252) / 366) * 3,
    );
    // A newer window from the newest stored session, then the older window down to the first file.
    const plan = {
      windows: [
        { part: 'newer' as const, start: '2024-12-30' },
        { part: 'older' as const, end: '2024-01-11' },
      ],
      completeFrom: null,
    };
    expect(estimateListingRows(plan, crypto)).toBe((2 + 10) * 3);
  });

  it('is 0 when the coverage gives no file dates, and counts days when it gives no session count', () => {
    expect(estimateListingRows({ windows: [{ part: 'whole' }], completeFrom: null }, cov('okx', 'ETH', null, null))).toBe(0);
    expect(estimateListingRows({ windows: [{ part: 'whole' }], completeFrom: null }, cov('okx', 'ETH', '2024-01-01', '2024-01-10'))).toBe(30);
    expect(estimateListingRows({ windows: [], completeFrom: null }, crypto)).toBe(0);
    // The coverage counts the session in progress too (no file yet): still one session a day at most.
    expect(estimateListingRows({ windows: [{ part: 'whole' }], completeFrom: null }, { ...crypto, sessions: 367 })).toBe(366 * 3);
  });

  it('matches what a whole listing of a complete crypto manifest returns', async () => {
    const all = synthetic(300);
    const coverage: CoverageRow = { ...cov('deribit', 'BTC', '2021-01-01', addDays('2021-01-01', 299)), sessions: 300 };
    const listing = await listManifest(fakeServer(all).fetchPage, pair);
    expect(estimateListingRows({ windows: [{ part: 'whole' }], completeFrom: null }, coverage)).toBe(listing.rows.length);
  });
});

describe('rows listed so far (progress)', () => {
  it('listManifest reports the distinct rows after each page', async () => {
    const seen: number[] = [];
    const listing = await listManifest(fakeServer(synthetic(334)).fetchPage, pair, { onRows: (n) => seen.push(n) });
    // The second page re-reads the session the first ended in: its row already seen counts once.
    expect(seen).toEqual([400, 799, 1002]);
    expect(seen.at(-1)).toBe(listing.rows.length);
  });

  it('listPair counts on across its windows', async () => {
    const server = fakeServer(synthetic(300));
    const state = { completeFrom: '2021-10-01' };
    const plan = planListing({
      coverage: cov('deribit', 'BTC', '2021-01-01', '2021-10-27'),
      newestStored: '2021-10-20',
      ...state,
      since: '2021-09-01',
      fullRescan: false,
    })!;
    const seen: number[] = [];
    const listing = await listPair(server.fetchPage, pair, plan, state, { onRows: (n) => seen.push(n) });
    // 8 newer sessions (24 rows), then 30 older ones (90 rows).
    expect(seen).toEqual([24, 24 + 90]);
    expect(listing.rows).toHaveLength(24 + 90);
  });
});
