// Spot prices: slow value noise gives a daily anchor at each UTC midnight (computable for any day
// without replaying history), and a seeded Brownian bridge joins consecutive anchors at the
// 96 quarter-hour slots of the day. One day's path is computed once and cached.

import { DAY_MS, SLOT_MS } from './calendar.js';
import type { SymbolSpec } from './catalog.js';
import { LruCache } from './lru.js';
import { gaussianRandom, unitRandom } from './random.js';

const SLOTS_PER_DAY = DAY_MS / SLOT_MS;
/** Value-noise octaves: period in days and weight (sum 1). */
const OCTAVES: readonly { periodDays: number; weight: number }[] = [
  { periodDays: 120, weight: 0.5 },
  { periodDays: 30, weight: 0.27 },
  { periodDays: 7, weight: 0.15 },
  { periodDays: 2, weight: 0.08 },
];

function smoothstep(t: number): number {
  return t * t * (3 - 2 * t);
}

function valueNoise(seed: number, key: string, periodDays: number, day: number): number {
  const knot = Math.floor(day / periodDays);
  const frac = (day - knot * periodDays) / periodDays;
  const a = unitRandom(seed, `${key}|${periodDays}|${knot}`) * 2 - 1;
  const b = unitRandom(seed, `${key}|${periodDays}|${knot + 1}`) * 2 - 1;
  return a + (b - a) * smoothstep(frac);
}

export class SpotModel {
  private readonly days = new LruCache<string, Float64Array>(8192);

  constructor(private readonly seed: number) {}

  /** log(spot / base) at 00:00 UTC of a day index (days since 1970-01-01). */
  private anchor(spec: SymbolSpec, day: number): number {
    let sum = 0;
    for (const { periodDays, weight } of OCTAVES) {
      sum += weight * valueNoise(this.seed, `spot|${spec.symbol}`, periodDays, day);
    }
    return spec.driftScale * sum * 1.6; // 1.6: value noise rarely reaches ±1, widen to the intended range
  }

  private dayPath(spec: SymbolSpec, day: number): Float64Array {
    return this.days.getOrCreate(`${spec.symbol}|${day}`, () => {
      const start = this.anchor(spec, day);
      const end = this.anchor(spec, day + 1);
      const walk = new Float64Array(SLOTS_PER_DAY + 1);
      for (let k = 1; k <= SLOTS_PER_DAY; k++) {
        walk[k] = (walk[k - 1] ?? 0) + gaussianRandom(this.seed, `path|${spec.symbol}|${day}|${k}`);
      }
      const total = walk[SLOTS_PER_DAY] ?? 0;
      const slotVol = spec.dailyVol / Math.sqrt(SLOTS_PER_DAY);
      const path = new Float64Array(SLOTS_PER_DAY);
      for (let k = 0; k < SLOTS_PER_DAY; k++) {
        const bridge = (walk[k] ?? 0) - (k / SLOTS_PER_DAY) * total; // zero at both ends of the day
        const logMove = start + (end - start) * (k / SLOTS_PER_DAY) + slotVol * bridge;
        path[k] = spec.basePrice * Math.exp(logMove);
      }
      return path;
    });
  }

  /** Unrounded spot at the quarter-hour slot containing `instant`. */
  spotAt(spec: SymbolSpec, instant: number): number {
    const day = Math.floor(instant / DAY_MS);
    const slot = Math.floor((instant - day * DAY_MS) / SLOT_MS);
    return this.dayPath(spec, day)[slot] ?? spec.basePrice;
  }
}
