// Manifest listing. Listing costs a request per page, so it runs only for pairs whose
// coverage shows files newer than what sync.manifest holds, and only from the newest stored session
// on. Pages hold at most 400 rows, newest first, and are walked backwards with the exclusive `end`.
//
// Incremental start: the newest stored session date itself (inclusive), not the day after. It costs
// no extra request (three more rows in the same page) and re-lists that session, so a partly listed
// or rebuilt newest session is still seen. Older rebuilt files are only found by --full-rescan.
//
// Older sessions: sync.listings keeps, per pair, the date from which the stored manifest is complete
// (null: from the first file). A first listing with --since starts at that date, and a listing cut
// short by --max-requests keeps what it read; a later sync that wants older sessions lists only the
// missing older window [since or the beginning, complete_from).

import { ApiSchemaError } from '../core/errors.js';
import { addDays, daysBetween } from '../time/dates.js';
import { FILE_KINDS } from './selection.js';
import type { Pair } from '../core/pairs.js';
import type { CoverageRow, ManifestRow } from '../core/rows.js';
import { definedOnly } from '../core/defined.js';

export const MANIFEST_PAGE_SIZE = 400;

export interface ManifestWindow {
  /** Inclusive session date. */
  start?: string;
  /** Exclusive session date. */
  end?: string;
}

export type FetchManifestPage<R extends ManifestRow = ManifestRow> = (exchange: string, symbol: string, window: ManifestWindow) => Promise<R[]>;

export interface ListingInput {
  coverage: CoverageRow;
  /** Newest session date sync.manifest holds for the pair, or null. */
  newestStored: string | null;
  /** The stored manifest is complete from this session date on; null: from the first file. */
  completeFrom: string | null;
  /** --since: sessions before it need not be listed. */
  since?: string;
  fullRescan: boolean;
}

/** A window of the manifest to walk: newer sessions, older ones, or the whole (from --since). */
export interface ListingWindow extends ManifestWindow {
  part: 'newer' | 'older' | 'whole';
}

export interface ListingPlan {
  /** Walked in order: the newer sessions first. */
  windows: ListingWindow[];
  /** The pair's complete_from once every window is walked. */
  completeFrom: string | null;
}

/**
 * Which windows of a pair's manifest a sync lists; null when it needs no request and nothing changes.
 * A pair with no files, or whose files all end before --since, is not listed.
 */
export function planListing(input: ListingInput): ListingPlan | null {
  const last = input.coverage.files_last_date;
  if (last === null) return null;
  const since = boundingSince(input);
  if (since !== undefined && since > last && input.newestStored === null) return null;
  if (input.fullRescan) return { windows: [{ part: 'whole' }], completeFrom: null };
  if (input.newestStored === null) return { windows: [{ part: 'whole', ...(since ? { start: since } : {}) }], completeFrom: since ?? null };
  return updateListing(input, input.newestStored, last, since);
}

/** --since, unless it is at or before the first file: then it bounds nothing. */
function boundingSince(input: ListingInput): string | undefined {
  const first = input.coverage.files_first_date;
  if (input.since === undefined) return undefined;
  return first === null || input.since > first ? input.since : undefined;
}

/** A pair already listed: the sessions newer than the stored ones, and the older part not yet complete. */
function updateListing(input: ListingInput, newestStored: string, last: string, since: string | undefined): ListingPlan | null {
  const windows: ListingWindow[] = [];
  if (last > newestStored) windows.push({ part: 'newer', start: newestStored });
  const older = olderWindow(input, since);
  if (older.window) windows.push(older.window);
  if (windows.length === 0 && older.completeFrom === input.completeFrom) return null;
  return { windows, completeFrom: older.completeFrom };
}

function olderWindow(input: ListingInput, since: string | undefined): { window?: ListingWindow; completeFrom: string | null } {
  const { completeFrom } = input;
  const first = input.coverage.files_first_date;
  if (completeFrom === null || (since !== undefined && since >= completeFrom)) return { completeFrom };
  // Nothing older exists: complete from the first file already.
  if (first !== null && first >= completeFrom) return { completeFrom: null };
  return { window: { part: 'older', ...(since ? { start: since } : {}), end: completeFrom }, completeFrom: since ?? null };
}

/**
 * About how many manifest rows a plan's windows hold: the listing returns no totals, so progress
 * counts against this. The coverage row's session count spread evenly over its file dates (TradFi
 * skips weekends and holidays), times the file kinds; 0 when the coverage says nothing.
 */
