// Valid payloads of every endpoint, shaped after gex-api-spec.md, for schema and client tests.
export const KEY = 'gex_' + 'A'.repeat(16) + 'b-c_' + '1'.repeat(12);
export const TS = '2025-03-04T12:15:00Z';
export const RESET = '2025-03-05T00:00:00Z';

const rateLimit = { limit: 500, remaining: 499, reset: RESET };

export function levelsFields(): Record<string, unknown> {
  return {
    spot: 100,
    flip: 98.5,
    flip_count: 1,
    regime: 'positive',
    net_gex: 10,
    abs_gex: 30,
    call_gex: 20,
    put_gex: 10,
    call_oi_total: 1000,
    put_oi_total: 800,
    p1_strike: 100,
    p1_gex: 5,
    p2_strike: 105,
    p2_gex: 3,
    n1_strike: 90,
    n1_gex: -4,
    n2_strike: 85,
    n2_gex: -2,
    a1_strike: 100,
    a1_gex: 5,
    a2_strike: 90,
    a2_gex: -4,
    s_price: 100,
    s_gex: 5,
    v_price: 90,
    v_gex: -4,
    max_pain: null,
    atm_iv: 0.55,
  };
}

export function historyRow(): Record<string, unknown> {
  return {
    schema_version: 1,
    timestamp_utc: TS,
    session_date: '2025-03-04',
    type: 'intraday',
    exchange: 'deribit',
    symbol: 'BTC',
    oi_date: '2025-03-03',
    ...levelsFields(),
  };
}

const symbolMeta = {
  timestamp: TS,
  exchange: 'deribit',
  coin: 'BTC',
  symbol: 'BTC',
  exchange_resolved: 'deribit',
  market: 'crypto',
  units: 'USD per 1% move',
  docs_url: 'https://example.com/docs',
  rate_limit: rateLimit,
};

const liveMeta = {
  ...symbolMeta,
  as_of: TS,
  oi_as_of: '2025-03-03',
  data_source: 'live',
  is_live: true,
  market_open: true,
  next_open: null,
  expiration: 'TOTAL',
  expiration_iso: null,
};

export function manifestRow(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { session_date: '2025-03-03', file: 'levels', rows: 96, bytes: 1234, sha256: 'ab'.repeat(32), schema_version: 1, ...overrides };
}

export function coverageRow(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    exchange: 'deribit',
    symbol: 'BTC',
    first_ts: '2024-01-01T00:00:00Z',
    last_ts: TS,
    sessions: 420,
    files_first_date: '2024-01-01',
    files_last_date: '2025-03-03',
    ...overrides,
  };
}

const metric = { oi_usd: 1, call_oi_usd: 1, put_oi_usd: 0, contracts: 3, total_gex: 1, abs_gex: 1, upside_gex: 1, downside_gex: 0 };
const meQuota = { limit: 500, used: 1, remaining: 499, reset: RESET };

/** A valid {data, meta} body per endpoint name of ENDPOINT_SCHEMAS. */
export const VALID_BODIES = {
  exchanges: {
    data: { available: ['bybit', 'deribit'], virtual: ['all'], markets: { crypto: ['bybit', 'deribit'], tradfi: ['tradfi'] } },
    meta: { timestamp: TS },
  },
  coins: { data: { coins: ['BTC', 'SPY'], markets: { crypto: ['BTC'], tradfi: ['SPY'] } }, meta: { timestamp: TS } },
  expirations: {
    data: {
      expirations: ['28MAR25'],
      expirations_detail: [{ code: '28MAR25', iso: '2025-03-28', dte: 23.8, cutoff_utc: '2025-03-28T08:00:00Z', is_0dte: false }],
    },
    meta: { timestamp: TS, exchange: 'deribit', coin: 'BTC', exchange_resolved: 'deribit', market: 'crypto' },
  },
  me: {
    data: {
      tier: 'pro',
      markets: ['crypto', 'tradfi'],
      api_access: true,
      quota: { requests: meQuota, history_files: { ...meQuota, limit: 200, remaining: 150 } },
    },
    meta: { timestamp: TS },
  },
  coverage: { data: [coverageRow()], meta: { timestamp: TS } },
  levels: {
    data: {
      ...levelsFields(),
      expiration: 'TOTAL',
      expiration_iso: null,
      compare: {
        '1d': { ...historyRow(), delta: { spot: 1, flip: null, net_gex: 1, abs_gex: 1, p1_strike: 0, n1_strike: 0, s_price: 0, v_price: 0 } },
        '30d': null,
      },
    },
    meta: liveMeta,
  },
  gexByStrike: {
    data: {
      gex_data: { strikes: [90, 100], call_gex: [1, 2], put_gex: [2, 1], net_gex: [-1, 1], total_gex: [3, 3] },
      markers: {
        flip_points: [{ label: 'Flip', strike: 95, value: 0, source: 'gamma_profile' }],
        max_pain: null,
        absolute_max: [{ label: 'A1', strike: 100, value: 1 }],
        positive_max: [{ label: 'P1', strike: 100, value: 1 }],
        negative_max: [{ label: 'N1', strike: 90, value: -1 }],
        spot: { strike: 100, value: 100.2 },
        stability_point: { label: 'Max Stability', price: 100, gex: 1 },
        volatility_point: { label: 'Max Volatility', price: 90, gex: -1 },
        totals: { call_gex: 3, put_gex: 3, net_gex: 0, absolute_gex: 6, absolute_gex_power: 2 },
        asymmetry: { upside_gex: 3, downside_gex: 3, asymmetry_ratio: 1, bias: 'neutral', upside_distance: null, downside_distance: 10 },
      },
      metadata: {
        basecoin: 'BTC',
        exchange: 'deribit',
        expiration_date: 'TOTAL',
        current_price: 100.2,
        data_points: 2,
        strike_range: { min: 90, max: 100 },
        enhanced: true,
        gamma_profile_source: true,
        timestamp: TS,
        timestamp_ms: 1741090500000,
      },
    },
    meta: { timestamp: TS, exchange: 'deribit', coin: 'BTC', expiration: 'TOTAL', rate_limit: rateLimit },
  },
  termOi: {
    data: {
      expirations: [{ date: '28MAR25', days_to_expiry: 23.8, timestamp: TS, exchanges: { deribit: metric }, total: metric }],
      metadata: { basecoin: 'BTC', exchanges_used: ['deribit'], current_price: 100, expiration_count: 1, timestamp: TS, timestamp_ms: 1741090500000 },
    },
    meta: liveMeta,
  },
  historyTimestamps: {
    data: [TS],
    meta: { ...symbolMeta, timestamp: undefined, session_date: '2025-03-04' },
  },
  historyLevels: {
    data: [historyRow()],
    meta: { ...symbolMeta, granularity: '15m', start: '2025-03-01T00:00:00Z', end: '2025-03-05T00:00:00Z', next_cursor: null },
  },
  historySnapshot: {
    data: { ...historyRow(), expiration: 'TOTAL', dte: null, strikes: [{ strike: 100, call_gex: 1, put_gex: 0, net_gex: 1, call_oi: 10, put_oi: 0 }] },
    meta: { ...symbolMeta, snapshot_at: TS },
  },
  historyFiles: { data: [manifestRow(), manifestRow({ file: 'strikes_total' })], meta: symbolMeta },
} as const;

export function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
