import { describe, expect, it } from 'vitest';
import { bsGamma } from '../../../emulator/market/greeks.js';
import { gammaProfile, primaryFlip, zeroCrossings, type ProfileLeg } from '../../../emulator/market/profile.js';

describe('gammaProfile', () => {
  it('equals Black–Scholes gamma × OI × multiplier × P² × 1% summed at every price', () => {
    const legs: ProfileLeg[] = [
      { strike: 95, iv: 0.3, years: 0.02, netOi: -1200 },
      { strike: 100, iv: 0.25, years: 0.1, netOi: 800 },
      { strike: 107.5, iv: 0.28, years: 0.5, netOi: 1500 },
      { strike: 101, iv: 0.2, years: 0.0001, netOi: 300 }, // nearly expired: a narrow spike
    ];
    const profile = gammaProfile(legs, 100, 100, { points: 41, rangePct: 0.15 });
    expect(profile.prices).toHaveLength(41);
    expect(profile.prices[0]).toBeCloseTo(85, 9);
    expect(profile.prices[40]).toBeCloseTo(115, 9);
    profile.prices.forEach((price, i) => {
      const direct = legs.reduce((sum, leg) => sum + bsGamma(price, leg.strike, leg.iv, leg.years) * leg.netOi * 100 * price * price * 0.01, 0);
      const tolerance = 1e-6 * Math.max(1, Math.abs(direct)) + 1e-6 * legs.reduce((s, l) => s + Math.abs(l.netOi), 0);
      expect(Math.abs((profile.netGex[i] as number) - direct)).toBeLessThan(tolerance);
    });
  });
});

describe('zeroCrossings and primaryFlip', () => {
  it('interpolates each sign change and skips exact zeros', () => {
    const profile = { prices: [90, 95, 100, 105, 110, 115], netGex: [-2, 2, 0, 0, -1, 3] };
    const crossings = zeroCrossings(profile);
    expect(crossings).toHaveLength(3);
    expect(crossings[0]).toBeCloseTo(92.5, 9);
    expect(crossings[1]).toBeCloseTo(95 + (15 * 2) / 3, 9); // 2 at 95 → -1 at 110
    expect(crossings[2]).toBeCloseTo(111.25, 9);
    expect(primaryFlip(crossings, 112)).toBeCloseTo(111.25, 9);
    expect(primaryFlip(crossings, 90)).toBeCloseTo(92.5, 9);
    expect(primaryFlip([], 100)).toBeNull();
    expect(zeroCrossings({ prices: [1, 2, 3], netGex: [0, 0, 0] })).toEqual([]);
  });
});
