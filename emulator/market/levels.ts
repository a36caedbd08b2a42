// The levels fields of one snapshot (an expiration or TOTAL) from its rounded strike columns and its
// net-GEX profile. Pure: no randomness, no clock.

import { roundPrice, roundUsd } from './numbers.js';
import { primaryFlip, zeroCrossings, type GammaProfile } from './profile.js';
import type { StrikeColumns } from './strike-columns.js';
import type { LevelsFields } from './types.js';

interface Ranked {
  strike: number;
  gex: number;
}

/** Which strikes a top-two ranking considers, and by what score (net GEX, its negation or size). */
type Ranking = 'positive' | 'negative' | 'absolute';

function scoreOf(ranking: Ranking, net: number): number {
  if (ranking === 'positive') return net > 0 ? net : Number.NaN;
  if (ranking === 'negative') return net < 0 ? -net : Number.NaN;
  return net !== 0 ? Math.abs(net) : Number.NaN;
}

/** The two best strikes by score (descending, lower strike first on ties); NaN scores are not eligible. */
function topTwo(columns: StrikeColumns, ranking: Ranking): [Ranked | null, Ranked | null] {
  let first = -1;
  let second = -1;
  let firstScore = 0;
  let secondScore = 0;
  for (let i = 0; i < columns.strike.length; i++) {
    const score = scoreOf(ranking, columns.netGex[i] as number);
    if (Number.isNaN(score)) continue;
    if (first < 0 || score > firstScore) {
      second = first;
      secondScore = firstScore;
      first = i;
      firstScore = score;
    } else if (second < 0 || score > secondScore) {
      second = i;
      secondScore = score;
    }
  }
  const ranked = (i: number): Ranked | null => (i < 0 ? null : { strike: columns.strike[i] as number, gex: columns.netGex[i] as number });
  return [ranked(first), ranked(second)];
}

function sum(values: Float64Array, round: (value: number) => number): number {
  let total = 0;
  for (let i = 0; i < values.length; i++) total += values[i] as number;
  return round(total);
}

export interface LevelsInput {
  spot: number;
  strikes: StrikeColumns;
  profile: GammaProfile;
  /** Per expiration only; null for TOTAL. */
  maxPain: number | null;
  atmIv: number | null;
  oiRound: (value: number) => number;
}

interface StrikeGex {
  strike: number | null;
  gex: number | null;
}

function orNull(ranked: Ranked | null): StrikeGex {
  return { strike: ranked?.strike ?? null, gex: ranked?.gex ?? null };
}

function topTwoOrNull(columns: StrikeColumns, ranking: Ranking): [StrikeGex, StrikeGex] {
  const [first, second] = topTwo(columns, ranking);
  return [orNull(first), orNull(second)];
}

export function computeLevels(input: LevelsInput): LevelsFields {
  const { spot, strikes } = input;
  const crossings = zeroCrossings(input.profile);
  const rawFlip = primaryFlip(crossings, spot);
  const flip = rawFlip === null ? null : roundPrice(rawFlip);
  const callGex = sum(strikes.callGex, roundUsd);
  const putGex = sum(strikes.putGex, roundUsd);
  const [p1, p2] = topTwoOrNull(strikes, 'positive');
  const [n1, n2] = topTwoOrNull(strikes, 'negative');
  const [a1, a2] = topTwoOrNull(strikes, 'absolute');
  return {
    spot,
    flip,
    flip_count: crossings.length,
    regime: flip === null ? null : spot >= flip ? 'positive' : 'negative',
    net_gex: roundUsd(callGex - putGex),
    abs_gex: roundUsd(callGex + putGex),
    call_gex: callGex,
    put_gex: putGex,
    call_oi_total: sum(strikes.callOi, input.oiRound),
    put_oi_total: sum(strikes.putOi, input.oiRound),
    p1_strike: p1.strike,
    p1_gex: p1.gex,
    p2_strike: p2.strike,
    p2_gex: p2.gex,
    n1_strike: n1.strike,
    n1_gex: n1.gex,
    n2_strike: n2.strike,
    n2_gex: n2.gex,
    a1_strike: a1.strike,
    a1_gex: a1.gex,
    a2_strike: a2.strike,
    a2_gex: a2.gex,
    // Max stability = the strongest positive net GEX strike, max volatility = the most negative.
    s_price: p1.strike,
    s_gex: p1.gex,
    v_price: n1.strike,
    v_gex: n1.gex,
    max_pain: input.maxPain,
    atm_iv: input.atmIv,
  };
}
