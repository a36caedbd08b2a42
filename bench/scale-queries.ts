// The questions of the scale benchmark: every view and macro of the README and every README recipe,
// each with hand-written twins on the base tables (levels, strikes_total, strikes_by_expiry) that
// give the same answer. The bench times all of them and compares the view with its fastest twin.

export interface ScaleMoment {
  /** A session mid-history, the moment asked about (inside crypto and TradFi hours), and the last session. */
  midSession: string;
  moment: string;
}

export interface ScaleQuery {
  name: string;
  view: string;
  /** Hand-written twins on the base tables; the fastest counts. */
  hand: string[];
  /** Statements run once before timing (e.g. the events table of pit_levels). */
  setup?: string[];
}

const LEVELS_COLUMNS = `exchange, symbol, session_date, timestamp_utc, type, oi_date,
       spot, flip, flip_count, regime, net_gex, abs_gex, call_gex, put_gex,
       call_oi_total, put_oi_total, p1_strike, p1_gex, p2_strike, p2_gex,
       n1_strike, n1_gex, n2_strike, n2_gex, a1_strike, a1_gex, a2_strike, a2_gex,
       s_price, s_gex, v_price, v_gex, max_pain, atm_iv, schema_version, source`;

const BTC = `exchange = 'deribit' AND symbol = 'BTC'`;

function compareBody(): string {
  return `SELECT l.${LEVELS_COLUMNS.replaceAll(/,\s*/g, ', l.')}, ${compareSelect()}
           FROM latest l
           ASOF LEFT JOIN closes c1 ON c1.exchange = l.exchange AND c1.symbol = l.symbol AND l.session_date - 1 >= c1.session_date
           ASOF LEFT JOIN closes c7 ON c7.exchange = l.exchange AND c7.symbol = l.symbol AND l.session_date - 7 >= c7.session_date
           ASOF LEFT JOIN closes c30 ON c30.exchange = l.exchange AND c30.symbol = l.symbol AND l.session_date - 30 >= c30.session_date`;
}

function compareSelect(): string {
  const deltas = (alias: string, n: string) =>
    `${alias}.session_date AS ref_session_date_${n}, ${alias}.timestamp_utc AS ref_timestamp_utc_${n}, ${alias}.type AS ref_type_${n},
     l.spot - ${alias}.spot AS spot_delta_${n}, l.flip - ${alias}.flip AS flip_delta_${n}, l.net_gex - ${alias}.net_gex AS net_gex_delta_${n},
     l.abs_gex - ${alias}.abs_gex AS abs_gex_delta_${n}, l.p1_strike - ${alias}.p1_strike AS p1_strike_delta_${n},
     l.n1_strike - ${alias}.n1_strike AS n1_strike_delta_${n}, l.s_price - ${alias}.s_price AS s_price_delta_${n},
     l.v_price - ${alias}.v_price AS v_price_delta_${n}`;
  return `${deltas('c1', '1d')}, ${deltas('c7', '7d')}, ${deltas('c30', '30d')}`;
}