export function estimateListingRows(plan: ListingPlan, coverage: CoverageRow): number {
  const first = coverage.files_first_date;
  const last = coverage.files_last_date;
  if (first === null || last === null || last < first) return 0;
  const spanDays = daysBetween(first, last) + 1;
  // At most one session a day: the coverage also counts the session in progress, which has no file yet.
  const sessionsPerDay = Math.min(1, (coverage.sessions ?? spanDays) / spanDays);
  const afterLast = addDays(last, 1);
  let days = 0;
  for (const window of plan.windows) {
    const start = window.start !== undefined && window.start > first ? window.start : first;
    const end = window.end !== undefined && window.end < afterLast ? window.end : afterLast;
    if (end > start) days += daysBetween(start, end);
  }
  return Math.ceil(days * sessionsPerDay) * FILE_KINDS.length;
}

export interface ListOptions {
  /** Inclusive lower bound; undefined lists the whole manifest. */
  start?: string;
  /** Exclusive upper bound of the first page; undefined starts at the newest session. */
  end?: string;
  /**
   * The oldest session the manifest holds (coverage's files_first_date). A page shorter than 400 rows
   * whose oldest session is after it (and after start) may be a server's smaller page, so the walk goes on.
   */
  floor?: string | null;
  /** Stop (complete = false) rather than make more than this many requests. */
  maxRequests?: number;
  /** An error of fetchPage that ends the walk with what was read (the request quota used up). */
  isStop?: (error: unknown) => boolean;
  pageSize?: number;
  /** After each page: the rows listed so far (each session and file once). */
  onRows?: (rows: number) => void;
}

