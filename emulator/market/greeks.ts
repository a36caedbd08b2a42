// Black–Scholes gamma (no rates, no dividends) expressed as dealer GEX: USD per 1% move.

const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);
/** Gamma is clamped at half an hour to expiry so the last captures before a cutoff stay finite. */
export const MIN_YEARS = 0.5 / (24 * 365);
export const YEAR_MS = 365 * 24 * 3600_000;

export function bsGamma(spot: number, strike: number, iv: number, years: number): number {
  const volTime = iv * Math.sqrt(Math.max(years, MIN_YEARS));
  const d1 = (Math.log(spot / strike) + 0.5 * volTime * volTime) / volTime;
  return (INV_SQRT_2PI * Math.exp(-0.5 * d1 * d1)) / (spot * volTime);
}

/** GEX of one contract: gamma × multiplier × spot² × 1%. */
export function gexPerContract(spot: number, strike: number, iv: number, years: number, multiplier: number): number {
  return bsGamma(spot, strike, iv, years) * multiplier * spot * spot * 0.01;
}
