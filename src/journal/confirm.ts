// Asking the API about a journal's claims: its listing rows (claims.ts judges them) and the manifest
// rows an earlier `load --trust-journal` stored unconfirmed. A listing is a request, never a credit.
// Whoever cannot ask (no key configured, the API unreachable) leaves the claims unchecked: they wait,
// or load marked unconfirmed when the user trusts the journal.
import type { DuckDBConnection } from '@duckdb/node-api';
import { dropUnconfirmed, listUnconfirmed, removeManifestRow, type UnconfirmedRow } from '../warehouse/unconfirmed.js';
import { upsertManifest } from '../warehouse/index.js';
import { errorMessage } from '../core/errors.js';
import { pairKey, type Pair } from '../core/pairs.js';
import type { ManifestRow } from '../core/rows.js';
import { addDays } from '../time/dates.js';
import { claimWindows, knownAnswers, rowKey, type ClaimRow, type PairAnswer } from './claims.js';
import type { JournaledListing } from './journal.js';

/** The API's manifest of a pair over [start, end): one or more listing requests, no credit. */
export type ManifestLister = (pair: Pair, window: { start: string; end: string }) => Promise<readonly ManifestRow[]>;

/** How a load may check the journal's claims. */
export interface JournalCheck {
  /** Asks the API; absent when no key is configured. */
  list?: ManifestLister;
  /** Listings this run itself made from the API: claims they answer need no request. */
  known?: readonly JournaledListing[];
  /** --trust-journal: claims no answer checks are stored anyway, marked unconfirmed. */
  trust?: boolean;
}

/** The checks a load without a key and without --trust-journal makes: none; the claims wait. */
export const NO_CHECK: JournalCheck = {};

/** The API's answer for each pair the listings claim rows of (a pair it could not be asked about has none). */
export async function answersFor(listings: readonly JournaledListing[], check: JournalCheck, warnings: string[]): Promise<Map<string, PairAnswer>> {
  const answers = knownAnswers(listings, check.known ?? []);
  if (check.list === undefined) return answers;
  for (const [key, window] of claimWindows(listings)) {
    if (answers.has(key)) continue;
    const answer = await ask(check.list, window, warnings);
    if (answer !== undefined) answers.set(key, answer);
  }
  return answers;
}

async function ask(list: ManifestLister, window: Pair & { start: string; end: string }, warnings: string[]): Promise<PairAnswer | undefined> {
  try {
    const rows = await list(window, window);
    return new Map(rows.map((row) => [rowKey(row), row]));
  } catch (error) {
    warnings.push(
      `the journal's claims for ${window.exchange}/${window.symbol} could not be checked against the API's manifest (${errorMessage(error)}): they wait in the journal for a run that can`,
    );
    return undefined;
  }
}

/**
 * The manifest rows stored unconfirmed, checked now: a row the API lists with the same sha256 loses
 * its mark; any other is replaced by the API's row (or removed when the API lists none), so a file
 * loaded under it shows in verify as not the manifest's version and the next sync replaces it.
 */
export async function checkUnconfirmed(conn: DuckDBConnection, list: ManifestLister, warnings: string[]): Promise<number> {
  const marks = await listUnconfirmed(conn);
  if (marks.length === 0) return 0;
  const byPair = new Map<string, UnconfirmedRow[]>();
  for (const mark of marks) byPair.set(pairKey(mark), [...(byPair.get(pairKey(mark)) ?? []), mark]);
  let checked = 0;
  for (const rows of byPair.values()) {
    const dates = rows.map((r) => r.sessionDate).sort();
    const pair = { exchange: rows[0]!.exchange, symbol: rows[0]!.symbol };
    const answer = await ask(list, { ...pair, start: dates[0]!, end: addDays(dates[dates.length - 1]!, 1) }, warnings);
    if (answer === undefined) continue;
    for (const mark of rows) await settle(conn, mark, answer.get(`${mark.sessionDate}|${mark.file}`), warnings);
    await dropUnconfirmed(conn, rows);
    checked += rows.length;
  }
  return checked;
}

async function settle(conn: DuckDBConnection, mark: UnconfirmedRow, api: ClaimRow | undefined, warnings: string[]): Promise<void> {
  if (api?.sha256 === mark.sha256) return;
  const what = `${mark.exchange}/${mark.symbol} ${mark.sessionDate} ${mark.file}`;
  if (api === undefined) await removeManifestRow(conn, mark);
  else await upsertManifest(conn, mark.exchange, mark.symbol, [api], new Date());
  warnings.push(
    `the manifest row of ${what} stored unconfirmed from the journal (sha256 ${mark.sha256}) is not the API's version ` +
      `(${api === undefined ? 'the API lists no such file' : `the API lists ${api.sha256}`}): the API's word is kept; ` +
      `a file loaded under it shows in gexwh verify, and the next gexwh sync replaces it`,
  );
}