export function scaleQueries(m: ScaleMoment, pitEvents: readonly number[]): ScaleQuery[] {
  const ts = `TIMESTAMPTZ '${m.moment}'`;
  const day = `DATE '${m.midSession}'`;
  const queries: ScaleQuery[] = [
    {
      name: '`levels_total`, one pair, one session',
      view: `SELECT * FROM levels_total WHERE ${BTC} AND session_date = ${day}`,
      hand: [`SELECT ${LEVELS_COLUMNS} FROM levels WHERE ${BTC} AND session_date = ${day} AND expiration = 'TOTAL'`],
    },
    {
      name: '`levels_close`, recipe "daily close series" (one pair, all history)',
      view: `SELECT session_date, spot, flip, regime, net_gex / 1e6 AS net_gex_musd
               FROM levels_close WHERE ${BTC} ORDER BY session_date`,
      hand: [
        `SELECT session_date, spot, flip, regime, net_gex / 1e6 AS net_gex_musd
           FROM levels WHERE ${BTC} AND expiration = 'TOTAL'
         QUALIFY row_number() OVER (PARTITION BY session_date ORDER BY timestamp_utc DESC) = 1 ORDER BY session_date`,
        `SELECT session_date, s.spot, s.flip, s.regime, s.net_gex / 1e6 AS net_gex_musd
           FROM (SELECT session_date, arg_max(struct_pack(spot, flip, regime, net_gex), timestamp_utc) AS s
                   FROM levels WHERE ${BTC} AND expiration = 'TOTAL' GROUP BY session_date) ORDER BY session_date`,
      ],
    },
    {
      name: '`levels_close`, recipe "walls over time" (SPY, all history)',
      view: `SELECT session_date, spot, p1_strike AS call_wall, n1_strike AS put_wall, s_price, v_price
               FROM levels_close WHERE exchange = 'tradfi' AND symbol = 'SPY' ORDER BY session_date`,
      hand: [
        `SELECT session_date, s.spot, s.p1_strike AS call_wall, s.n1_strike AS put_wall, s.s_price, s.v_price
           FROM (SELECT session_date, arg_max(struct_pack(spot, p1_strike, n1_strike, s_price, v_price), timestamp_utc) AS s
                   FROM levels WHERE exchange = 'tradfi' AND symbol = 'SPY' AND expiration = 'TOTAL' GROUP BY session_date) ORDER BY session_date`,
        `SELECT session_date, spot, p1_strike AS call_wall, n1_strike AS put_wall, s_price, v_price
           FROM levels WHERE exchange = 'tradfi' AND symbol = 'SPY' AND expiration = 'TOTAL'
         QUALIFY row_number() OVER (PARTITION BY session_date ORDER BY timestamp_utc DESC) = 1 ORDER BY session_date`,
      ],
    },
    {
      name: '`levels_close`, one pair, one session',
      view: `SELECT * FROM levels_close WHERE ${BTC} AND session_date = ${day}`,
      hand: [
        `SELECT ${LEVELS_COLUMNS} FROM levels WHERE ${BTC} AND session_date = ${day} AND expiration = 'TOTAL'
          ORDER BY timestamp_utc DESC LIMIT 1`,
      ],
    },
    {
      name: '`levels_expiry`, one pair, one session',
      view: `SELECT * FROM levels_expiry WHERE ${BTC} AND session_date = ${day}`,
      hand: [`SELECT * FROM levels WHERE ${BTC} AND session_date = ${day} AND expiration <> 'TOTAL'`],
    },
    {
      name: '`strikes`, one pair, one session',
      view: `SELECT * FROM strikes WHERE ${BTC} AND session_date = ${day}`,
      hand: [
        `SELECT s.exchange, s.symbol, s.session_date, s.timestamp_utc, s.strike, s.call_gex, s.put_gex, s.net_gex, s.call_oi, s.put_oi,
                l.spot, l.flip, l.regime, (s.strike - l.spot) / nullif(l.spot, 0) * 100 AS distance_pct
           FROM strikes_total s
           LEFT JOIN (SELECT timestamp_utc, spot, flip, regime FROM levels
                       WHERE ${BTC} AND session_date = ${day} AND expiration = 'TOTAL') l ON l.timestamp_utc = s.timestamp_utc
          WHERE s.exchange = 'deribit' AND s.symbol = 'BTC' AND s.session_date = ${day}`,
      ],
    },
    {
      name: '`strikes_expiry`, one pair, one session',
      view: `SELECT * FROM strikes_expiry WHERE ${BTC} AND session_date = ${day}`,
      hand: [
        `SELECT s.exchange, s.symbol, s.session_date, s.timestamp_utc, s.expiration_date, l.dte, s.strike,
                s.call_gex, s.put_gex, s.net_gex, s.call_oi, s.put_oi, l.spot, l.flip, l.regime, l.max_pain,
                (s.strike - l.spot) / nullif(l.spot, 0) * 100 AS distance_pct
           FROM strikes_by_expiry s
           LEFT JOIN (SELECT timestamp_utc, expiration_date, dte, spot, flip, regime, max_pain FROM levels
                       WHERE ${BTC} AND session_date = ${day} AND expiration <> 'TOTAL') l
             ON l.timestamp_utc = s.timestamp_utc AND l.expiration_date = s.expiration_date
          WHERE s.exchange = 'deribit' AND s.symbol = 'BTC' AND s.session_date = ${day}`,
      ],
    },
    {
      name: '`levels_asof(ex, sym, ts)`',
      view: `SELECT * FROM levels_asof('deribit', 'BTC', ${ts})`,
      hand: [
        `SELECT ${LEVELS_COLUMNS} FROM levels WHERE ${BTC} AND expiration = 'TOTAL' AND timestamp_utc <= ${ts}
          ORDER BY timestamp_utc DESC LIMIT 1`,
      ],
    },
    {
      name: '`levels_asof(…, max_staleness := INTERVAL 1 HOUR)`',
      view: `SELECT * FROM levels_asof('deribit', 'BTC', ${ts}, max_staleness := INTERVAL 1 HOUR)`,
      hand: [
        `SELECT ${LEVELS_COLUMNS} FROM levels WHERE ${BTC} AND expiration = 'TOTAL'
            AND timestamp_utc BETWEEN ${ts} - INTERVAL 1 HOUR AND ${ts} ORDER BY timestamp_utc DESC LIMIT 1`,
      ],
    },
    {
      name: '`strikes_asof(ex, sym, ts)`',
      view: `SELECT * FROM strikes_asof('deribit', 'BTC', ${ts})`,
      hand: strikesAtHand(ts, null),
    },
    {
      name: '`strikes_asof(…, max_staleness := INTERVAL 1 HOUR)`',
      view: `SELECT * FROM strikes_asof('deribit', 'BTC', ${ts}, max_staleness := INTERVAL 1 HOUR)`,
      hand: strikesAtHand(ts, 'INTERVAL 1 HOUR'),
    },
    {
      name: 'recipe "GEX profile at a time" (`strikes_asof`)',
      view: `SELECT strike, net_gex, distance_pct FROM strikes_asof('deribit', 'BTC', ${ts}) ORDER BY strike`,
      hand: strikesAtHand(ts, null).map((sql) => `SELECT strike, net_gex, distance_pct FROM (${sql}) ORDER BY strike`),
    },
    {
      name: 'recipe "point-in-time join" (`pit_levels`, 1 fill, max_staleness 30 min)',
      setup: [
        `CREATE OR REPLACE TEMP TABLE fills AS
           SELECT 'deribit' AS exchange, 'BTC' AS symbol, ${ts} + INTERVAL 451 SECOND AS ts, 1.5 AS qty`,
      ],
      view: `SELECT ts, qty, timestamp_utc AS capture, spot, flip, regime FROM pit_levels('fills', max_staleness := INTERVAL 30 MINUTE)`,
      hand: [
        `SELECT f.ts, f.qty, l.timestamp_utc AS capture, l.spot, l.flip, l.regime
           FROM fills f
           LEFT JOIN LATERAL (SELECT timestamp_utc, spot, flip, regime FROM levels
                               WHERE exchange = f.exchange AND symbol = f.symbol AND expiration = 'TOTAL'
                                 AND timestamp_utc <= f.ts AND timestamp_utc >= f.ts - INTERVAL 30 MINUTE
                               ORDER BY timestamp_utc DESC LIMIT 1) l ON true`,
        `SELECT f.ts, f.qty, CASE WHEN f.ts - l.timestamp_utc <= INTERVAL 30 MINUTE THEN l.timestamp_utc END AS capture,
                CASE WHEN f.ts - l.timestamp_utc <= INTERVAL 30 MINUTE THEN l.spot END AS spot,
                CASE WHEN f.ts - l.timestamp_utc <= INTERVAL 30 MINUTE THEN l.flip END AS flip,
                CASE WHEN f.ts - l.timestamp_utc <= INTERVAL 30 MINUTE THEN l.regime END AS regime
           FROM fills f ASOF LEFT JOIN (SELECT exchange, symbol, timestamp_utc, spot, flip, regime FROM levels WHERE expiration = 'TOTAL') l
             ON l.exchange = f.exchange AND l.symbol = f.symbol AND f.ts >= l.timestamp_utc`,
      ],
    },
    ...pitEvents.map((n) => pitQuery(n)),
    {
      name: '`levels_compare`, recipe "today against 1, 7 and 30 days ago" (all pairs)',
      view: `SELECT * FROM levels_compare`,
      hand: [
        // Per pair: the last capture, then the closes from the latest session on or before
        // (latest - 30 days) (or the pair's first) to the day before the latest.
        `WITH last AS (SELECT exchange, symbol, max(timestamp_utc) AS ts, max(session_date) AS d FROM levels WHERE expiration = 'TOTAL' GROUP BY ALL),
              reach AS (SELECT coalesce(max(l.session_date) FILTER (WHERE l.session_date <= last.d - 30), min(l.session_date)) AS f
                          FROM levels l JOIN last USING (exchange, symbol)
                         WHERE l.expiration = 'TOTAL' AND l.session_date <= last.d - 1 GROUP BY ALL),
              latest AS (SELECT l.* FROM levels l JOIN last ON l.exchange = last.exchange AND l.symbol = last.symbol AND l.timestamp_utc = last.ts
                          WHERE l.expiration = 'TOTAL'),
              closes AS (SELECT * FROM levels WHERE expiration = 'TOTAL' AND session_date >= (SELECT min(f) FROM reach)
                        QUALIFY row_number() OVER (PARTITION BY exchange, symbol, session_date ORDER BY timestamp_utc DESC) = 1)
         ${compareBody()}`,
        // The whole history's closes.
        `WITH latest AS (SELECT * FROM levels WHERE expiration = 'TOTAL'
                        QUALIFY row_number() OVER (PARTITION BY exchange, symbol ORDER BY timestamp_utc DESC) = 1),
              closes AS (SELECT * FROM levels WHERE expiration = 'TOTAL'
                        QUALIFY row_number() OVER (PARTITION BY exchange, symbol, session_date ORDER BY timestamp_utc DESC) = 1)
         ${compareBody()}`,
      ],
    },
  ];
  return queries;
}

