// The levels fields of one snapshot (an expiration or TOTAL) from its rounded strike rows and its
// net-GEX profile. Pure: no randomness, no clock.

import { roundPrice, roundUsd } from './numbers.js';
import { primaryFlip, zeroCrossings, type GammaProfile } from './profile.js';
import type { LevelsFields, StrikeRow } from './types.js';

interface Ranked {
  strike: number;
  gex: number;
}

/** The two best rows by `score` (descending, lower strike first on ties) among those `eligible`. */
function topTwo(rows: readonly StrikeRow[], eligible: (row: StrikeRow) => boolean, score: (row: StrikeRow) => number): [Ranked | null, Ranked | null] {
  let first: StrikeRow | null = null;
  let second: StrikeRow | null = null;
  for (const row of rows) {
    if (!eligible(row)) continue;
    if (first === null || score(row) > score(first)) {
      second = first;
      first = row;
    } else if (second === null || score(row) > score(second)) {
      second = row;
    }
  }
  const ranked = (row: StrikeRow | null): Ranked | null => (row === null ? null : { strike: row.strike, gex: row.net_gex });
  return [ranked(first), ranked(second)];
}

function sum(rows: readonly StrikeRow[], pick: (row: StrikeRow) => number, round: (value: number) => number): number {
  let total = 0;
  for (const row of rows) total += pick(row);
  return round(total);
}

export interface LevelsInput {
  spot: number;
  strikes: readonly StrikeRow[];
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

function topTwoOrNull(rows: readonly StrikeRow[], eligible: (row: StrikeRow) => boolean, score: (row: StrikeRow) => number): [StrikeGex, StrikeGex] {
  const [first, second] = topTwo(rows, eligible, score);
  return [orNull(first), orNull(second)];
}

export function computeLevels(input: LevelsInput): LevelsFields {
  const { spot, strikes } = input;
  const crossings = zeroCrossings(input.profile);
  const rawFlip = primaryFlip(crossings, spot);
  const flip = rawFlip === null ? null : roundPrice(rawFlip);
  const callGex = sum(strikes, (row) => row.call_gex, roundUsd);
  const putGex = sum(strikes, (row) => row.put_gex, roundUsd);
  const [p1, p2] = topTwoOrNull(strikes, (row) => row.net_gex > 0, (row) => row.net_gex);
  const [n1, n2] = topTwoOrNull(strikes, (row) => row.net_gex < 0, (row) => -row.net_gex);
  const [a1, a2] = topTwoOrNull(strikes, (row) => row.net_gex !== 0, (row) => Math.abs(row.net_gex));
  return {
    spot,
    flip,
    flip_count: crossings.length,
    regime: flip === null ? null : spot >= flip ? 'positive' : 'negative',
    net_gex: roundUsd(callGex - putGex),
    abs_gex: roundUsd(callGex + putGex),
    call_gex: callGex,
    put_gex: putGex,
    call_oi_total: sum(strikes, (row) => row.call_oi, input.oiRound),
    put_oi_total: sum(strikes, (row) => row.put_oi, input.oiRound),
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
