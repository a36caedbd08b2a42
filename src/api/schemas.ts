// zod 4 schemas of every payload of the GEX Data API (gex-api-spec.md). Objects are loose: extra
// fields the server adds later pass through; a missing or mistyped field of the spec fails. Values
// that can reach a file path or SQL later (exchange, symbol, session_date, file, sha256) are checked
// tightly here. Numbers the spec types as "number" are accepted as null too where a real market can
// lack them (an empty side of the book), since a null there is data, not a broken payload. Date-times
// are read in every ISO 8601 UTC spelling and passed on in one (instant.ts).
import { z } from 'zod';
import { FILE_KINDS } from '../core/file-kinds.js';
import { DateTimeSchema, UtcInstantSchema } from './instant.js';
import { SYMBOL_PATTERN, SYMBOL_RULE, VENUE_PATTERN } from '../core/names.js';
import type { CoverageRow, ManifestRow } from '../core/rows.js';

const dateTime = DateTimeSchema;
const utcInstant = UtcInstantSchema;
const isoDate = z.iso.date();
const num = z.number();
const numOrNull = z.number().nullable();
const count = z.int().nonnegative();
const strings = z.array(z.string());

export const FileKindSchema = z.enum(FILE_KINDS);

/** History venue names are path segments in the archive: lower-case letters and digits only. */
export const HistoryExchangeSchema = z.string().regex(VENUE_PATTERN, 'expected a venue name [a-z0-9]');
/** Symbols are path segments too: the one symbol pattern of src/core/names.ts. */
export const SymbolSchema = z.string().regex(SYMBOL_PATTERN, `expected a symbol of ${SYMBOL_RULE}`);
export const Sha256Schema = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'expected 64 hex digits')
  .transform((s) => s.toLowerCase());
export const MarketSchema = z.enum(['crypto', 'tradfi']);
type KnownMarket = z.infer<typeof MarketSchema>;

/**
 * /me's markets split into those this version knows and the others, each made printable. The spec
 * lists two, but a market the API adds later must not fail the call: it is set aside, not guessed at.
 */
export function splitMarkets(markets: readonly string[]): { known: KnownMarket[]; unknown: string[] } {
  const known: KnownMarket[] = [];
  const unknown: string[] = [];
  for (const market of markets) {
    const parsed = MarketSchema.safeParse(market);
    if (parsed.success) known.push(parsed.data);
    else unknown.push(printable(market));
  }
  return { known, unknown };
}

// ---- meta ----------------------------------------------------------------------------------------

export const RateLimitBlockSchema = z.looseObject({ limit: count, remaining: z.int().nullable(), reset: dateTime });

/** Every meta: timestamp (the spec omits it from some endpoint lists, so optional) and rate_limit. */
const MetaBase = z.looseObject({ timestamp: dateTime.optional(), rate_limit: RateLimitBlockSchema.optional() });

const SymbolMeta = MetaBase.extend({
  exchange: z.string(),
  coin: z.string(),
  symbol: z.string(),
  exchange_resolved: z.string(),
  market: MarketSchema,
  units: z.string(),
  docs_url: z.string(),
});

const LiveMeta = SymbolMeta.extend({
  timestamp: dateTime,
  as_of: dateTime,
  oi_as_of: isoDate.nullable(),
  data_source: z.string(),
  is_live: z.boolean(),
  market_open: z.boolean(),
  next_open: dateTime.nullable(),
  expiration: z.string(),
  expiration_iso: isoDate.nullable(),
});

// ---- records -------------------------------------------------------------------------------------

export const LevelsFieldsSchema = z.looseObject({
  spot: numOrNull,
  flip: numOrNull,
  flip_count: count,
  regime: z.enum(['positive', 'negative']).nullable(),
  net_gex: numOrNull,
  abs_gex: numOrNull,
  call_gex: numOrNull,
  put_gex: numOrNull,
  call_oi_total: numOrNull,
  put_oi_total: numOrNull,
  p1_strike: numOrNull,
  p1_gex: numOrNull,
  p2_strike: numOrNull,
  p2_gex: numOrNull,
  n1_strike: numOrNull,
  n1_gex: numOrNull,
  n2_strike: numOrNull,
  n2_gex: numOrNull,
  a1_strike: numOrNull,
  a1_gex: numOrNull,
  a2_strike: numOrNull,
  a2_gex: numOrNull,
  s_price: numOrNull,
  s_gex: numOrNull,
  v_price: numOrNull,
  v_gex: numOrNull,
  max_pain: numOrNull,
  atm_iv: numOrNull,
});

export const HistoryRowSchema = LevelsFieldsSchema.extend({
  schema_version: z.int(),
  timestamp_utc: utcInstant,
  session_date: isoDate,
  type: z.enum(['intraday', 'close']),
  exchange: z.string(),
  symbol: z.string(),
  oi_date: isoDate.nullable(),
});

export const HistoryStrikeRowSchema = z.looseObject({
  strike: num,
  call_gex: numOrNull,
  put_gex: numOrNull,
  net_gex: numOrNull,
  call_oi: numOrNull,
  put_oi: numOrNull,
});