/** The strikes of the last strikes capture at or before ts, with its TOTAL levels, by hand. */
function strikesAtHand(ts: string, staleness: string | null): string[] {
  const lower = staleness === null ? '' : `AND timestamp_utc >= ${ts} - ${staleness}`;
  const select = `s.exchange, s.symbol, s.session_date, s.timestamp_utc, s.strike, s.call_gex, s.put_gex, s.net_gex, s.call_oi, s.put_oi,
                  l.spot, l.flip, l.regime, (s.strike - l.spot) / nullif(l.spot, 0) * 100 AS distance_pct`;
  return [
    // The capture first (top-1), then its rows by equality.
    `WITH t AS (SELECT session_date, timestamp_utc FROM strikes_total
                 WHERE ${BTC} AND timestamp_utc <= ${ts} ${lower} ORDER BY timestamp_utc DESC LIMIT 1),
          lv AS (SELECT l.timestamp_utc, l.spot, l.flip, l.regime FROM levels l JOIN t USING (session_date, timestamp_utc)
                  WHERE l.exchange = 'deribit' AND l.symbol = 'BTC' AND l.expiration = 'TOTAL')
     SELECT ${select}
       FROM strikes_total s JOIN t USING (session_date, timestamp_utc) LEFT JOIN lv l ON l.timestamp_utc = s.timestamp_utc
      WHERE s.exchange = 'deribit' AND s.symbol = 'BTC'
      ORDER BY s.strike`,
    `SELECT ${select}
       FROM strikes_total s
       LEFT JOIN levels l ON l.exchange = s.exchange AND l.symbol = s.symbol AND l.expiration = 'TOTAL' AND l.timestamp_utc = s.timestamp_utc
      WHERE s.exchange = 'deribit' AND s.symbol = 'BTC'
        AND s.timestamp_utc = (SELECT max(timestamp_utc) FROM strikes_total WHERE ${BTC} AND timestamp_utc <= ${ts} ${lower})
      ORDER BY s.strike`,
  ];
}

