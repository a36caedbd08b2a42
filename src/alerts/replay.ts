// `gexwh alerts`: the rules replayed over the warehouse's history, so a user sees on the past what
// they would have been sent: each pair's captures of the session dates asked (history and live
// snapshots apart), each against the capture before it, the first one too.
import type { DuckDBConnection } from '@duckdb/node-api';
import { checkSelectionNames } from '../core/known-names.js';
import { heldPairs, readSeries } from './read.js';
import { evaluateSeries, type AlertEvent, type AlertRule } from './rules.js';

export interface ReplayRequest {
  /** First and last session date, ISO; absent: from the first, to the last held. */
  from?: string;
  to?: string;
  exchanges?: string[];
  symbols?: string[];
  rules: AlertRule[];
}

/** The events a replay lists, over each pair's captures of the window, pair by pair in time order. */
export async function replayEvents(conn: DuckDBConnection, request: ReplayRequest): Promise<AlertEvent[]> {
  const exchanges = request.exchanges?.map((e) => e.toLowerCase());
  const symbols = request.symbols?.map((s) => s.toUpperCase());
  const held = [...(await heldPairs(conn, 'levels')), ...(await heldPairs(conn, 'live_levels'))];
  // A mistyped name is an error naming the closest held ones, never an empty answer.
  checkSelectionNames(
    { ...(exchanges ? { exchanges } : {}), ...(symbols ? { symbols } : {}) },
    { pairs: held, source: 'the warehouse (levels and live_levels)' },
  );
  const filter = { ...(exchanges ? { exchanges } : {}), ...(symbols ? { symbols } : {}) };
  const events: AlertEvent[] = [];
  for (const source of ['levels', 'live_levels'] as const) {
    for (const pair of await heldPairs(conn, source, filter)) {
      const series = await readSeries(conn, source, pair, { ...(request.from ? { from: request.from } : {}), ...(request.to ? { to: request.to } : {}) });
      events.push(...evaluateSeries(series.previous, series.captures, request.rules));
    }
  }
  return events;
}
