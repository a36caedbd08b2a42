// The order book stand-in of one expiration during one session: its strike grid, sticky-by-strike
// IVs and open interest per venue. Open interest comes from the previous session (oi_date), so it
// is fixed for the whole session; only spot and time to expiry move GEX within a session.

import { DAY_MS } from './calendar.js';
import type { SymbolSpec } from './catalog.js';
import { YEAR_MS } from './greeks.js';
import { roundTo } from './numbers.js';
import { gaussianRandom, smoothGaussian, unitRandom } from './random.js';
import type { ExpirationInfo } from './types.js';

/** Share of the main venue's open interest each venue carries. */
const VENUE_WEIGHT: Record<string, number> = {
  deribit: 1,
  bybit: 0.35,
  okx: 0.3,
  binance: 0.2,
  derive: 0.06,
  tradfi: 1,
};
/** Days between the knots of the drifting positioning (where calls give way to puts, each strike's share). */
const POSITIONING_DAYS = 3;
/** Chains longer than this (from the session start) use the symbol's wide strike step. */
const SHORT_CHAIN_DAYS = 14;

export interface SessionFrame {
  spec: SymbolSpec;
  seed: number;
  sessionDate: string;
  oiDate: string;
  /** First capture instant of the session. */
  startMs: number;
  /** Spot at the first capture: the centre of every strike grid of the session. */
  referenceSpot: number;
  strikesPerChain: number;
}

export interface OpenInterest {
  call: Float64Array;
  put: Float64Array;
}

export interface ExpirationBook {
  info: ExpirationInfo;
  strikes: Float64Array; // ascending
  /** Implied volatility per strike (sticky strike for the session). */
  iv: Float64Array;
  /**
   * Open interest of one venue, undefined for a venue that does not list the symbol. Made when
   * first asked for: a single-venue file needs one venue's, not all five.
   */
  openInterest(venue: string): OpenInterest | undefined;
  /** IV of this expiration at any price, with the session's smile. */
  ivAt(price: number): number;
}

/** The at-the-money level of a symbol on a session for a maturity: a daily mood times a term curve. */
export function atmVolatility(frame: SessionFrame, years: number): number {
  const { spec } = frame;
  const mood = 0.85 + 0.3 * unitRandom(frame.seed, `atm|${spec.symbol}|${frame.sessionDate}`);
  const days = years * 365;
  const term = spec.market === 'crypto' ? 0.9 + 0.18 * Math.min(1, days / 120) : 0.93 + 0.12 * Math.min(1, days / 180);
  return spec.atmVol * mood * term;
}

/** The smile: higher away from the money, puts richer (skew), bounded. */
export function smileVolatility(frame: SessionFrame, atm: number, years: number, price: number): number {
  const standardized = Math.log(price / frame.referenceSpot) / (atm * Math.sqrt(Math.max(years, 1 / 365)));
  const x = Math.max(-4, Math.min(4, standardized));
  const factor = 1 + 0.07 * x * x - 0.12 * frame.spec.skew * x;
  return atm * Math.max(0.6, Math.min(2.5, factor));
}

export function strikeGrid(frame: SessionFrame, daysToCutoff: number): Float64Array {
  const { spec } = frame;
  const step = daysToCutoff <= SHORT_CHAIN_DAYS ? spec.shortStep : spec.longStep;
  const centre = Math.round(frame.referenceSpot / step);
  const first = Math.max(1, centre - Math.floor(frame.strikesPerChain / 2));
  const strikes = new Float64Array(frame.strikesPerChain);
  for (let i = 0; i < strikes.length; i++) strikes[i] = roundTo((first + i) * step, 4);
  return strikes;
}

function isRoundStrike(strike: number, roundStrike: number): boolean {
  const ratio = strike / roundStrike;
  return Math.abs(ratio - Math.round(ratio)) < 1e-9;
}