/** pit_levels over n events spread over the whole history of every pair. */
function pitQuery(n: number): ScaleQuery {
  const table = `events_${n}`;
  return {
    name: `\`pit_levels\`, ${n.toLocaleString('en-US')} events over all pairs and the whole history`,
    setup: [
      `CREATE OR REPLACE TEMP TABLE ${table} AS
         WITH span AS (SELECT min(timestamp_utc) - INTERVAL 1 HOUR AS lo, epoch(max(timestamp_utc) - min(timestamp_utc)) + 7200 AS secs FROM levels),
              pairs AS (SELECT DISTINCT exchange, symbol FROM levels ORDER BY ALL),
              numbered AS (SELECT exchange, symbol, row_number() OVER () - 1 AS p, count(*) OVER () AS np FROM pairs)
         SELECT p.exchange, p.symbol, span.lo + to_seconds(((i * 7919) % span.secs::BIGINT)) AS ts, i AS id
           FROM range(${n}) r(i) CROSS JOIN span JOIN numbered p ON p.p = i % p.np`,
    ],
    view: `SELECT * FROM pit_levels('${table}')`,
    hand: [
      `SELECT e.*, ${LEVELS_COLUMNS.split(',')
        .map((c) => c.trim())
        .filter((c) => c !== 'exchange' && c !== 'symbol')
        .map((c) => `l.${c}`)
        .join(', ')}
         FROM ${table} e ASOF LEFT JOIN (SELECT * FROM levels WHERE expiration = 'TOTAL') l
           ON l.exchange = e.exchange AND l.symbol = e.symbol AND e.ts >= l.timestamp_utc`,
    ],
  };
}
