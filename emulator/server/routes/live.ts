// What "current data" means at the emulator clock, and the meta fields shared by /levels and
// /gex/term-oi.
//
// - Live data is the latest capture slot at or before now. TradFi outside regular hours therefore
//   shows the last close.
// - market_open: always true for crypto; TradFi between the first and the last capture slot of the
//   day's session (the last slot is the close). is_live equals market_open.
// - data_source: 'live' while the market is open, 'end_of_day' otherwise (TradFi after the close,
//   weekends). next_open: the first capture slot of the next TradFi session when closed, else null.

import type { Capture, ExpirationInfo, Market, MarketModel } from '../../market/types.js';
import { HttpError } from '../http.js';
import { addDays, CODE_RE, ISO_DATE_RE } from '../params.js';
import { isoZ } from '../timeline.js';
import type { ResolvedPair } from '../venues.js';

export const UNITS = 'USD per 1% move of the underlying';
export const DOCS_URL = 'https://gexwh.invalid/docs/fields';

/** The `meta` every history response carries about the pair it answered for. */
export function historyMeta(pair: ResolvedPair): Record<string, unknown> {
  return {
    exchange: pair.exchange,
    coin: pair.coin,
    symbol: pair.symbol,
    exchange_resolved: pair.resolved,
    market: pair.market,
    units: UNITS,
    docs_url: DOCS_URL,
  };
}

export interface LiveState {
  capture: Capture;
  marketOpen: boolean;
  nextOpen: Date | null;
}

function isOpen(model: MarketModel, market: Market, now: Date): boolean {
  if (market === 'crypto') return true;
  const slots = model.sessionCaptures(market, model.sessionDateOf(market, now));
  const first = slots[0];
  const last = slots[slots.length - 1];
  return first !== undefined && last !== undefined && first.getTime() <= now.getTime() && now.getTime() < last.getTime();
}

function nextOpen(model: MarketModel, market: Market, now: Date): Date | null {
  if (market === 'crypto') return null;
  let date = model.sessionDateOf(market, now);
  for (let i = 0; i < 14; i += 1, date = addDays(date, 1)) {
    const first = model.sessionCaptures(market, date)[0];
    if (first && first.getTime() > now.getTime()) return first;
  }
  return null;
}

export function liveState(model: MarketModel, pair: ResolvedPair, now: Date): LiveState {
  const slot = model.latestCaptureAtOrBefore(pair.market, now);
  if (!slot || pair.venues.length === 0) {
    throw new HttpError(404, 'no_data', `No data for ${pair.symbol} on ${pair.exchange}.`);
  }
  const marketOpen = isOpen(model, pair.market, now);
  return {
    capture: model.capture(pair.symbol, pair.venues, slot),
    marketOpen,
    nextOpen: marketOpen ? null : nextOpen(model, pair.market, now),
  };
}

export function liveMeta(pair: ResolvedPair, live: LiveState): Record<string, unknown> {
  return {
    exchange: pair.exchange,
    coin: pair.coin,
    exchange_resolved: pair.resolved,
    market: pair.market,
    symbol: pair.symbol,
    as_of: isoZ(live.capture.timestampUtc),
    oi_as_of: live.capture.oiDate,
    data_source: live.marketOpen ? 'live' : 'end_of_day',
    is_live: live.marketOpen,
    market_open: live.marketOpen,
    next_open: live.nextOpen ? isoZ(live.nextOpen) : null,
    units: UNITS,
    docs_url: DOCS_URL,
  };
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

/** The ISO date a DDMMMYY code names, or undefined when it names no calendar date. */
export function codeToIso(code: string): string | undefined {
  const match = CODE_RE.exec(code);
  if (!match) return undefined;
  const iso = `20${match[3]}-${String(MONTHS.indexOf(match[2]!) + 1).padStart(2, '0')}-${match[1]!.padStart(2, '0')}`;
  const date = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === iso ? iso : undefined;
}

/** Up to five listed ISO dates closest to the requested one (the earliest five for a non-date). */
export function nearestExpirations(listed: readonly ExpirationInfo[], requestedIso: string | undefined): string[] {
  const isos = listed.map((e) => e.iso);
  if (requestedIso === undefined) return isos.slice(0, 5);
  const target = Date.parse(`${requestedIso}T00:00:00Z`);
  const distance = (iso: string): number => Math.abs(Date.parse(`${iso}T00:00:00Z`) - target);
  return [...isos].sort((a, b) => distance(a) - distance(b) || a.localeCompare(b)).slice(0, 5);
}

export type ExpirationChoice = { kind: 'total' } | { kind: 'one'; info: ExpirationInfo };

/**
 * Resolves an expiration parameter against the expirations listed at now: TOTAL, a DDMMMYY code
 * or (when `acceptIso`) YYYY-MM-DD. Anything else, or a date not listed: 400 invalid_expiration,
 * unless `unlistedIsNoData` (a well-formed but absent expiration is then 404 no_data).
 */
/** The ISO date an expiration parameter names, read as a DDMMMYY code and as YYYY-MM-DD. */
function readExpiration(value: string): { fromCode?: string; fromIso?: string } {
  const upper = value.toUpperCase();
  return {
    ...(CODE_RE.test(upper) ? { fromCode: codeToIso(upper) } : {}),
    ...(ISO_DATE_RE.test(value) ? { fromIso: value } : {}),
  };
}

export function chooseExpiration(
  value: string,
  listed: readonly ExpirationInfo[],
  options: { acceptIso: boolean; unlistedIsNoData: boolean },
): ExpirationChoice {
  if (value.toUpperCase() === 'TOTAL') return { kind: 'total' };
  const { fromCode, fromIso } = readExpiration(value);
  const wellFormed = fromCode !== undefined || (options.acceptIso && fromIso !== undefined);
  const wantedIso = fromCode ?? (options.acceptIso ? fromIso : undefined);
  const found = wellFormed ? listed.find((e) => e.iso === wantedIso) : undefined;
  if (found) return { kind: 'one', info: found };
  if (wellFormed && options.unlistedIsNoData) {
    throw new HttpError(404, 'no_data', `No data for expiration '${value}'; list expirations first.`);
  }
  throw new HttpError(400, 'invalid_expiration', `Expiration '${value}' is not listed.`, {
    nearest_expirations: nearestExpirations(listed, fromCode ?? fromIso),
  });
}
