// The compare block of /levels: for each period N (1d, 7d, 30d), the last capture of the latest
// session on or before (today - N days) in the market's session calendar, with deltas to live.

import { roundTo } from '../../market/numbers.js';
import type { LevelsFields, MarketModel } from '../../market/types.js';
import { HttpError } from '../http.js';
import { addDays, invalidParam } from '../params.js';
import { historyRow, historyStart, pastSessionCaptures, type HistoryRow } from '../timeline.js';
import { historyVenuesOf, type ResolvedPair } from '../venues.js';

export const COMPARE_PERIODS = ['1d', '7d', '30d'] as const;
type Period = (typeof COMPARE_PERIODS)[number];

const DELTA_FIELDS = ['spot', 'flip', 'net_gex', 'abs_gex', 'p1_strike', 'n1_strike', 's_price', 'v_price'] as const;

export function parseCompare(value: string, isTotal: boolean, pair: ResolvedPair, model: MarketModel): Period[] {
  const periods = value.split(',').map((p) => p.trim());
  for (const period of periods) {
    if (!(COMPARE_PERIODS as readonly string[]).includes(period)) {
      throw invalidParam(`compare periods are ${COMPARE_PERIODS.join(', ')}; got '${period}'.`, {
        valid_values: [...COMPARE_PERIODS],
      });
    }
  }
  if (!isTotal) {
    throw invalidParam('compare is only available with expiration TOTAL.', { valid_values: ['TOTAL'] });
  }
  if (pair.resolved.includes('+')) {
    const info = model.symbolInfo(pair.symbol)!;
    throw new HttpError(400, 'history_not_available', 'compare is not available for a venue subset.', {
      valid_exchanges: [...historyVenuesOf(info), 'all'],
    });
  }
  return [...new Set(periods as Period[])];
}

function delta(live: LevelsFields, past: LevelsFields): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const field of DELTA_FIELDS) {
    const a = live[field];
    const b = past[field];
    // Inputs carry two decimals; rounding drops the float noise of the subtraction.
    out[field] = a === null || b === null ? null : roundTo(a - b, 2);
  }
  return out;
}

/** The reference row of one period, or null when history does not reach that far back. */
function referenceRow(model: MarketModel, pair: ResolvedPair, period: Period, now: Date): HistoryRow | null {
  if (pair.historyVenue === null || pair.venues.length === 0) return null; // no history: every period null
  const today = model.sessionDateOf(pair.market, now);
  for (let date = addDays(today, -Number.parseInt(period, 10)); date >= historyStart(model); date = addDays(date, -1)) {
    const slots = pastSessionCaptures(model, pair.market, date, now);
    const last = slots[slots.length - 1];
    if (last) return historyRow(model, model.capture(pair.symbol, pair.venues, last), pair.historyVenue, now);
  }
  return null;
}

export function compareBlock(model: MarketModel, pair: ResolvedPair, periods: readonly Period[], live: LevelsFields, now: Date): Record<string, unknown> {
  const block: Record<string, unknown> = {};
  for (const period of periods) {
    const row = referenceRow(model, pair, period, now);
    block[period] = row === null ? null : { ...row, delta: delta(live, row) };
  }
  return block;
}
