// Manifest listing (DESIGN §4.1). Listing costs a request per page, so it runs only for pairs whose
// coverage shows files newer than what sync.manifest holds, and only from the newest stored session
// on. Pages hold at most 400 rows, newest first, and are walked backwards with the exclusive `end`.
//
// Incremental start: the newest stored session date itself (inclusive), not the day after. It costs
// no extra request (three more rows in the same page) and re-lists that session, so a partly listed
// or rebuilt newest session is still seen. Older rebuilt files are only found by --full-rescan.

import { ApiSchemaError } from '../errors.js';
import { addDays } from '../time/dates.js';
import { FILE_KINDS } from './selection.js';
import type { CoverageRow, ManifestRow, Pair } from './types.js';

export const MANIFEST_PAGE_SIZE = 400;

export interface ManifestWindow {
  /** Inclusive session date. */
  start?: string;
  /** Exclusive session date. */
  end?: string;
}

export type FetchManifestPage<R extends ManifestRow = ManifestRow> = (
  exchange: string,
  symbol: string,
  window: ManifestWindow,
) => Promise<R[]>;

/** Whether a pair's manifest must be listed at all; files_last_date null means it has no files. */
export function needsListing(coverage: CoverageRow, newestStoredDate: string | null, fullRescan: boolean): boolean {
  if (coverage.files_last_date === null) return false;
  if (fullRescan || newestStoredDate === null) return true;
  return coverage.files_last_date > newestStoredDate;
}

/** Where a listing starts: everything for a full rescan or a new pair, else the newest stored date. */
export function listingStart(newestStoredDate: string | null, fullRescan: boolean): string | undefined {
  return fullRescan || newestStoredDate === null ? undefined : newestStoredDate;
}

export interface ListOptions {
  /** Inclusive lower bound; undefined lists the whole manifest. */
  start?: string;
  /** Stop (complete = false) rather than make more than this many requests. */
  maxRequests?: number;
  pageSize?: number;
}

export interface ManifestListing<R extends ManifestRow = ManifestRow> {
  /** Each (session_date, file) once, newest session first. */
  rows: R[];
  requests: number;
  /**
   * False when maxRequests stopped the walk: the rows are the newest part only. Do not store them
   * as if complete, or the older part would never be listed again.
   */
  complete: boolean;
}

function oldestDateOf(rows: readonly ManifestRow[]): string {
  let oldest = rows[0]!.session_date;
  for (const row of rows) if (row.session_date < oldest) oldest = row.session_date;
  return oldest;
}

function fileRank(file: string): number {
  const rank = (FILE_KINDS as readonly string[]).indexOf(file);
  return rank === -1 ? FILE_KINDS.length : rank;
}

function newestFirst(a: ManifestRow, b: ManifestRow): number {
  if (a.session_date !== b.session_date) return a.session_date < b.session_date ? 1 : -1;
  return fileRank(a.file) - fileRank(b.file) || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0);
}

/**
 * Lists one pair's manifest from `start` (or the beginning) to the newest session, paging
 * backwards. A full page may end inside a session, so the next page's `end` is the oldest date on
 * the page + 1 day (end is exclusive) and the rows seen twice are merged.
 */