export interface ManifestListing<R extends ManifestRow = ManifestRow> {
  /** Each (session_date, file) once, newest session first. */
  rows: R[];
  requests: number;
  /**
   * False when maxRequests or a stop error ended the walk: the rows are the newest part only. Do not
   * store them as if complete, or the older part would never be listed again.
   */
  complete: boolean;
  /** The fetchPage error that ended the walk (see ListOptions.isStop). */
  stop?: unknown;
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

/** Every page of a pair's manifest over [start, end): what a journal's claims are checked against (requests, no credit). */
export function manifestLister<R extends ManifestRow>(fetchPage: FetchManifestPage<R>): (pair: Pair, window: { start: string; end: string }) => Promise<R[]> {
  return async (pair, window) => (await listManifest(fetchPage, pair, window)).rows;
}

/**
 * Lists one pair's manifest from `start` (or the beginning) to the newest session, paging
 * backwards. A full page may end inside a session, so the next page's `end` is the oldest date on
 * the page + 1 day (end is exclusive) and the rows seen twice are merged. A page shorter than 400
 * rows ends the walk only once it reaches `start` or `floor` (see pageReader).
 */
export async function listManifest<R extends ManifestRow>(fetchPage: FetchManifestPage<R>, pair: Pair, options: ListOptions = {}): Promise<ManifestListing<R>> {
  const pageSize = options.pageSize ?? MANIFEST_PAGE_SIZE;
  const maxRequests = options.maxRequests ?? Number.POSITIVE_INFINITY;
  const { start } = options;
  const merged = new Map<string, R>();
  const pages = pageReader(pageSize, lowerBound(start, options.floor));
  let end = options.end;
  let previousOldest: string | undefined;
  let requests = 0;

  for (;;) {
    if (requests >= maxRequests) return { rows: sorted(merged), requests, complete: false };
    const fetched = await fetchPageOrStop(fetchPage, pair, definedOnly({ start, end }), options.isStop);
    if ('stop' in fetched) return { rows: sorted(merged), requests, complete: false, stop: fetched.stop };
    const { page } = fetched;
    requests++;
    const before = merged.size;
    for (const row of page) merged.set(`${row.session_date}|${row.file}`, row);
    options.onRows?.(merged.size);
    if (pages.lastPage(page, merged.size - before)) break;
    const oldest = oldestDateOf(page);
    if (start !== undefined && oldest < start) break; // the server went past the bound: done
    checkProgress(pair, oldest, previousOldest, requests);
    previousOldest = oldest;
    end = addDays(oldest, 1);
  }
  return { rows: sorted(merged), requests, complete: true };
}

/**
 * Tells the last page of a walk. The spec caps a page at 400 rows without saying a shorter one is the
 * last: a short page whose oldest session is after the bound sets the page size this server uses, and
 * the walk goes on at that size, until a page is short of it, adds nothing new, or is empty.
 */
function pageReader(pageSize: number, bound: string | undefined): { lastPage(page: readonly ManifestRow[], added: number): boolean } {
  let size = pageSize;
  let learned = false;
  return {
    lastPage(page, added) {
      if (page.length === 0 || (learned && added === 0)) return true;
      if (page.length >= size) return false;
      if (learned || bound === undefined || oldestDateOf(page) <= bound) return true;
      size = page.length;
      learned = true;
      return false;
    },
  };
}

/** The oldest session a walk must reach: the later of start and the floor; undefined when neither is known. */
function lowerBound(start: string | undefined, floor: string | null | undefined): string | undefined {
  if (floor === undefined || floor === null) return start;
  return start === undefined || floor > start ? floor : start;
}

/** One page, or the error that stops the walk (the request quota used up); other errors propagate. */
async function fetchPageOrStop<R extends ManifestRow>(
  fetchPage: FetchManifestPage<R>,
  pair: Pair,
  window: ManifestWindow,
  isStop: ((error: unknown) => boolean) | undefined,
): Promise<{ page: R[] } | { stop: unknown }> {
  try {
    return { page: await fetchPage(pair.exchange, pair.symbol, window) };
  } catch (error) {
    if (!isStop?.(error)) throw error;
    return { stop: error };
  }
}

/** Every full page must reach an older session than the last one, or paging never ends. */
function checkProgress(pair: Pair, oldest: string, previousOldest: string | undefined, requests: number): void {
  if (previousOldest === undefined || oldest < previousOldest) return;
  throw new ApiSchemaError(
    `/history/files/${pair.exchange}/${pair.symbol}`,
    `manifest paging made no progress (a full page again ends at ${oldest}); stopped after ${requests} requests`,
  );
}

function sorted<R extends ManifestRow>(merged: Map<string, R>): R[] {
  return [...merged.values()].sort(newestFirst);
}

export interface PairListing<R extends ManifestRow = ManifestRow> {
  /** Rows to store, newest first; empty when a cut-short walk left nothing worth storing. */
  rows: R[];
  /** The pair's complete_from to record with the rows. */
  completeFrom: string | null;
  requests: number;
  /** False when the request cap or a stop error ended a walk; what was read is kept where usable. */
  complete: boolean;
  /** The fetchPage error that ended the walk (ListOptions.isStop). */
  stop?: unknown;
}

/**
 * Walks a pair's listing windows within `maxRequests` (or until an `isStop` error: the request quota
 * used up). A whole or older window cut short keeps its
 * rows and moves complete_from down only to the day after the oldest session it read (that session
 * may be partly listed). A newer window cut short is dropped: storing it would leave a gap between the
 * stored manifest and what was read that no later listing would see. Errors of fetchPage propagate.
 */
export async function listPair<R extends ManifestRow>(
  fetchPage: FetchManifestPage<R>,
  pair: Pair,
  plan: ListingPlan,
  state: { completeFrom: string | null },
  options: Pick<ListOptions, 'maxRequests' | 'isStop' | 'pageSize' | 'onRows' | 'floor'> = {},
): Promise<PairListing<R>> {
  let requestsLeft = options.maxRequests ?? Number.POSITIVE_INFINITY;
  const rows: R[] = [];
  let requests = 0;
  for (const window of plan.windows) {
    const listing = await listManifest(fetchPage, pair, {
      ...definedOnly({ start: window.start, end: window.end, isStop: options.isStop, pageSize: options.pageSize, floor: options.floor }),
      maxRequests: requestsLeft,
      onRows: (listed) => options.onRows?.(rows.length + listed),
    });
    requests += listing.requests;
    requestsLeft -= listing.requests;
    if (listing.complete) {
      rows.push(...listing.rows);
      continue;
    }
    const stop = listing.stop === undefined ? {} : { stop: listing.stop };
    if (window.part === 'newer' || listing.rows.length === 0) {
      return { rows, completeFrom: state.completeFrom, requests, complete: false, ...stop };
    }
    rows.push(...listing.rows);
    return { rows, completeFrom: addDays(oldestDateOf(listing.rows), 1), requests, complete: false, ...stop };
  }
  return { rows, completeFrom: plan.completeFrom, requests, complete: true };
}

/** The page fetcher the orchestrator's API adapter provides. */
export type ManifestPageFetcher = FetchManifestPage;