export const HistorySnapshotSchema = HistoryRowSchema.extend({
  expiration: z.string(),
  dte: numOrNull,
  strikes: z.array(HistoryStrikeRowSchema),
});

export const CompareEntrySchema = HistoryRowSchema.extend({
  delta: z.looseObject({
    spot: numOrNull,
    flip: numOrNull,
    net_gex: numOrNull,
    abs_gex: numOrNull,
    p1_strike: numOrNull,
    n1_strike: numOrNull,
    s_price: numOrNull,
    v_price: numOrNull,
  }),
});

export const LevelsDataSchema = LevelsFieldsSchema.extend({
  expiration: z.string(),
  expiration_iso: isoDate.nullable(),
  compare: z.record(z.string(), CompareEntrySchema.nullable()).optional(),
});

export const ExpirationDetailSchema = z.looseObject({
  code: z.string(),
  iso: isoDate,
  dte: num,
  cutoff_utc: utcInstant,
  is_0dte: z.boolean(),
});

const MetricSetSchema = z.looseObject({
  oi_usd: num,
  call_oi_usd: num,
  put_oi_usd: num,
  contracts: num,
  total_gex: num,
  abs_gex: num,
  upside_gex: num,
  downside_gex: num,
});

export const TermEntrySchema = z.looseObject({
  date: z.string(),
  days_to_expiry: num,
  timestamp: dateTime,
  exchanges: z.record(z.string(), MetricSetSchema),
  total: MetricSetSchema,
});

const RankedMarker = z.looseObject({ label: z.string(), strike: num, value: numOrNull });
const PointMarker = z.looseObject({ label: z.string(), price: numOrNull, gex: numOrNull });

export const GexByStrikeDataSchema = z.looseObject({
  gex_data: z.looseObject({
    strikes: z.array(num),
    call_gex: z.array(numOrNull),
    put_gex: z.array(numOrNull),
    net_gex: z.array(numOrNull),
    total_gex: z.array(numOrNull),
  }),
  markers: z.looseObject({
    flip_points: z.array(z.looseObject({ label: z.string(), strike: num, value: numOrNull, source: z.unknown() })),
    max_pain: RankedMarker.nullable(),
    absolute_max: z.array(RankedMarker),
    positive_max: z.array(RankedMarker),
    negative_max: z.array(RankedMarker),
    spot: z.looseObject({ strike: numOrNull, value: numOrNull }),
    stability_point: PointMarker.nullable(),
    volatility_point: PointMarker.nullable(),
    totals: z.looseObject({
      call_gex: numOrNull,
      put_gex: numOrNull,
      net_gex: numOrNull,
      absolute_gex: numOrNull,
      absolute_gex_power: numOrNull,
    }),
    asymmetry: z.looseObject({
      upside_gex: numOrNull,
      downside_gex: numOrNull,
      asymmetry_ratio: numOrNull,
      bias: z.enum(['bullish', 'bearish', 'neutral']),
      upside_distance: numOrNull,
      downside_distance: numOrNull,
    }),
  }),
  metadata: z.looseObject({
    basecoin: z.string(),
    exchange: z.string(),
    expiration_date: z.string(),
    current_price: numOrNull,
    data_points: count,
    strike_range: z.looseObject({ min: numOrNull, max: numOrNull }),
    enhanced: z.boolean(),
    gamma_profile_source: z.boolean(),
    timestamp: z.string(),
    timestamp_ms: z.int(),
  }),
});

export const TermOiDataSchema = z.looseObject({
  expirations: z.array(TermEntrySchema),
  metadata: z.looseObject({
    basecoin: z.string(),
    exchanges_used: strings,
    current_price: numOrNull,
    expiration_count: count,
    timestamp: z.string(),
    timestamp_ms: z.int(),
  }),
});

const MeQuotaSchema = z.looseObject({
  limit: count,
  used: z.int().nullable(),
  remaining: z.int().nullable(),
  reset: dateTime,
});

export const MeRecordSchema = z.looseObject({
  tier: z.string(),
  // Any name: a market added after this version is dropped where markets are used (splitMarkets).
  markets: strings,
  api_access: z.boolean(),
  quota: z.looseObject({ requests: MeQuotaSchema, history_files: MeQuotaSchema }),
});

export const CoverageRowSchema = z.looseObject({
  exchange: HistoryExchangeSchema,
  symbol: SymbolSchema,
  first_ts: utcInstant,
  last_ts: utcInstant,
  sessions: count,
  files_first_date: isoDate.nullable(),
  files_last_date: isoDate.nullable(),
});

export const ManifestRowSchema = z.looseObject({
  session_date: isoDate,
  file: FileKindSchema,
  rows: count,
  bytes: count,
  sha256: Sha256Schema,
  schema_version: z.int(),
});

const MarketsLists = z.looseObject({ crypto: strings, tradfi: strings });

// ---- envelopes per endpoint ------------------------------------------------------------------------

function envelope<D extends z.ZodType, M extends z.ZodType>(data: D, meta: M) {
  return z.looseObject({ data, meta });
}

