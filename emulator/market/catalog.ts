// The symbols the synthetic market knows and the constants that shape each one's prices and chains.

import type { Market } from './types.js';

export interface SymbolSpec {
  symbol: string;
  market: Market;
  /** Single live venues listing the symbol (crypto), or ['tradfi']. */
  venues: readonly string[];
  /** Single venues with stored history; `combined` sums them (crypto), or ['tradfi']. */
  historyVenues: readonly string[];
  /** Centre of the spot walk. */
  basePrice: number;
  /** Scale of the slow spot moves (log units): the walk stays within about ±this of base. */
  driftScale: number;
  /** Daily volatility of the intraday path (log units). */
  dailyVol: number;
  /** Strike step of short-dated (≤ 14 days) and longer chains. */
  shortStep: number;
  longStep: number;
  /** Strikes on multiples of this collect extra open interest (round numbers). */
  roundStrike: number;
  /** Open interest near the money on the main venue, contracts per strike. */
  baseOi: number;
  /** At-the-money implied volatility level. */
  atmVol: number;
  /** Put skew strength of the IV smile. */
  skew: number;
  /** USD notional per contract per unit of price (crypto 1, US equity options 100). */
  multiplier: number;
  /** Decimal places of open interest (crypto trades fractions, TradFi whole contracts). */
  oiDecimals: number;
}

const CRYPTO_MAJOR_VENUES = ['bybit', 'deribit', 'okx', 'derive', 'binance'] as const;
const SOL_VENUES = ['bybit', 'okx', 'binance', 'derive'] as const;
/** binance lists options but the history service does not store it. */
const NO_HISTORY_VENUES = new Set(['binance']);

function crypto(spec: Omit<SymbolSpec, 'market' | 'historyVenues' | 'multiplier' | 'oiDecimals'>): SymbolSpec {
  return {
    ...spec,
    market: 'crypto',
    historyVenues: spec.venues.filter((venue) => !NO_HISTORY_VENUES.has(venue)),
    multiplier: 1,
    oiDecimals: 2,
  };
}

function tradfi(spec: Omit<SymbolSpec, 'market' | 'venues' | 'historyVenues' | 'multiplier' | 'oiDecimals'>): SymbolSpec {
  return { ...spec, market: 'tradfi', venues: ['tradfi'], historyVenues: ['tradfi'], multiplier: 100, oiDecimals: 0 };
}

export const SYMBOL_SPECS: readonly SymbolSpec[] = [
  crypto({
    symbol: 'BTC',
    venues: CRYPTO_MAJOR_VENUES,
    basePrice: 80_000,
    driftScale: 0.16,
    dailyVol: 0.025,
    shortStep: 500,
    longStep: 1000,
    roundStrike: 5000,
    baseOi: 300,
    atmVol: 0.52,
    skew: 0.15,
  }),
  crypto({
    symbol: 'ETH',
    venues: CRYPTO_MAJOR_VENUES,
    basePrice: 3_000,
    driftScale: 0.2,
    dailyVol: 0.035,
    shortStep: 25,
    longStep: 50,
    roundStrike: 250,
    baseOi: 3_000,
    atmVol: 0.65,
    skew: 0.15,
  }),
  crypto({
    symbol: 'SOL',
    venues: SOL_VENUES,
    basePrice: 150,
    driftScale: 0.25,
    dailyVol: 0.045,
    shortStep: 2.5,
    longStep: 5,
    roundStrike: 25,
    baseOi: 20_000,
    atmVol: 0.8,
    skew: 0.1,
  }),
  tradfi({
    symbol: 'SPY',
    basePrice: 550,
    driftScale: 0.07,
    dailyVol: 0.01,
    shortStep: 1,
    longStep: 5,
    roundStrike: 10,
    baseOi: 8_000,
    atmVol: 0.15,
    skew: 0.6,
  }),
  tradfi({
    symbol: 'QQQ',
    basePrice: 480,
    driftScale: 0.09,
    dailyVol: 0.013,
    shortStep: 2.5,
    longStep: 5,
    roundStrike: 10,
    baseOi: 5_000,
    atmVol: 0.2,
    skew: 0.5,
  }),
];

/** The specs of the requested symbols (case-insensitive), all by default; unknown names throw. */
export function selectSymbols(symbols: readonly string[] | undefined): SymbolSpec[] {
  if (symbols === undefined) return [...SYMBOL_SPECS];
  return symbols.map((name) => {
    const spec = SYMBOL_SPECS.find((candidate) => candidate.symbol === name.toUpperCase());
    if (spec === undefined) {
      throw new RangeError(`unknown symbol ${name}; known: ${SYMBOL_SPECS.map((s) => s.symbol).join(', ')}`);
    }
    return spec;
  });
}

const ALIAS_PATTERN = /^(?=.*[A-Z0-9])[A-Z0-9._-]{1,32}$/;

/** Specs for `aliases` (new name → catalog name): the catalog symbol's market under the new name. */
export function aliasSymbols(aliases: Readonly<Record<string, string>> | undefined, taken: readonly SymbolSpec[]): SymbolSpec[] {
  return Object.entries(aliases ?? {}).map(([name, base]) => {
    const symbol = name.toUpperCase();
    if (!ALIAS_PATTERN.test(symbol)) throw new RangeError(`alias ${name}: expected 1 to 32 characters A-Z 0-9 . _ -`);
    if (taken.some((spec) => spec.symbol === symbol)) throw new RangeError(`alias ${name}: the name is already served`);
    const [spec] = selectSymbols([base]);
    return { ...spec!, symbol };
  });
}

/**
 * The single venues a history exchange stands for: `combined` is every history venue of the symbol,
 * a single history venue is itself. Undefined when the symbol has no such history exchange.
 */
export function venuesOfHistoryExchange(spec: SymbolSpec, exchange: string): readonly string[] | undefined {
  if (spec.market === 'tradfi') return exchange === 'tradfi' ? ['tradfi'] : undefined;
  if (exchange === 'combined') return spec.historyVenues;
  return spec.historyVenues.includes(exchange) ? [exchange] : undefined;
}
