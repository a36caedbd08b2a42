// Resolution of the {exchange}/{coin} path pair: aliasing, venue subsets, pair and plan checks.
//
// Choices where the spec is silent:
// - unsupported_coin is 400 (bad input, like invalid_exchange), with supported_crypto and
//   supported_tradfi. Checked after the exchange is known to be a venue name.
// - A single crypto venue that does not list the coin: current data 404 no_data; history has no
//   rows for it (empty arrays, no_snapshot, no_file). Subsets use the parts that list the coin
//   (404 no_data when none does).
// - binance has live data but no stored history: history endpoints answer 400
//   history_not_available (valid_exchanges), like a venue subset.
// - `combined` (and `all` on a crypto coin) sums the coin's history venues (every venue listing it
//   but binance), the same set on current data and in history, so one capture has one set of
//   numbers everywhere (/levels with all, its compare rows, /history/* combined, the daily files).
//   binance alone or in a subset still serves current data.

import type { Account } from './auth.js';
import { HttpError } from './http.js';
import { CRYPTO_HISTORY_VENUES, CRYPTO_LIVE_VENUES, type Market, type MarketModel, type SymbolInfo } from '../market/types.js';

export interface ResolvedPair {
  exchange: string; // as requested, lowercased
  coin: string; // as requested
  symbol: string;
  market: Market;
  /** Canonical venue: combined, tradfi, a single venue or the +-joined subset. */
  resolved: string;
  /** Single venues whose chains are summed; empty when the venue does not list the coin. */
  venues: string[];
  /** The history venue of the same data, or null for a subset or a venue without history. */
  historyVenue: string | null;
}

const LIVE_NAMES: readonly string[] = [...CRYPTO_LIVE_VENUES, 'all', 'combined', 'tradfi'];
const HISTORY_NAMES: readonly string[] = [...CRYPTO_HISTORY_VENUES, 'tradfi'];
const ALIASES = ['all', 'combined'];

/** Single venues aggregated by `combined` for this symbol. */
export function combinedVenues(info: SymbolInfo): string[] {
  return [...info.historyVenues];
}

/** History venues (exchange values of coverage and files) of a symbol. */
export function historyVenuesOf(info: SymbolInfo): string[] {
  if (info.servedHistory !== undefined) return [...info.servedHistory];
  if (info.market === 'tradfi') return ['tradfi'];
  return [...info.historyVenues, 'combined'];
}

/** Capture venues behind a history venue (empty when the venue does not list the symbol). */
export function captureVenuesOfHistory(info: SymbolInfo, historyVenue: string): string[] {
  if (historyVenue === 'combined' || historyVenue === 'tradfi') return combinedVenues(info);
  return info.historyVenues.includes(historyVenue) ? [historyVenue] : [];
}

function lookupCoin(model: MarketModel, coin: string): SymbolInfo {
  const info = model.symbolInfo(coin.toUpperCase());
  if (info) return info;
  const of = (m: Market): string[] =>
    model.symbols
      .filter((s) => s.market === m)
      .map((s) => s.symbol)
      .sort();
  throw new HttpError(400, 'unsupported_coin', `Coin '${coin}' is not supported.`, {
    supported_crypto: of('crypto'),
    supported_tradfi: of('tradfi'),
  });
}

function checkPlan(account: Account, info: SymbolInfo): void {
  if (account.markets.includes(info.market)) return;
  throw new HttpError(403, 'market_not_in_plan', `Your plan does not include the ${info.market} market.`, {
    market: info.market,
    markets_in_plan: [...account.markets],
    current_tier: account.tier,
  });
}

function liveValidExchanges(info: SymbolInfo): string[] {
  return info.market === 'tradfi' ? ['tradfi', 'all', 'combined'] : [...info.venues, 'all', 'combined'];
}

function historyValidExchanges(info: SymbolInfo): string[] {
  return info.market === 'tradfi' ? ['tradfi', 'all', 'combined'] : [...historyVenuesOf(info), 'all'];
}

function invalidExchange(exchange: string, valid: readonly string[]): HttpError {
  return new HttpError(400, 'invalid_exchange', `Unknown exchange '${exchange}'.`, { valid_exchanges: [...valid] });
}

