// Names the user typed, checked against what exists before anything is spent: a mistyped symbol or
// venue is an error naming the closest known names, never a quiet "0 files". Pure: the caller passes
// what is known (the free coverage for sync and plan, the warehouse's own tables offline).

import { UsageError } from './errors.js';
import { marketOf, type Market } from '../time/sessions.js';
import type { Pair } from './pairs.js';

/** Damerau–Levenshtein distance (adjacent swaps count 1): "BTX" → "BTC" 1, "ETC" → "ETH" 1, "TBC" → "BTC" 1. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * Up to `max` known names close to `name` (case-insensitive), closest first: within a third of the
 * longer name's length in edits (at least 1), or one starting with the other ("BT" → "BTC").
 * Empty when nothing is close; the caller then lists what is known.
 */
export function closestNames(name: string, known: readonly string[], max = 3): string[] {
  const wanted = name.toUpperCase();
  const scored: { name: string; score: number }[] = [];
  for (const candidate of new Set(known)) {
    const upper = candidate.toUpperCase();
    if (upper === wanted) continue;
    const distance = editDistance(wanted, upper);
    const limit = Math.max(1, Math.floor(Math.max(wanted.length, upper.length) / 3));
    const prefix = wanted.length >= 2 && (upper.startsWith(wanted) || wanted.startsWith(upper));
    if (distance <= limit || prefix) scored.push({ name: candidate, score: prefix ? Math.min(distance, 1) : distance });
  }
  scored.sort((x, y) => x.score - y.score || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  return scored.slice(0, max).map((s) => s.name);
}

const LISTED_AT_MOST = 12;

/** "did you mean BTC, BCH?" or, when nothing is close, the known names (a dozen at most). */
export function suggestion(name: string, known: readonly string[], what: string): string {
  const close = closestNames(name, known);
  if (close.length > 0) return `did you mean ${close.join(', ')}?`;
  const sorted = [...new Set(known)].sort();
  if (sorted.length === 0) return `no ${what} is known`;
  const more = sorted.length > LISTED_AT_MOST ? `, … (${sorted.length} in all)` : '';
  return `known ${what}: ${sorted.slice(0, LISTED_AT_MOST).join(', ')}${more}`;
}

export interface NameSelection {
  exchanges?: readonly string[];
  symbols?: readonly string[];
  /** With no exchanges named, the venues a symbol takes (a sync's one venue per symbol); absent: any venue. */
  defaultVenues?: readonly string[];
  /** Where the names came from, for the message: `--symbol` (the default), `"symbol" in config file PATH`. */
  labels?: { exchange?: string; symbol?: string };
}

export interface KnownPairs {
  /** Every (exchange, symbol) that has history. */
  pairs: readonly Pair[];
  /** Where the names were checked, for the messages: "the coverage", "the warehouse". */
  source: string;
  /** Pairs outside the key's plan, with the plan's markets named (sync and plan only). */
  outsidePlan?: { pairs: readonly Pair[]; markets: readonly string[] };
  /** Names of rows the run skips with their own warning: typed by the user, they are not unknown. */
  skipped?: readonly { exchange: string | null; symbol: string | null }[];
}

/**
 * Throws a UsageError (exit 2) naming every selected symbol or venue that has no history, with the
 * closest known names, and every symbol whose history lies only on venues the selection leaves out,
 * naming the venues that hold it. Symbols compare case-insensitively.
 */
export function checkSelectionNames(selection: NameSelection, known: KnownPairs): void {
  const exchanges = selection.exchanges?.map((e) => e.toLowerCase());
  const symbols = selection.symbols?.map((s) => s.toUpperCase());
  const skippedExchanges = new Set(known.skipped?.map((row) => row.exchange));
  const skippedSymbols = new Set(known.skipped?.map((row) => row.symbol?.toUpperCase()));
  const problems = [
    ...(exchanges ?? []).filter((exchange) => !skippedExchanges.has(exchange)).map((exchange) => exchangeProblem(exchange, known)),
    ...(symbols ?? [])
      .filter((symbol) => !skippedSymbols.has(symbol))
      .map((symbol) => symbolProblem(symbol, exchanges ?? selection.defaultVenues, known, exchanges === undefined)),
  ].filter((problem) => problem !== undefined);
  if (problems.length > 0) {
    const which = [symbols ? (selection.labels?.symbol ?? '--symbol') : '', exchanges ? (selection.labels?.exchange ?? '--exchange') : '']
      .filter((o) => o !== '')
      .join(' and ');
    throw new UsageError(`${problems.join('; ')}`, { checked: `${which} against ${known.source}` });
  }
}

function venuesOf(symbol: string, pairs: readonly Pair[]): string[] {
  return [...new Set(pairs.filter((p) => p.symbol.toUpperCase() === symbol).map((p) => p.exchange))].sort();
}

function exchangeProblem(exchange: string, known: KnownPairs): string | undefined {
  if (known.pairs.some((p) => p.exchange === exchange)) return undefined;
  if (known.outsidePlan?.pairs.some((p) => p.exchange === exchange)) {
    return `${exchange}: its history is outside this key's plan (markets: ${known.outsidePlan.markets.join(', ')})`;
  }
  return `${exchange}: no history in ${known.source}; ${suggestion(
    exchange,
    known.pairs.map((p) => p.exchange),
    'venues',
  )}`;
}

function symbolProblem(symbol: string, exchanges: readonly string[] | undefined, known: KnownPairs, byDefault: boolean): string | undefined {
  const venues = venuesOf(symbol, known.pairs);
  if (venues.length === 0) {
    const outside = known.outsidePlan ? venuesOf(symbol, known.outsidePlan.pairs) : [];
    return outside.length > 0
      ? `${symbol}: its history (on ${outside.join(', ')}) is outside this key's plan (markets: ${known.outsidePlan!.markets.join(', ')})`
      : `${symbol}: no history in ${known.source}; ${suggestion(
          symbol,
          known.pairs.map((p) => p.symbol),
          'symbols',
        )}`;
  }
  if (exchanges !== undefined && !venues.some((v) => exchanges.includes(v))) {
    // No default venue but only one venue: the symbol is bought there.
    if (byDefault && venues.length === 1) return undefined;
    if (byDefault)
      return `${symbol}: no history on ${exchanges.join(' or ')}, the venue a symbol takes without --exchange; ${symbol} has history on ${venues.join(', ')}: name one with --exchange`;
    return `${symbol} on ${exchanges.join(', ')}: no history; ${symbol} has history on ${venues.join(', ')}`;
  }
  return undefined;
}

/** What a sync checks the names against: the usable coverage within the key's markets (from /me). */
export function knownFromCoverage(coverage: readonly Pair[], markets: readonly Market[], skipped: KnownPairs['skipped'] = []): KnownPairs {
  const inPlan = coverage.filter((row) => markets.includes(marketOf(row.exchange)));
  const outside = coverage.filter((row) => !markets.includes(marketOf(row.exchange)));
  return { pairs: inPlan, source: 'the coverage', skipped, ...(outside.length > 0 ? { outsidePlan: { pairs: outside, markets } } : {}) };
}
