// The contract between the emulator's synthetic market (emulator/market/) and its HTTP layer
// (emulator/server/). The market is pure and deterministic: same seed and instant, same numbers.
// The HTTP layer decides what exists "now" (clock), validates parameters and shapes JSON; the market
// computes chains, levels and the bytes of the daily files.

export type Market = 'crypto' | 'tradfi';
export type FileKind = 'levels' | 'strikes_total' | 'strikes_by_expiry';
export const FILE_KINDS: readonly FileKind[] = ['levels', 'strikes_total', 'strikes_by_expiry'];

/** History venues of the spec; `combined` aggregates every crypto history venue of the symbol. */
export const CRYPTO_HISTORY_VENUES = ['bybit', 'deribit', 'okx', 'derive', 'combined'] as const;
/** Live (current-data) crypto venues; `all`/`combined` and `+` subsets are resolved by the server. */
export const CRYPTO_LIVE_VENUES = ['bybit', 'deribit', 'okx', 'derive', 'binance'] as const;

export interface SymbolInfo {
  symbol: string; // upper-case
  market: Market;
  /** Single live venues listing options on this symbol (crypto), or ['tradfi']. */
  venues: readonly string[];
  /** Single venues with history (crypto: venues minus binance; `combined` sums them), or ['tradfi']. */
  historyVenues: readonly string[];
  /** The history venues the coverage, manifests and files serve, when a test narrowed them (no `combined` unless named). */
  servedHistory?: readonly string[];
}

/** The levels fields of the spec, in the spec's order. */
export interface LevelsFields {
  spot: number | null;
  flip: number | null;
  flip_count: number;
  regime: 'positive' | 'negative' | null;
  net_gex: number | null;
  abs_gex: number | null;
  call_gex: number | null;
  put_gex: number | null;
  call_oi_total: number | null;
  put_oi_total: number | null;
  p1_strike: number | null;
  p1_gex: number | null;
  p2_strike: number | null;
  p2_gex: number | null;
  n1_strike: number | null;
  n1_gex: number | null;
  n2_strike: number | null;
  n2_gex: number | null;
  a1_strike: number | null;
  a1_gex: number | null;
  a2_strike: number | null;
  a2_gex: number | null;
  s_price: number | null;
  s_gex: number | null;
  v_price: number | null;
  v_gex: number | null;
  max_pain: number | null;
  atm_iv: number | null;
}
export const LEVELS_FIELD_NAMES: readonly (keyof LevelsFields)[] = [
  'spot',
  'flip',
  'flip_count',
  'regime',
  'net_gex',
  'abs_gex',
  'call_gex',
  'put_gex',
  'call_oi_total',
  'put_oi_total',
  'p1_strike',
  'p1_gex',
  'p2_strike',
  'p2_gex',
  'n1_strike',
  'n1_gex',
  'n2_strike',
  'n2_gex',
  'a1_strike',
  'a1_gex',
  'a2_strike',
  'a2_gex',
  's_price',
  's_gex',
  'v_price',
  'v_gex',
  'max_pain',
  'atm_iv',
];

export interface StrikeRow {
  strike: number;
  call_gex: number;
  put_gex: number;
  net_gex: number;
  call_oi: number;
  put_oi: number;
}

export interface ExpirationInfo {
  iso: string; // YYYY-MM-DD
  code: string; // DDMMMYY, e.g. 27MAR26
  cutoffUtc: Date; // 08:00 UTC crypto, the NYSE close TradFi (16:00 America/New_York, 13:00 on an early close)
}

export interface ExpirationChain extends ExpirationInfo {
  /** Calendar days to expiration at the capture, two decimals. */
  dte: number;
  strikes: StrikeRow[]; // sorted by strike
  levels: LevelsFields; // max_pain set
  /** Per-venue metrics for /gex/term-oi, keyed by single venue. */
  byVenue: Record<string, TermMetrics>;
}

export interface TermMetrics {
  oi_usd: number;
  call_oi_usd: number;
  put_oi_usd: number;
  contracts: number;
  total_gex: number;
  abs_gex: number;
  upside_gex: number;
  downside_gex: number;
}

/** The state of one symbol on a set of venues at one capture instant. */
export interface Capture {
  symbol: string;
  market: Market;
  venues: readonly string[]; // the single venues summed (combined = all of the symbol's venues)
  timestampUtc: Date; // exactly on a 15-minute slot
  sessionDate: string; // UTC date (crypto) or New York date (TradFi)
  oiDate: string; // the session whose open interest is used (the previous session)
  spot: number;
  total: { levels: LevelsFields; strikes: StrikeRow[] }; // max_pain null
  expirations: ExpirationChain[]; // sorted by date, only those not expired at the capture
}

