// The net-GEX profile: dealer net GEX recomputed at hypothetical spot prices around the current one
// (IVs sticky by strike, open interest fixed). Its zero crossings are the gamma flips.

import { MIN_YEARS } from './greeks.js';

export interface ProfileLeg {
  strike: number;
  iv: number;
  years: number;
  /** Call minus put open interest (dealer convention: calls add, puts subtract). */
  netOi: number;
}

export interface GammaProfile {
  /** Hypothetical spot prices, ascending. */
  prices: number[];
  /** Net GEX (USD per 1%) at each price. */
  netGex: number[];
}

export interface ProfileGrid {
  points: number;
  /** Half-width of the grid as a fraction of spot (points are evenly spaced in log price). */
  rangePct: number;
}

export const DEFAULT_PROFILE_GRID: ProfileGrid = { points: 61, rangePct: 0.15 };
const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);
/** A leg adds under 1e-8 of its peak past |d1| = 6: it is left out there. */
const D1_CUTOFF = 6;

/**
 * Prices from spot × (1 − range) to spot × (1 + range), evenly spaced in log price: d1 then moves by a
 * constant step along the grid, so each leg's Gaussian is updated by multiplications instead of an
 * exp() per point (the 31-day 15-minute history asks for ~3000 profiles of ~1800 legs).
 */
function makeLogGrid(spot: number, grid: ProfileGrid): LogGrid {
  const lnLow = Math.log(spot * (1 - grid.rangePct));
  const lnHigh = Math.log(spot * (1 + grid.rangePct));
  const step = (lnHigh - lnLow) / (grid.points - 1);
  const lnPrices = Array.from({ length: grid.points }, (_, i) => lnLow + i * step);
  return { lnPrices, prices: lnPrices.map(Math.exp), step };
}

interface LogGrid {
  lnPrices: number[];
  prices: number[];
  step: number;
}

/** The last grid made: every profile of a capture (TOTAL and each expiration) shares its spot. */
let lastGrid: { spot: number; grid: ProfileGrid; value: LogGrid } | undefined;

/** Read only: the accumulators copy what they hand out. */
function logGrid(spot: number, grid: ProfileGrid): LogGrid {
  if (lastGrid === undefined || lastGrid.spot !== spot || lastGrid.grid !== grid) lastGrid = { spot, grid, value: makeLogGrid(spot, grid) };
  return lastGrid.value;
}

/** Sums legs into a profile without allocating a leg object per strike (the hot path). */
export class ProfileAccumulator {
  private readonly lnFirst: number;
  private readonly step: number;
  private readonly prices: number[];
  private readonly density: Float64Array; // Σ netOi × φ(d1) / volTime per grid point

  constructor(
    spot: number,
    private readonly grid: ProfileGrid = DEFAULT_PROFILE_GRID,
  ) {
    const { lnPrices, prices, step } = logGrid(spot, grid);
    this.lnFirst = lnPrices[0] as number;
    this.step = step;
    this.prices = prices;
    this.density = new Float64Array(grid.points);
  }

  add(strike: number, iv: number, years: number, netOi: number): void {
    if (netOi === 0) return;
    this.addLeg(Math.log(strike), iv * Math.sqrt(Math.max(years, MIN_YEARS)), netOi);
  }

  /**
   * add() with ln(strike) and iv × √years given: callers that hold them per session skip a log and a
   * root per leg. With `also` (an accumulator on the same spot and grid), each term is added to its
   * sums too: a capture's TOTAL and expiration profiles share their legs, and adding each term to
   * both in leg order gives the same sums, to the bit, as two passes would.
   */
  addLeg(lnStrike: number, volTime: number, netOi: number, also?: ProfileAccumulator): void {
    if (netOi === 0) return;
    const { lnFirst, step, density } = this;
    const centre = lnStrike - 0.5 * volTime * volTime; // ln price where d1 = 0
    const from = Math.max(0, Math.ceil((centre - D1_CUTOFF * volTime - lnFirst) / step));
    const to = Math.min(this.grid.points - 1, Math.floor((centre + D1_CUTOFF * volTime - lnFirst) / step));
    if (from > to) return;
    const scale = (netOi * INV_SQRT_2PI) / volTime;
    const delta = step / volTime; // d1 increment per grid point
    const d1 = (lnFirst + from * step - centre) / volTime;
    // φ(d1 + δ) / φ(d1) = exp(−d1·δ − δ²/2); that ratio itself shrinks by exp(−δ²) per point.
    let gaussian = Math.exp(-0.5 * d1 * d1);
    let ratio = Math.exp(-d1 * delta - 0.5 * delta * delta);
    const ratioDecay = Math.exp(-delta * delta);
    const other = also?.density;
    if (other === undefined) {
      for (let i = from; i <= to; i++) {
        density[i] = (density[i] as number) + scale * gaussian;
        gaussian *= ratio;
        ratio *= ratioDecay;
      }
      return;
    }
    for (let i = from; i <= to; i++) {
      const term = scale * gaussian;
      density[i] = (density[i] as number) + term;
      other[i] = (other[i] as number) + term;
      gaussian *= ratio;
      ratio *= ratioDecay;
    }
  }

  /** gamma × P² × multiplier × 1% = φ(d1) × P / volTime × multiplier × 1%. */
  result(multiplier: number): GammaProfile {
    const netGex = this.prices.map((price, i) => (this.density[i] as number) * price * multiplier * 0.01);
    return { prices: [...this.prices], netGex };
  }
}

export function gammaProfile(legs: readonly ProfileLeg[], spot: number, multiplier: number, grid: ProfileGrid = DEFAULT_PROFILE_GRID): GammaProfile {
  const accumulator = new ProfileAccumulator(spot, grid);
  for (const leg of legs) accumulator.add(leg.strike, leg.iv, leg.years, leg.netOi);
  return accumulator.result(multiplier);
}

/**
 * Prices where the profile changes sign, by linear interpolation between the two grid points around
 * each change. Exact zeros are skipped: a crossing joins two non-zero values of opposite sign.
 */
export function zeroCrossings(profile: GammaProfile): number[] {
  const crossings: number[] = [];
  let lastIndex = -1;
  for (let i = 0; i < profile.netGex.length; i++) {
    const value = profile.netGex[i] as number;
    if (value === 0) continue;
    if (lastIndex >= 0) {
      const lastValue = profile.netGex[lastIndex] as number;
      if (Math.sign(lastValue) !== Math.sign(value)) {
        const x0 = profile.prices[lastIndex] as number;
        const x1 = profile.prices[i] as number;
        crossings.push(x0 + ((x1 - x0) * lastValue) / (lastValue - value));
      }
    }
    lastIndex = i;
  }
  return crossings;
}

/** The primary flip: the crossing nearest to spot (the lower one on a tie), null when none. */
export function primaryFlip(crossings: readonly number[], spot: number): number | null {
  let best: number | null = null;
  for (const crossing of crossings) {
    if (best === null || Math.abs(crossing - spot) < Math.abs(best - spot)) best = crossing;
  }
  return best;
}
