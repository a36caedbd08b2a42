// The venue a symbol takes when the user names none. Pure: given the coverage rows in the selection,
// each symbol is bought once: on its default venue (combined for a coin, tradfi for a ticker, as the
// API resolves `all`) when it has history there, else on its only venue. A symbol with several venues
// and no default one is not bought: it is returned by name, with its venues and the flag that buys it,
// so the run says so instead of dropping it.
import { ALL_VENUES } from './selection.js';
import { isDefaultVenue, type Pair } from '../core/pairs.js';

/** A symbol the default rule does not buy: several venues, none of them a default one. */
export interface NotBought {
  symbol: string;
  /** Its venues in the coverage, in name order. */
  venues: string[];
  /** The flags that buy it, one venue each: `--exchange okx --symbol ETH`. */
  buyWith: string[];
}

export interface DefaultVenues {
  pairs: Pair[];
  notBought: NotBought[];
}

/** Each symbol of `rows` on its one venue, and the symbols left out with their venues. */
export function defaultVenuePairs(rows: readonly Pair[]): DefaultVenues {
  const bySymbol = new Map<string, Pair[]>();
  for (const row of rows) {
    const list = bySymbol.get(row.symbol) ?? [];
    if (!list.some((pair) => pair.exchange === row.exchange)) list.push(row);
    bySymbol.set(row.symbol, list);
  }
  const pairs: Pair[] = [];
  const notBought: NotBought[] = [];
  for (const [symbol, venues] of bySymbol) {
    const defaults = venues.filter((pair) => isDefaultVenue(pair.exchange));
    if (defaults.length > 0) pairs.push(...defaults);
    else if (venues.length === 1) pairs.push(venues[0]!);
    else notBought.push(notBoughtOf(symbol, venues));
  }
  return { pairs, notBought: notBought.sort((a, b) => (a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0)) };
}

function notBoughtOf(symbol: string, venues: readonly Pair[]): NotBought {
  const names = venues.map((pair) => pair.exchange).sort();
  return { symbol, venues: names, buyWith: names.map((venue) => `--exchange ${venue} --symbol ${symbol}`) };
}

/**
 * "ETH: not bought: history on bybit, okx and on no default venue (combined, tradfi); buy it with
 * --exchange bybit --symbol ETH (or another of its venues) or --exchange all-venues (each venue costs its own credits)".
 */
export function describeNotBought(item: NotBought): string {
  return (
    `${item.symbol}: not bought: history on ${item.venues.join(', ')} and on no default venue (combined, tradfi); ` +
    `buy it with ${item.buyWith[0]!} (or another of its venues) ` +
    `or --exchange ${ALL_VENUES} (each venue costs its own credits)`
  );
}

export interface VenueSpread {
  symbol: string;
  /** Credits this run would spend per venue (download + deferred), venues in name order. */
  venues: { exchange: string; credits: number }[];
}

/** Symbols whose planned downloads span several venues: each venue's files cost their own credits. */
export function venueSpread(pairs: readonly (Pair & { toDownload: number; deferred: number })[]): VenueSpread[] {
  const bySymbol = new Map<string, { exchange: string; credits: number }[]>();
  for (const pair of pairs) {
    const credits = pair.toDownload + pair.deferred;
    if (credits === 0) continue;
    const list = bySymbol.get(pair.symbol) ?? [];
    list.push({ exchange: pair.exchange, credits });
    bySymbol.set(pair.symbol, list);
  }
  return [...bySymbol]
    .filter(([, venues]) => venues.length > 1)
    .map(([symbol, venues]) => ({ symbol, venues: venues.sort((a, b) => (a.exchange < b.exchange ? -1 : 1)) }))
    .sort((a, b) => (a.symbol < b.symbol ? -1 : 1));
}

/** "BTC: files on 5 venues would cost credits each: bybit 9, …; pick one with --exchange (combined sums every venue)". */
export function describeSpread(spread: VenueSpread): string {
  const list = spread.venues.map((v) => `${v.exchange} ${v.credits}`).join(', ');
  const combined = spread.venues.some((v) => v.exchange === 'combined') ? ' (combined is the sum of the single venues)' : '';
  return `${spread.symbol}: ${spread.venues.length} venues would each cost credits: ${list}; pick one with --exchange${combined}`;
}