function venueOpenInterest(frame: SessionFrame, info: ExpirationInfo, venue: string, strikes: Float64Array, daysToCutoff: number, atm: number): OpenInterest {
  const { spec, seed } = frame;
  // Positioning drifts from session to session (knots a few days apart), as a market's does, so flip
  // and walls move by about a day's price move rather than jumping on fresh draws every session.
  const day = Date.parse(`${frame.oiDate}T00:00:00Z`) / DAY_MS;
  // Open interest gathers within about one expected move of the money, with thin (decaying) wings:
  // a flat floor would load the far calls of a long grid and push the whole profile positive.
  const width = 1.2 * Math.max(0.03, atm * Math.sqrt(Math.max(daysToCutoff, 1) / 365));
  // Where calls give way to puts drifts (about a day's move) and some stretches are put-heavy: the
  // flip then wanders around spot and both regimes occur, in runs of sessions.
  const positioning = frame.referenceSpot * Math.exp(0.8 * spec.dailyVol * smoothGaussian(seed, `tilt|${spec.symbol}`, day, POSITIONING_DAYS));
  const tiltWidth = Math.max(0.02, atm * Math.sqrt(Math.max(daysToCutoff, 1) / 365));
  // Gamma at a price peaks on strikes e^(σ²T/2) above it: the call/put balance of a chain sits there,
  // or long chains would read as call-heavy at every price.
  const gammaPeakShift = 0.5 * atm * atm * (daysToCutoff / 365);
  const putScale = Math.exp(0.07 * smoothGaussian(seed, `puts|${spec.symbol}`, day, POSITIONING_DAYS));
  const termWeight = 0.25 + 0.75 * Math.min(1, daysToCutoff / 45);
  const scale = spec.baseOi * (VENUE_WEIGHT[venue] ?? 0.1) * termWeight;
  const call = new Float64Array(strikes.length);
  const put = new Float64Array(strikes.length);
  for (let i = 0; i < strikes.length; i++) {
    const strike = strikes[i] as number;
    const key = `${spec.symbol}|${venue}|${info.iso}|${strike}`;
    const m = Math.log(strike / frame.referenceSpot) / width;
    const near = Math.exp(-0.5 * m * m) + 0.03 * Math.exp(-0.5 * (m / 3) ** 2);
    const round = isRoundStrike(strike, spec.roundStrike) ? 1.8 : 1;
    // Calls gather above the money, puts below; a persistent and a daily random part.
    const tilt = (Math.log(strike / positioning) - gammaPeakShift) / tiltWidth;
    const callTilt = 0.3 + 0.7 / (1 + Math.exp(-1.5 * tilt));
    const putTilt = (0.3 + 0.7 / (1 + Math.exp(1.5 * tilt))) * putScale;
    const noise = (side: string): number =>
      Math.exp(0.45 * (0.75 * gaussianRandom(seed, `oi|${side}|${key}`) + 0.66 * smoothGaussian(seed, `oi|${side}|${key}`, day, POSITIONING_DAYS)));
    // Small venues do not quote every far strike.
    const listed = (VENUE_WEIGHT[venue] ?? 0) >= 0.2 || Math.abs(m) < 1.5 || unitRandom(seed, `listed|${key}`) < 0.6;
    if (!listed) continue;
    call[i] = roundTo(scale * near * round * callTilt * noise('c'), spec.oiDecimals);
    put[i] = roundTo(scale * near * round * putTilt * noise('p'), spec.oiDecimals);
  }
  return { call, put };
}

export function buildExpirationBook(frame: SessionFrame, info: ExpirationInfo): ExpirationBook {
  const daysToCutoff = Math.max(0, (info.cutoffUtc.getTime() - frame.startMs) / DAY_MS);
  const years = (daysToCutoff * DAY_MS) / YEAR_MS;
  const atm = atmVolatility(frame, years);
  const strikes = strikeGrid(frame, daysToCutoff);
  const iv = strikes.map((strike) => smileVolatility(frame, atm, years, strike));
  const byVenue = new Map<string, OpenInterest>();
  const openInterest = (venue: string): OpenInterest | undefined => {
    if (!frame.spec.venues.includes(venue)) return undefined;
    let oi = byVenue.get(venue);
    if (oi === undefined) {
      oi = venueOpenInterest(frame, info, venue, strikes, daysToCutoff, atm);
      byVenue.set(venue, oi);
    }
    return oi;
  };
  return { info, strikes, iv, openInterest, ivAt: (price) => smileVolatility(frame, atm, years, price) };
}

/** Open interest summed over `venues` (rounded again: sums of 2-decimal values drift in binary). */
export function sumOpenInterest(book: ExpirationBook, venues: readonly string[], decimals: number): OpenInterest {
  const call = new Float64Array(book.strikes.length);
  const put = new Float64Array(book.strikes.length);
  for (const venue of venues) {
    const oi = book.openInterest(venue);
    if (oi === undefined) throw new RangeError(`venue ${venue} does not list this symbol`);
    for (let i = 0; i < call.length; i++) {
      call[i] = (call[i] as number) + (oi.call[i] as number);
      put[i] = (put[i] as number) + (oi.put[i] as number);
    }
  }
  for (let i = 0; i < call.length; i++) {
    call[i] = roundTo(call[i] as number, decimals);
    put[i] = roundTo(put[i] as number, decimals);
  }
  return { call, put };
}

/** The price (a strike) where option holders' total payout at expiry is smallest; lowest on ties. */
export function maxPain(strikes: Float64Array, oi: OpenInterest): number | null {
  let best: number | null = null;
  let bestPayout = Number.POSITIVE_INFINITY;
  for (let j = 0; j < strikes.length; j++) {
    const settle = strikes[j] as number;
    let payout = 0;
    for (let i = 0; i < strikes.length; i++) {
      const strike = strikes[i] as number;
      if (settle > strike) payout += (oi.call[i] as number) * (settle - strike);
      else payout += (oi.put[i] as number) * (strike - settle);
    }
    if (payout < bestPayout) {
      bestPayout = payout;
      best = settle;
    }
  }
  return best;
}