function invalidPair(exchange: string, info: SymbolInfo, valid: string[]): HttpError {
  return new HttpError(400, 'invalid_pair', `Exchange '${exchange}' does not serve ${info.market} coin ${info.symbol}.`, {
    valid_exchanges: valid,
  });
}

function parseSubset(exchange: string): string[] | undefined {
  if (!exchange.includes('+')) return undefined;
  const parts = exchange.split('+');
  const distinct = new Set(parts);
  const allKnown = parts.every((p) => (CRYPTO_LIVE_VENUES as readonly string[]).includes(p));
  if (!allKnown || distinct.size !== parts.length || parts.length < 2) throw invalidExchange(exchange, LIVE_NAMES);
  return parts;
}

/** Current-data endpoints: every live venue, all/combined, +-subsets, tradfi. */
export function resolveLivePair(model: MarketModel, account: Account, rawExchange: string, coin: string): ResolvedPair {
  const exchange = rawExchange.toLowerCase();
  const subset = parseSubset(exchange);
  if (!subset && !LIVE_NAMES.includes(exchange)) throw invalidExchange(exchange, LIVE_NAMES);
  const info = lookupCoin(model, coin);
  const base = { exchange, coin, symbol: info.symbol, market: info.market };
  if (info.market === 'tradfi') {
    if (exchange !== 'tradfi' && !ALIASES.includes(exchange)) throw invalidPair(exchange, info, liveValidExchanges(info));
    checkPlan(account, info);
    return { ...base, resolved: 'tradfi', venues: combinedVenues(info), historyVenue: 'tradfi' };
  }
  if (exchange === 'tradfi') throw invalidPair(exchange, info, liveValidExchanges(info));
  checkPlan(account, info);
  if (ALIASES.includes(exchange)) {
    return { ...base, resolved: 'combined', venues: combinedVenues(info), historyVenue: 'combined' };
  }
  const wanted = subset ?? [exchange];
  const venues = wanted.filter((v) => info.venues.includes(v));
  const historyVenue = !subset && (CRYPTO_HISTORY_VENUES as readonly string[]).includes(exchange) ? exchange : null;
  return { ...base, resolved: exchange, venues, historyVenue };
}

/** A venue name the API knows (a subset's parts included), else invalid_exchange; true for a subset. */
function checkHistoryName(exchange: string): boolean {
  const isSubset = exchange.includes('+');
  if (isSubset) parseSubset(exchange); // an unknown part is still invalid_exchange
  const known = isSubset || HISTORY_NAMES.includes(exchange) || LIVE_NAMES.includes(exchange);
  if (!known) throw invalidExchange(exchange, [...HISTORY_NAMES, 'all']);
  return isSubset;
}

/** A crypto coin has history on the history venues and their aliases only. */
function checkCryptoHistory(exchange: string, isSubset: boolean, info: SymbolInfo): void {
  if (exchange === 'tradfi') throw invalidPair(exchange, info, historyValidExchanges(info));
  if (isSubset || !(HISTORY_NAMES.includes(exchange) || ALIASES.includes(exchange))) {
    throw new HttpError(400, 'history_not_available', `History is not available for exchange '${exchange}'.`, {
      valid_exchanges: historyValidExchanges(info),
    });
  }
}

/** History endpoints: bybit, deribit, okx, derive, combined, tradfi (all/combined alias). */
export function resolveHistoryPair(model: MarketModel, account: Account, rawExchange: string, coin: string): ResolvedPair {
  const exchange = rawExchange.toLowerCase();
  const isSubset = checkHistoryName(exchange);
  const info = lookupCoin(model, coin);
  const base = { exchange, coin, symbol: info.symbol, market: info.market };
  if (info.market === 'tradfi') {
    if (exchange !== 'tradfi' && !ALIASES.includes(exchange)) throw invalidPair(exchange, info, historyValidExchanges(info));
    checkPlan(account, info);
    return { ...base, resolved: 'tradfi', venues: combinedVenues(info), historyVenue: 'tradfi' };
  }
  checkCryptoHistory(exchange, isSubset, info);
  checkPlan(account, info);
  const resolved = ALIASES.includes(exchange) ? 'combined' : exchange;
  return { ...base, resolved, venues: captureVenuesOfHistory(info, resolved), historyVenue: resolved };
}
