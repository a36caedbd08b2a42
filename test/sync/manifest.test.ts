import { describe, expect, it } from 'vitest';
import { ApiSchemaError } from '../../src/errors.js';
import {
  listingStart,
  listManifest,
  listManifests,
  listPairManifest,
  needsListing,
  type FetchManifestPage,
  type ManifestWindow,
} from '../../src/sync/manifest.js';
import { addDays } from '../../src/time/dates.js';
import type { FileKind } from '../../src/sync/selection.js';
import type { CoverageRow, ManifestRow } from '../../src/sync/types.js';

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

describe('needsListing and listingStart', () => {
  const coverage = (files_last_date: string | null): CoverageRow => cov('okx', 'BTC', null, files_last_date);

  it.each([
    [null, null, false, false], // no files at all: nothing to list
    [null, null, true, false],
    ['2024-06-03', null, false, true], // new pair
    ['2024-06-03', '2024-06-02', false, true], // newer files
    ['2024-06-03', '2024-06-03', false, false], // nothing new: no request
    ['2024-06-03', '2024-06-04', false, false],
    ['2024-06-03', '2024-06-03', true, true], // --full-rescan lists anyway
  ] as const)('files_last_date %s, stored %s, full %s → %s', (last, stored, full, expected) => {
    expect(needsListing(coverage(last), stored, full)).toBe(expected);
  });

  it('starts at the newest stored date, or nowhere for a full listing', () => {
    expect(listingStart('2024-06-02', false)).toBe('2024-06-02');
    expect(listingStart('2024-06-02', true)).toBeUndefined();
    expect(listingStart(null, false)).toBeUndefined();
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
      session_date: '2024-01-01', file: KINDS[i % 3]!, rows: 1, bytes: 1, sha256: String(i), schema_version: 1,
    }));
    const server = fakeServer(crowded);
    await expect(listManifest(server.fetchPage, pair)).rejects.toThrow(/no progress/);
    expect(server.calls).toHaveLength(2);
  });
});

describe('listManifests over coverage', () => {
  it('skips pairs with nothing new and lists the others incrementally', async () => {
    const server = fakeServer(synthetic(10)); // files up to 2021-01-10
    const coverage: CoverageRow[] = [
      cov('deribit', 'BTC', '2021-01-01', '2021-01-10'),
      cov('okx', 'ETH', '2021-01-01', '2021-01-10'),
      cov('tradfi', 'SPY', null, null),
      cov('bybit', 'SOL', '2021-01-01', '2021-01-10'),
    ];
    const stored: Record<string, string | null> = { 'deribit|BTC': '2021-01-10', 'okx|ETH': '2021-01-08', 'bybit|SOL': null };
    const listings = await listManifests(coverage, (p) => stored[`${p.exchange}|${p.symbol}`] ?? null, server.fetchPage, { fullRescan: false });
    expect(listings.map((l) => [l.symbol, l.status, l.requests, l.rows.length])).toEqual([
      ['BTC', 'skipped', 0, 0],
      ['ETH', 'listed', 1, 9],
      ['SPY', 'skipped', 0, 0],
      ['SOL', 'listed', 1, 30],
    ]);
    expect(listings[1]!.start).toBe('2021-01-08');
    expect(server.calls).toEqual([{ start: '2021-01-08' }, {}]);
  });

  it('lists everything on a full rescan and shares the request cap', async () => {
    const server = fakeServer(synthetic(300)); // 900 rows: 3 pages each
    const coverage: CoverageRow[] = ['BTC', 'ETH'].map((symbol) => cov('okx', symbol, '2021-01-01', '2021-10-27'));
    const listings = await listManifests(coverage, () => '2021-10-27', server.fetchPage, { fullRescan: true, maxRequests: 4 });
    expect(listings.map((l) => [l.status, l.requests])).toEqual([
      ['listed', 3],
      ['incomplete', 1],
    ]);
    expect(server.calls[0]).toEqual({});
  });
});

describe('listPairManifest', () => {
  it('returns null without a request when nothing is new, else the rows from the stored date on', async () => {
    const server = fakeServer(synthetic(10));
    const coverage = cov('deribit', 'BTC', '2021-01-01', '2021-01-10');
    expect(await listPairManifest(server.fetchPage, pair, { coverage, newestStoredDate: '2021-01-10', fullRescan: false })).toBeNull();
    expect(server.calls).toEqual([]);
    const rows = await listPairManifest(server.fetchPage, pair, { coverage, newestStoredDate: '2021-01-09', fullRescan: false });
    expect(rows?.map((r) => r.session_date)).toEqual(['2021-01-10', '2021-01-10', '2021-01-10', '2021-01-09', '2021-01-09', '2021-01-09']);
    const all = await listPairManifest(server.fetchPage, pair, { coverage, newestStoredDate: '2021-01-10', fullRescan: true });
    expect(all).toHaveLength(30);
  });
});
