// The history venues, the (exchange, symbol) pair (the unit of coverage, manifests and listings),
// and the keys that name a pair or one daily file of it in maps, sets and SQL lists.
import type { FileKind } from './file-kinds.js';

export const EXCHANGES = ['bybit', 'deribit', 'okx', 'derive', 'combined', 'tradfi'] as const;
export type Exchange = (typeof EXCHANGES)[number];

export function isExchange(value: string): value is Exchange {
  return (EXCHANGES as readonly string[]).includes(value);
}

/**
 * The venue a symbol takes when no venue is named: the one the API's `all` resolves to (combined, the
 * sum of the crypto venues, for a coin; tradfi for a TradFi ticker). Other venues cost credits of their own.
 */
export const DEFAULT_VENUES: readonly Exchange[] = ['combined', 'tradfi'];

export function isDefaultVenue(exchange: string): boolean {
  return (DEFAULT_VENUES as readonly string[]).includes(exchange);
}

/** An (exchange, symbol) pair. */
export interface Pair {
  exchange: string;
  symbol: string;
}

/** The one text key of a pair, `exchange|symbol`, for maps, sets and SQL lists. */
export function pairKey(pair: Pair): string {
  return `${pair.exchange}|${pair.symbol}`;
}

/** Identifies a daily file independent of its version. */
export interface FileKeyParts extends Pair {
  sessionDate: string;
  file: FileKind;
}

/** The one text key of a daily file, `exchange|symbol|session_date|file`. */
export function fileKey(parts: Pair & { sessionDate: string; file: string }): string {
  return `${parts.exchange}|${parts.symbol}|${parts.sessionDate}|${parts.file}`;
}

/** The key of one version of a daily file: its file key and sha256. */
export function fileVersionKey(parts: Pair & { sessionDate: string; file: string; sha256: string }): string {
  return `${fileKey(parts)}|${parts.sha256}`;
}