/** Net GEX recomputed at hypothetical spot prices; its zero crossings are the gamma flips. */
export interface NetGexProfile {
  prices: number[]; // ascending, about ±15% of spot
  netGex: number[]; // USD per 1% at each price
  /** Interpolated prices of every sign change, ascending; levels.flip is the one nearest to spot. */
  crossings: number[];
}

/** Daily file layouts that disagree with the design on purpose (written by layouts.ts). */
export const LAYOUT_NAMES = ['design', 'lean', 'shuffled', 'wide'] as const;
export type LayoutName = (typeof LAYOUT_NAMES)[number];

/** A layout spelled out: what tests build at random. */
export interface CustomLayout {
  /**
   * Each kind's header, in file order: design names, or names the design lacks (extras). An extra
   * named `text_…` or `…_set` holds text (`t<row>`), any other a number (row / 4), row counted from 0
   * in the file.
   */
  columns: Record<FileKind, readonly string[]>;
  crlf?: boolean;
  bom?: boolean;
  /** Numbers written inside double quotes. */
  quoteNumbers?: boolean;
  /** Numbers written in exponent form (1.5e+3): exact, as toExponential() writes them. */
  exponent?: boolean;
  /** Design columns written with every field empty. */
  blank?: readonly string[];
  /** Header names written in upper case (`TIMESTAMP_UTC`): the spec names columns, never their case. */
  upperCaseHeader?: boolean;
}

export type FileLayoutOption = LayoutName | CustomLayout;

export interface MarketOptions {
  seed: number;
  /** How many non-expired expirations a crypto symbol lists (TradFi uses about the same). */
  expirations: number;
  /** Strikes per expiration chain. */
  strikes: number;
  /** Crypto and TradFi symbols to serve; defaults: BTC, ETH, SOL and SPY, QQQ. */
  symbols?: readonly string[];
  /**
   * More symbols, each served exactly like a catalog symbol under its own name (new name → catalog
   * name), so tests can meet names the catalog lacks: a 25-character symbol, a dotted ticker.
   */
  aliases?: Readonly<Record<string, string>>;
  /**
   * History venues served per symbol, instead of every venue with history and `combined`: a coverage
   * where a coin has history only on one single venue (`{ BTC: ['bybit'] }`), as a real service may list.
   */
  historyVenues?: Readonly<Record<string, readonly string[]>>;
  /** First session date with history (YYYY-MM-DD). */
  historyStart: string;
  /** The daily files' layout (default `design`): see layouts.ts. */
  layout?: FileLayoutOption;
  /** The schema_version the manifests, /history/levels and the files' own column say (default 1). */
  schemaVersion?: number;
}

export interface MarketModel {
  readonly options: MarketOptions;
  /** options.schemaVersion, or 1. */
  readonly schemaVersion: number;
  readonly symbols: readonly SymbolInfo[];
  symbolInfo(symbol: string): SymbolInfo | undefined;

  /** Session date of an instant: UTC date (crypto) or New York date (TradFi). */
  sessionDateOf(market: Market, instant: Date): string;
  /** Every capture slot of a session, oldest first, past or future (empty on TradFi weekends). */
  sessionCaptures(market: Market, sessionDate: string): Date[];
  /** The latest capture slot at or before `instant` (any session), or null before history starts. */
  latestCaptureAtOrBefore(market: Market, instant: Date): Date | null;
  /** True when the session's last capture slot is at or before `now`. */
  isSessionComplete(market: Market, sessionDate: string, now: Date): boolean;

  /**
   * The chain state at a capture slot for the given single venues (summed). `type` close is the
   * caller's business (it depends on the clock), so it is not here.
   */
  capture(symbol: string, venues: readonly string[], timestampUtc: Date): Capture;

  /** TOTAL levels of capture(...) alone, cached per (symbol, venues, slot): cheap for /history/levels. */
  totalLevels(symbol: string, venues: readonly string[], timestampUtc: Date): LevelsFields;

  /**
   * The net-GEX profile behind `flip`/`flip_count` at a capture: TOTAL (default) or one expiration
   * (ISO date); also gives every flip point for /gex/by-strike-enhanced markers.
   */
  profile(symbol: string, venues: readonly string[], timestampUtc: Date, expiration?: string): NetGexProfile;

  /** Expirations listed at `now` (expired ones removed, with the one-hour grace), sorted. */
  expirationsAt(symbol: string, now: Date): ExpirationInfo[];

  /**
   * The gzip bytes of a completed session's daily file, in the daily file layouts. `exchange` is a history
   * venue (bybit..combined, tradfi). `revision` > 0 yields a rebuilt file (same rows, new bytes/sha).
   * Cached. The caller (the server) decides whether the session is complete at its clock.
   */
  dailyFile(exchange: string, symbol: string, sessionDate: string, kind: FileKind, revision: number): DailyFile;
}

export interface DailyFile {
  bytes: Buffer;
  rows: number;
  sha256: string;
}
