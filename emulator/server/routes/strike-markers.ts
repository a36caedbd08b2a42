// The markers of /gex/by-strike-enhanced, computed from one chain (pure).
//
// Choices where the spec is silent: ranked lists hold up to five strikes ranked by per-strike net
// GEX (absolute_max by |net|); flip_points are the zero crossings of the market's net-GEX profile
// (source 'gamma_profile'), the primary flip (levels.flip, nearest to spot) first, then the others
// by distance to spot, labelled F1..; each value is 0 (net GEX at a crossing); max_pain is null for TOTAL; spot.strike is the grid strike nearest to spot and
// spot.value the spot price; asymmetry sums call+put GEX above and below spot, ratio = up/down,
// bias bullish above 1.1, bearish below 0.9, and the distances are in percent from spot to the
// largest absolute-GEX strike on each side.

import { roundTo } from '../../market/numbers.js';
import type { LevelsFields, StrikeRow } from '../../market/types.js';

const RANKED = 5;

interface Ranked {
  label: string;
  strike: number;
  value: number;
}

function rank(rows: readonly StrikeRow[], prefix: string, keep: (r: StrikeRow) => boolean, score: (r: StrikeRow) => number): Ranked[] {
  return rows
    .filter(keep)
    .sort((a, b) => score(b) - score(a) || a.strike - b.strike)
    .slice(0, RANKED)
    .map((r, i) => ({ label: `${prefix}${i + 1}`, strike: r.strike, value: r.net_gex }));
}

function nearestStrike(rows: readonly StrikeRow[], price: number): number | null {
  let best: StrikeRow | undefined;
  for (const row of rows) if (!best || Math.abs(row.strike - price) < Math.abs(best.strike - price)) best = row;
  return best?.strike ?? null;
}

function asymmetry(rows: readonly StrikeRow[], spot: number) {
  const above = rows.filter((r) => r.strike > spot);
  const below = rows.filter((r) => r.strike < spot);
  const sum = (list: StrikeRow[]): number => list.reduce((acc, r) => acc + r.call_gex + r.put_gex, 0);
  const upside = sum(above);
  const downside = sum(below);
  const ratio = downside > 0 ? upside / downside : null;
  const bias = ratio === null ? 'neutral' : ratio > 1.1 ? 'bullish' : ratio < 0.9 ? 'bearish' : 'neutral';
  const wall = (list: StrikeRow[]): number | null =>
    list.length === 0 ? null : list.reduce((a, b) => (Math.abs(b.net_gex) > Math.abs(a.net_gex) ? b : a)).strike;
  const distance = (strike: number | null): number | null =>
    strike === null || spot === 0 ? null : Math.round((Math.abs(strike - spot) / spot) * 10_000) / 100;
  return {
    upside_gex: upside,
    downside_gex: downside,
    asymmetry_ratio: ratio,
    bias,
    upside_distance: distance(wall(above)),
    downside_distance: distance(wall(below)),
  };
}

function flipPoints(crossings: readonly number[], spot: number) {
  return [...crossings]
    .sort((a, b) => Math.abs(a - spot) - Math.abs(b - spot) || a - b)
    .map((price, i) => ({ label: `F${i + 1}`, strike: roundTo(price, 2), value: 0, source: 'gamma_profile' }));
}

export function strikeMarkers(rows: readonly StrikeRow[], levels: LevelsFields, spot: number, isTotal: boolean, crossings: readonly number[]) {
  const netAt = (strike: number | null): number | null => rows.find((r) => r.strike === strike)?.net_gex ?? null;
  return {
    flip_points: flipPoints(crossings, spot),
    max_pain: isTotal || levels.max_pain === null ? null : { label: 'Max Pain', strike: levels.max_pain, value: netAt(levels.max_pain) },
    absolute_max: rank(
      rows,
      'A',
      () => true,
      (r) => Math.abs(r.net_gex),
    ),
    positive_max: rank(
      rows,
      'P',
      (r) => r.net_gex > 0,
      (r) => r.net_gex,
    ),
    negative_max: rank(
      rows,
      'N',
      (r) => r.net_gex < 0,
      (r) => -r.net_gex,
    ),
    spot: { strike: nearestStrike(rows, spot), value: spot },
    stability_point: { label: 'Max Stability', price: levels.s_price, gex: levels.s_gex },
    volatility_point: { label: 'Max Volatility', price: levels.v_price, gex: levels.v_gex },
    totals: {
      call_gex: levels.call_gex,
      put_gex: levels.put_gex,
      net_gex: levels.net_gex,
      absolute_gex: levels.abs_gex,
      absolute_gex_power: rows.reduce((acc, r) => acc + Math.abs(r.net_gex), 0),
    },
    asymmetry: asymmetry(rows, spot),
  };
}