export const ENDPOINT_SCHEMAS = {
  exchanges: envelope(z.looseObject({ available: strings, virtual: strings, markets: MarketsLists }), MetaBase.extend({ timestamp: dateTime })),
  coins: envelope(z.looseObject({ coins: strings, markets: MarketsLists }), MetaBase.extend({ timestamp: dateTime })),
  expirations: envelope(
    z.looseObject({ expirations: strings, expirations_detail: z.array(ExpirationDetailSchema) }),
    MetaBase.extend({ timestamp: dateTime, exchange: z.string(), coin: z.string(), exchange_resolved: z.string(), market: MarketSchema }),
  ),
  me: envelope(MeRecordSchema, MetaBase.extend({ timestamp: dateTime })),
  // Rows are checked one by one (parseCoverageRows): one odd row must not hide the others.
  coverage: envelope(z.array(z.unknown()), MetaBase.extend({ timestamp: dateTime })),
  levels: envelope(LevelsDataSchema, LiveMeta),
  gexByStrike: envelope(GexByStrikeDataSchema, MetaBase.extend({ timestamp: dateTime, exchange: z.string(), coin: z.string(), expiration: z.string() })),
  termOi: envelope(TermOiDataSchema, LiveMeta),
  historyTimestamps: envelope(z.array(utcInstant), SymbolMeta.extend({ session_date: isoDate })),
  historyLevels: envelope(
    z.array(HistoryRowSchema),
    SymbolMeta.extend({
      granularity: z.enum(['15m', '1h', 'close']),
      start: utcInstant,
      end: utcInstant,
      next_cursor: z.string().nullable(),
    }),
  ),
  historySnapshot: envelope(HistorySnapshotSchema, SymbolMeta.extend({ snapshot_at: dateTime })),
  historyFiles: envelope(z.array(ManifestRowSchema), SymbolMeta.extend({ timestamp: dateTime })),
} as const;

export type EndpointName = keyof typeof ENDPOINT_SCHEMAS;
export type EndpointData<E extends EndpointName> = z.infer<(typeof ENDPOINT_SCHEMAS)[E]>['data'];
export type EndpointMeta<E extends EndpointName> = z.infer<(typeof ENDPOINT_SCHEMAS)[E]>['meta'];

export type LevelsFields = z.infer<typeof LevelsFieldsSchema>;
export type LevelsData = z.infer<typeof LevelsDataSchema>;
export type HistoryRow = z.infer<typeof HistoryRowSchema>;
export type HistoryStrikeRow = z.infer<typeof HistoryStrikeRowSchema>;
export type HistorySnapshot = z.infer<typeof HistorySnapshotSchema>;
export type CompareEntry = z.infer<typeof CompareEntrySchema>;
export type ExpirationDetail = z.infer<typeof ExpirationDetailSchema>;
export type TermEntry = z.infer<typeof TermEntrySchema>;
export type GexByStrikeData = z.infer<typeof GexByStrikeDataSchema>;
export type TermOiData = z.infer<typeof TermOiDataSchema>;
export type MeRecord = z.infer<typeof MeRecordSchema>;
export type RateLimitBlock = z.infer<typeof RateLimitBlockSchema>;

/** The compiler's proof that the row schemas parse into the rows every module passes around. */
type ParsesInto<Parsed extends Row, Row> = Parsed;
export type ParsedCoverageRow = ParsesInto<z.infer<typeof CoverageRowSchema>, CoverageRow>;
export type ParsedManifestRow = ParsesInto<z.infer<typeof ManifestRowSchema>, ManifestRow>;

/** A coverage row that does not match the spec, with what it said of itself and why it was refused. */
export interface RejectedCoverageRow {
  exchange?: string;
  symbol?: string;
  reason: string;
}

/** A server-sent name made safe to print: control characters replaced, at most 64 characters. */
function printable(value: string): string {
  const clean = value.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return clean.length > 64 ? `${clean.slice(0, 64)}…` : clean;
}

/** Splits /history/coverage rows into those that match the spec and the others, each with its first problem. */
export function parseCoverageRows(data: readonly unknown[]): { rows: CoverageRow[]; rejected: RejectedCoverageRow[] } {
  const rows: CoverageRow[] = [];
  const rejected: RejectedCoverageRow[] = [];
  for (const raw of data) {
    const parsed = CoverageRowSchema.safeParse(raw);
    if (parsed.success) {
      rows.push(parsed.data);
      continue;
    }
    const issue = parsed.error.issues[0];
    const named = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
    const field = issue ? issuePath(issue.path) || '(row)' : '(row)';
    rejected.push({
      ...(typeof named.exchange === 'string' ? { exchange: printable(named.exchange) } : {}),
      ...(typeof named.symbol === 'string' ? { symbol: printable(named.symbol) } : {}),
      reason: `${field}: ${issue?.message ?? 'invalid'}`,
    });
  }
  return { rows, rejected };
}

/** "data[3].sha256", "meta.next_cursor": the first failing field's path, for ApiSchemaError. */
export function issuePath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, key) => {
    if (typeof key === 'number') return `${acc}[${key}]`;
    const name = String(key);
    return acc === '' ? name : `${acc}.${name}`;
  }, '');
}
