// Deterministic pseudo-randomness keyed by text: the same seed and key give the same number on every
// platform (integer math through Math.imul only), so no generator state has to be replayed.

/** cyrb53: a fast, well-mixed 53-bit string hash. */
function cyrb53(text: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

const TWO_POW_53 = 2 ** 53;

/** Uniform in the open interval (0, 1). */
export function unitRandom(seed: number, key: string): number {
  return (cyrb53(key, seed) + 0.5) / TWO_POW_53;
}

/** Standard normal (Box–Muller on two keyed uniforms). */
export function gaussianRandom(seed: number, key: string): number {
  const u1 = unitRandom(seed, `${key}#u`);
  const u2 = unitRandom(seed, `${key}#v`);
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/**
 * A standard normal that drifts smoothly with the day: gaussian knots every `periodDays`, joined by
 * smoothstep and rescaled to unit variance, so consecutive days differ a little where independent
 * draws would jump. `day` counts days since 1970-01-01.
 */
export function smoothGaussian(seed: number, key: string, day: number, periodDays: number): number {
  const knot = Math.floor(day / periodDays);
  const t = (day - knot * periodDays) / periodDays;
  const w = t * t * (3 - 2 * t);
  const a = gaussianRandom(seed, `${key}|${periodDays}|${knot}`);
  const b = gaussianRandom(seed, `${key}|${periodDays}|${knot + 1}`);
  return (a * (1 - w) + b * w) / Math.sqrt((1 - w) ** 2 + w ** 2);
}