export async function listManifest<R extends ManifestRow>(
  fetchPage: FetchManifestPage<R>,
  pair: Pair,
  options: ListOptions = {},
): Promise<ManifestListing<R>> {
  const pageSize = options.pageSize ?? MANIFEST_PAGE_SIZE;
  const maxRequests = options.maxRequests ?? Number.POSITIVE_INFINITY;
  const { start } = options;
  const merged = new Map<string, R>();
  let end: string | undefined;
  let previousOldest: string | undefined;
  let requests = 0;

  for (;;) {
    if (requests >= maxRequests) return { rows: sorted(merged), requests, complete: false };
    const window: ManifestWindow = {};
    if (start !== undefined) window.start = start;
    if (end !== undefined) window.end = end;
    const page = await fetchPage(pair.exchange, pair.symbol, window);
    requests++;
    for (const row of page) merged.set(`${row.session_date}|${row.file}`, row);
    if (page.length < pageSize) break;

    const oldest = oldestDateOf(page);
    if (start !== undefined && oldest < start) break; // the server went past the bound: done
    // Every full page must reach an older session than the last one, or paging never ends.
    if (previousOldest !== undefined && oldest >= previousOldest) {
      throw new ApiSchemaError(
        `/history/files/${pair.exchange}/${pair.symbol}`,
        `manifest paging made no progress (a full page again ends at ${oldest}); stopped after ${requests} requests`,
      );
    }
    previousOldest = oldest;
    end = addDays(oldest, 1);
  }
  return { rows: sorted(merged), requests, complete: true };
}

function sorted<R extends ManifestRow>(merged: Map<string, R>): R[] {
  return [...merged.values()].sort(newestFirst);
}

export interface PairListing<R extends ManifestRow = ManifestRow> extends Pair {
  /** skipped: nothing newer than what is stored (or no files at all); no request made. */
  status: 'skipped' | 'listed' | 'incomplete';
  start?: string;
  rows: R[];
  requests: number;
}

export interface ListManifestsOptions {
  fullRescan: boolean;
  /** A cap on listing requests over all pairs (e.g. --max-requests). */
  maxRequests?: number;
  pageSize?: number;
}

/**
 * Lists the manifests of the coverage rows given (already filtered to the selection), one pair at a
 * time. `newestStoredDate` answers from sync.manifest. Errors of fetchPage propagate unchanged.
 */
export async function listManifests<R extends ManifestRow>(
  coverage: readonly CoverageRow[],
  newestStoredDate: (pair: Pair) => string | null | Promise<string | null>,
  fetchPage: FetchManifestPage<R>,
  options: ListManifestsOptions,
): Promise<PairListing<R>[]> {
  const listings: PairListing<R>[] = [];
  let requestsLeft = options.maxRequests ?? Number.POSITIVE_INFINITY;
  for (const row of coverage) {
    const pair: Pair = { exchange: row.exchange, symbol: row.symbol };
    const stored = await newestStoredDate(pair);
    if (!needsListing(row, stored, options.fullRescan)) {
      listings.push({ ...pair, status: 'skipped', rows: [], requests: 0 });
      continue;
    }
    const start = listingStart(stored, options.fullRescan);
    const listOptions: ListOptions = { maxRequests: requestsLeft };
    if (start !== undefined) listOptions.start = start;
    if (options.pageSize !== undefined) listOptions.pageSize = options.pageSize;
    const listing = await listManifest(fetchPage, pair, listOptions);
    requestsLeft -= listing.requests;
    const result: PairListing<R> = { ...pair, status: listing.complete ? 'listed' : 'incomplete', rows: listing.rows, requests: listing.requests };
    if (start !== undefined) result.start = start;
    listings.push(result);
  }
  return listings;
}

/** The page fetcher the orchestrator's API adapter provides. */
export type ManifestPageFetcher = FetchManifestPage;

export interface PairListingInput {
  coverage: CoverageRow;
  newestStoredDate: string | null;
  fullRescan: boolean;
}

/**
 * One pair's listing decision and walk: null when no request is needed (nothing newer than
 * sync.manifest holds, or no files), else every row from the listing start on, newest first.
 */
export async function listPairManifest<R extends ManifestRow>(
  fetchPage: FetchManifestPage<R>,
  pair: Pair,
  input: PairListingInput,
): Promise<R[] | null> {
  if (!needsListing(input.coverage, input.newestStoredDate, input.fullRescan)) return null;
  const start = listingStart(input.newestStoredDate, input.fullRescan);
  const listing = await listManifest(fetchPage, pair, start === undefined ? {} : { start });
  return listing.rows;
}
