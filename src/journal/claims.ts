// A journal's listing rows are claims: anyone who can write the archive can write one, and a listing
// with a file entry that both claim a forged file's sha256 would make the forged bytes "the
// manifest's version". So each claimed row is judged against the API's own manifest of its pair
// before it is stored: the API's row is stored when the API lists the same sha256, the claim is
// refused when the API lists another version or none; a row of a pair the API was not asked about
// waits in the journal, or (--trust-journal) is stored marked unconfirmed. Pure.
import { pairKey, type Pair } from '../core/pairs.js';
import { addDays } from '../time/dates.js';
import type { JournaledListing } from './journal.js';

/** A manifest row as a journal's listing holds it (its kind checked, its type text). */
export type ClaimRow = JournalRow;
type JournalRow = JournaledListing['rows'][number];
type ManifestRow = JournalRow;

/** The API's manifest rows of one pair over the window asked, by `session_date|file`. */
export type PairAnswer = ReadonlyMap<string, ManifestRow>;

/** A listing row the API contradicts, with why. */
export interface RefusedClaim {
  listing: JournaledListing;
  row: ManifestRow;
  reason: string;
}

export interface ClaimVerdicts {
  /** Rows the API lists with the same sha256, as the API lists them. */
  confirmed: JournaledListing[];
  /** Rows no answer could check, stored because the user trusts the journal (--trust-journal). */
  trusted: JournaledListing[];
  /** Rows no answer could check: they stay in the journal. */
  waiting: JournaledListing[];
  refused: RefusedClaim[];
}

export function rowKey(row: Pick<ManifestRow, 'session_date' | 'file'>): string {
  return `${row.session_date}|${row.file}`;
}

/** The window of a pair's manifest that holds every row the journal claims for it ([start, end)). */
export function claimWindows(listings: readonly JournaledListing[]): Map<string, Pair & { start: string; end: string }> {
  const windows = new Map<string, Pair & { start: string; end: string }>();
  for (const listing of listings) {
    for (const row of listing.rows) {
      const key = pairKey(listing);
      const now = windows.get(key);
      const start = now === undefined || row.session_date < now.start ? row.session_date : now.start;
      const end = addDays(row.session_date, 1);
      windows.set(key, { exchange: listing.exchange, symbol: listing.symbol, start, end: now === undefined || end > now.end ? end : now.end });
    }
  }
  return windows;
}

/** Whether rows the run itself listed from the API answer every claim of a pair (no request needed). */
export function knownAnswers(listings: readonly JournaledListing[], known: readonly JournaledListing[]): Map<string, PairAnswer> {
  const byPair = new Map<string, Map<string, ManifestRow>>();
  for (const listing of known) {
    const rows = byPair.get(pairKey(listing)) ?? new Map<string, ManifestRow>();
    for (const row of listing.rows) rows.set(rowKey(row), row);
    byPair.set(pairKey(listing), rows);
  }
  const answers = new Map<string, PairAnswer>();
  for (const [key, rows] of byPair) {
    const claims = listings.filter((l) => pairKey(l) === key).flatMap((l) => l.rows);
    if (claims.every((claim) => rows.get(rowKey(claim))?.sha256 === claim.sha256)) answers.set(key, rows);
  }
  return answers;
}

/** Each claimed row judged by the API's answer for its pair (none: unchecked). */
export function judgeClaims(listings: readonly JournaledListing[], answers: ReadonlyMap<string, PairAnswer>, trust: boolean): ClaimVerdicts {
  const verdicts: ClaimVerdicts = { confirmed: [], trusted: [], waiting: [], refused: [] };
  for (const listing of listings) {
    const answer = answers.get(pairKey(listing));
    if (answer === undefined) {
      (trust ? verdicts.trusted : verdicts.waiting).push(listing);
      continue;
    }
    const confirmed: ManifestRow[] = [];
    for (const row of listing.rows) {
      const api = answer.get(rowKey(row));
      if (api?.sha256 === row.sha256) confirmed.push(api);
      else verdicts.refused.push({ listing, row, reason: contradiction(row, api) });
    }
    if (confirmed.length > 0) verdicts.confirmed.push({ ...listing, rows: confirmed });
  }
  return verdicts;
}

function contradiction(row: ManifestRow, api: ManifestRow | undefined): string {
  const claim = `claims sha256 ${row.sha256}`;
  return api === undefined
    ? `${claim}, and the API's manifest lists no such file: the claim is refused, nothing of it is stored or loaded`
    : `${claim}, and the API's manifest lists sha256 ${api.sha256}: the claim is refused, only the API's version may load`;
}
