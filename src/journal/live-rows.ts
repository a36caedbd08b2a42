// Maps current-data responses to rows of the live tables (sql/010_live_capture.sql). Pure.
import type { EndpointMeta, GexByStrikeData, LevelsData, TermEntry, TermOiData } from '../api/index.js';
import { sessionDateOf, type Market } from '../time/sessions.js';
import { LEVELS_FIELDS } from '../warehouse/layouts.js';
import type { LiveRow } from '../warehouse/live.js';
import { isoOfExpirationCode } from '../time/expiration-code.js';

type LiveMeta = EndpointMeta<'levels'>;

/** Where a capture belongs: the resolved venue and the snapshot instant. */
export interface CaptureKey {
  exchange: string;
  symbol: string;
  market: Market;
}

function keyColumns(key: CaptureKey, asOf: string): LiveRow {
  return { exchange: key.exchange, symbol: key.symbol, session_date: sessionDateOf(key.market, Date.parse(asOf)), as_of: asOf };
}

function liveMetaColumns(meta: LiveMeta): LiveRow {
  return { oi_as_of: meta.oi_as_of, data_source: meta.data_source, is_live: meta.is_live, market_open: meta.market_open };
}

export function liveLevelsRow(key: CaptureKey, data: LevelsData, meta: LiveMeta): LiveRow {
  const row: LiveRow = {
    ...keyColumns(key, meta.as_of),
    expiration: 'TOTAL',
    ...liveMetaColumns(meta),
    next_open: meta.next_open,
    captured_at: meta.timestamp,
  };
  const fields = data as Record<string, unknown>;
  for (const field of LEVELS_FIELDS) {
    const value = fields[field];
    row[field] = typeof value === 'number' || typeof value === 'string' ? value : null;
  }
  return row;
}

/** One row per expiration × venue, plus venue 'TOTAL' from the entry's total. */
export function termStructureRows(key: CaptureKey, data: TermOiData, meta: EndpointMeta<'termOi'>): LiveRow[] {
  const rows: LiveRow[] = [];
  const base = { ...keyColumns(key, meta.as_of), ...liveMetaColumns(meta), spot: data.metadata.current_price, captured_at: meta.timestamp };
  for (const entry of data.expirations) {
    const common = {
      ...base,
      expiration: entry.date,
      expiration_date: isoOfExpirationCode(entry.date),
      days_to_expiry: entry.days_to_expiry,
      entry_ts: entry.timestamp,
    };
    const sets: Array<[string, TermEntry['total']]> = [...Object.entries(entry.exchanges), ['TOTAL', entry.total]];
    for (const [venue, metrics] of sets) {
      rows.push({
        ...common,
        venue,
        oi_usd: metrics.oi_usd,
        call_oi_usd: metrics.call_oi_usd,
        put_oi_usd: metrics.put_oi_usd,
        contracts: metrics.contracts,
        total_gex: metrics.total_gex,
        abs_gex: metrics.abs_gex,
        upside_gex: metrics.upside_gex,
        downside_gex: metrics.downside_gex,
      });
    }
  }
  return rows;
}

/** One row per strike of one expiration's profile; as_of is the profile's own capture time. */
export function liveStrikeRows(key: CaptureKey, code: string, data: GexByStrikeData, capturedAt: string): LiveRow[] {
  const asOf = new Date(data.metadata.timestamp_ms).toISOString();
  const base = {
    ...keyColumns(key, asOf),
    expiration: code,
    expiration_date: isoOfExpirationCode(code),
    spot: data.metadata.current_price,
    captured_at: capturedAt,
  };
  const g = data.gex_data;
  return g.strikes.map((strike, i) => ({
    ...base,
    strike,
    call_gex: g.call_gex[i] ?? null,
    put_gex: g.put_gex[i] ?? null,
    net_gex: g.net_gex[i] ?? null,
    total_gex: g.total_gex[i] ?? null,
  }));
}
