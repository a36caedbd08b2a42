// What `gexwh capture` will request, decided before any request is spent. Pure.
//
// Targets are (current-data venue, symbol). Without --exchange a crypto symbol is captured on `all`
// (the aggregate) and a TradFi ticker on `tradfi`; with --exchange each symbol gets the venues of
// its own market (crypto venues and subsets for crypto, tradfi for TradFi; all/combined for both).
//
// Market hours: /levels tells market_open but costs a request, and /expirations (free) does not
// tell it. A 15-minute cron would spend ~70 requests a day per TradFi ticker only to learn that the
// market is closed, so TradFi outside 09:15 to 15 minutes after the close (16:00, 13:00 on an early
// close) New York, on a weekend or an exchange holiday is skipped for free, by the server's clock (meta.timestamp of the free /coins). Inside that band /levels decides.
import { DateTime } from 'luxon';
import { UsageError } from '../core/errors.js';
import { closestNames } from '../core/known-names.js';
import { isNyseEarlyClose, isNyseTradingDay, NYSE_EARLY_CLOSE } from '../calendar/nyse.js';
import { NEW_YORK, type Market } from '../time/sessions.js';
import { splitList, type ListInput } from '../core/lists.js';

export const CRYPTO_LIVE_VENUES = ['bybit', 'deribit', 'okx', 'derive', 'binance'] as const;
const AGGREGATES = ['all', 'combined'] as const;
const ALLOWED_TEXT = `${CRYPTO_LIVE_VENUES.join(', ')}, all, combined, tradfi, or a + subset such as deribit+okx`;

export interface CaptureTarget {
  /** The venue as requested (lower case). */
  exchange: string;
  symbol: string;
  market: Market;
}

/** --exchange for capture: current-data venues. Absent → undefined (the per-market default). */
export function parseCaptureVenues(input: ListInput, option = '--exchange'): string[] | undefined {
  if (input === undefined) return undefined;
  const items = splitList(input).map((item) => item.toLowerCase());
  if (items.length === 0) throw new UsageError(`${option}: empty list; allowed: ${ALLOWED_TEXT}`);
  for (const item of items) {
    if (!isCaptureVenue(item)) throw new UsageError(`${option}: unknown current-data venue "${item}"; allowed: ${ALLOWED_TEXT}`);
  }
  return [...new Set(items)];
}

function isCaptureVenue(value: string): boolean {
  if (value === 'tradfi' || (AGGREGATES as readonly string[]).includes(value)) return true;
  const parts = value.split('+');
  const known = parts.every((p) => (CRYPTO_LIVE_VENUES as readonly string[]).includes(p));
  return known && new Set(parts).size === parts.length;
}

function venuesFor(market: Market, venues: readonly string[] | undefined): string[] {
  if (venues === undefined) return [market === 'crypto' ? 'all' : 'tradfi'];
  if (market === 'tradfi') {
    // all and combined are aliases of tradfi for a TradFi ticker: one target, not three.
    return venues.some((v) => v === 'tradfi' || (AGGREGATES as readonly string[]).includes(v)) ? ['tradfi'] : [];
  }
  return venues.filter((v) => v !== 'tradfi');
}

/** Symbols × venues by market; a symbol /coins does not list is a usage error. */
export function captureTargets(
  symbols: readonly string[],
  venues: readonly string[] | undefined,
  markets: { crypto: readonly string[]; tradfi: readonly string[] },
): { targets: CaptureTarget[]; warnings: string[] } {
  const targets: CaptureTarget[] = [];
  const warnings: string[] = [];
  for (const symbol of symbols) {
    const market: Market | undefined = markets.crypto.includes(symbol) ? 'crypto' : markets.tradfi.includes(symbol) ? 'tradfi' : undefined;
    if (market === undefined) {
      const close = closestNames(symbol, [...markets.crypto, ...markets.tradfi]);
      const hint = close.length > 0 ? `did you mean ${close.join(', ')}? ` : '';
      throw new UsageError(
        `--symbol: ${symbol} is not listed by the API (/coins); ${hint}crypto: ${markets.crypto.join(', ')}; tradfi: ${markets.tradfi.join(', ')}`,
      );
    }
    const chosen = venuesFor(market, venues);
    if (chosen.length === 0) warnings.push(`--exchange ${venues?.join(',')} selects no ${market} venue for ${symbol}: not captured`);
    for (const exchange of chosen) targets.push({ exchange, symbol, market });
  }
  return { targets, warnings };
}

/** True when New York regular hours certainly are not running (closed day, or outside 09:15 to close + 15 min). */
export function tradfiClearlyClosed(now: Date): boolean {
  const ny = DateTime.fromJSDate(now, { zone: NEW_YORK });
  const date = ny.toISODate()!;
  if (!isNyseTradingDay(date)) return true;
  const close = isNyseEarlyClose(date) ? NYSE_EARLY_CLOSE.hour * 60 + NYSE_EARLY_CLOSE.minute : 16 * 60;
  const minutes = ny.hour * 60 + ny.minute;
  return minutes < 9 * 60 + 15 || minutes >= close + 15;
}

const SLOT_MS = 15 * 60_000;

/** The start of the 15-minute capture slot `now` is in (slots start at :00, :15, :30 and :45 UTC). */
export function captureSlotStart(now: Date): Date {
  return new Date(Math.floor(now.getTime() / SLOT_MS) * SLOT_MS);
}

/** The venue the API resolves a target to (meta.exchange_resolved): all and combined are combined for a coin, tradfi for a ticker. */
export function resolvedVenueOf(target: CaptureTarget): string {
  if (target.market === 'tradfi') return 'tradfi';
  return (AGGREGATES as readonly string[]).includes(target.exchange) ? 'combined' : target.exchange;
}

/**
 * The snapshot a target would buy now when the warehouse or the live journal already holds one of
 * this slot (`held`: the newest as_of per `exchange|symbol`), else undefined: the API answers the
 * slot's snapshot again, so a second capture in a slot pays for rows it cannot add.
 */
export function heldSlotOf(target: CaptureTarget, held: ReadonlyMap<string, string>, serverNow: Date): string | undefined {
  const asOf = held.get(`${resolvedVenueOf(target)}|${target.symbol}`);
  if (asOf === undefined) return undefined;
  return Date.parse(asOf) >= captureSlotStart(serverNow).getTime() ? asOf : undefined;
}

/** Requests one target costs: /levels, /gex/term-oi, and one /gex/by-strike-enhanced per expiration. */
export function targetCost(byStrike: boolean, expirations: number): number {
  return 2 + (byStrike ? expirations : 0);
}
