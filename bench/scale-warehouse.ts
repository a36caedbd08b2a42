// A synthetic multi-year warehouse for the scale benchmark (issue 17), grown with the tool's own
// migrations in the loader's order: session date by session date, every pair's levels, strikes_total
// and strikes_by_expiry of that date inserted in one transaction with their ledger rows, as a nightly
// sync of 4 pairs would. Rows are generated in SQL (range() cross joins and hash()), not in Node, so
// 24 months (~6.8M levels, 20M strikes_total, ~260M strikes_by_expiry rows) builds in minutes.
import type { DuckDBConnection } from '@duckdb/node-api';

export interface ScalePair {
  exchange: string;
  symbol: string;
  tradfi: boolean;
  /** Spot level the synthetic walk oscillates around, and the strike grid's step. */
  spot: number;
  step: number;
}

/** Crypto (24h UTC sessions, 96 captures) and TradFi (New York weekdays 09:30–15:45, 26 captures). */
export const SCALE_PAIRS: readonly ScalePair[] = [
  { exchange: 'deribit', symbol: 'BTC', tradfi: false, spot: 60_000, step: 500 },
  { exchange: 'okx', symbol: 'ETH', tradfi: false, spot: 3_000, step: 25 },
  { exchange: 'tradfi', symbol: 'SPY', tradfi: true, spot: 550, step: 1 },
  { exchange: 'tradfi', symbol: 'QQQ', tradfi: true, spot: 480, step: 0.5 },
];

export interface ScaleShape {
  /** Expirations listed per capture (levels rows per capture = expirations + 1). */
  expirations: number;
  /** Strikes of the TOTAL grid (strikes_total rows per capture). */
  strikes: number;
  /** The nearest expirations carry the whole grid in strikes_by_expiry ... */
  fullExpirations: number;
  /** ... the farther ones only the central band of this many strikes (a real chain's far months). */
  bandStrikes: number;
}

/** ~40 expirations × up to 120 strikes: 4 × 120 + 36 × 30 = 1,560 strikes_by_expiry rows per capture. */
export const DEFAULT_SHAPE: ScaleShape = { expirations: 40, strikes: 120, fullExpirations: 4, bandStrikes: 30 };

export interface ScaleOptions {
  /** The last session date held (inclusive), YYYY-MM-DD. */
  lastSession: string;
  /** Session dates of history: every calendar day is a crypto session, weekdays are TradFi sessions. */
  days: number;
  shape?: ScaleShape;
  pairs?: readonly ScalePair[];
  /** Called after each committed session date. */
  onSession?: (date: string, index: number) => void;
}

export interface ScaleRows {
  levels: number;
  strikes_total: number;
  strikes_by_expiry: number;
}

const CRYPTO_CAPTURES = 96;
const TRADFI_CAPTURES = 26;

export function capturesPerSession(pair: ScalePair): number {
  return pair.tradfi ? TRADFI_CAPTURES : CRYPTO_CAPTURES;
}

export function isTradfiSession(date: string): boolean {
  const dow = new Date(`${date}T00:00:00Z`).getUTCDay();
  return dow !== 0 && dow !== 6;
}

/** Calendar dates from lastSession - days + 1 to lastSession, oldest first. */
export function sessionDates(lastSession: string, days: number): string[] {
  const last = Date.parse(`${lastSession}T00:00:00Z`);
  if (!Number.isFinite(last) || !/^\d{4}-\d{2}-\d{2}$/.test(lastSession)) throw new Error(`lastSession must be YYYY-MM-DD, got "${lastSession}"`);
  return Array.from({ length: days }, (_, i) => new Date(last - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

export function rowsPerCapture(shape: ScaleShape): ScaleRows {
  const far = shape.expirations - shape.fullExpirations;
  return {
    levels: shape.expirations + 1,
    strikes_total: shape.strikes,
    strikes_by_expiry: shape.fullExpirations * shape.strikes + far * shape.bandStrikes,
  };
}

/** The pairs that hold a session on this date. */
function pairsOn(date: string, pairs: readonly ScalePair[]): ScalePair[] {
  return pairs.filter((pair) => !pair.tradfi || isTradfiSession(date));
}

function checkedPair(pair: ScalePair, index: number): { lit: string; p: number } {
  // Literals from a fixed list, never user input; checked anyway.
  if (!/^[a-z]+$/.test(pair.exchange) || !/^[A-Z0-9._-]{1,32}$/.test(pair.symbol)) throw new Error(`bad pair ${pair.exchange}/${pair.symbol}`);
  if (!Number.isFinite(pair.spot) || !Number.isFinite(pair.step)) throw new Error(`bad pair spot/step ${pair.symbol}`);
  return { lit: `'${pair.exchange}', '${pair.symbol}'`, p: index };
}

/**
 * The rows of one pair and date ($1) come from a single range(), row i being capture i // perCapture:
 * one ordered source, so with DuckDB's insertion order the table holds them capture by capture, as
 * the daily file lists them, without a sort. Each row draws one hash h and slices it into values.
 * Spot walks slowly over the days (sin of the day number) and within the session; the strike grid is
 * fixed per session around the opening spot, like the emulator's.
 */
function rowsSource(pair: ScalePair, p: number, perCapture: number, inner: string): string {
  const ts = pair.tradfi
    ? `timezone('America/New_York', d + INTERVAL '9 hours 30 minutes' + cap * INTERVAL 15 MINUTE)`
    : `(d + cap * INTERVAL 15 MINUTE)::TIMESTAMPTZ`;
  const base = `${pair.spot}::DOUBLE * (1 + 0.2 * sin(dn / 40.0 + ${p}))`;
  return `
  SELECT *, ${ts} AS ts,
         ${base} * (1 + 0.01 * sin(cap / 9.0 + dn) + 0.002 * ((hash(dn, ${p}, cap) % 1000) / 1000.0 - 0.5)) AS spot,
         round(${base} / ${pair.step}) * ${pair.step} AS atm, ${pair.step}::DOUBLE AS step,
         (h % 1000003) / 1000003.0 AS u1, ((h >> 20) % 1000033) / 1000033.0 AS u2, ((h >> 40) % 999983) / 999983.0 AS u3
    FROM (SELECT $1::DATE AS d, ($1::DATE - DATE '2020-01-01') AS dn, i // ${perCapture} AS cap, i % ${perCapture} AS w,
                 ${capturesPerSession(pair)} AS ncap, hash(i, $1::DATE, ${p}) AS h ${inner}
            FROM range(${capturesPerSession(pair) * perCapture}) r(i))`;
}

/** Expiration k of a session: dailies, then weeklies. */
const expirationOf = (k: string) => `CAST(d + CAST(CASE WHEN ${k} < 8 THEN ${k} + 1 ELSE 7 * (${k} - 6) END AS INTEGER) AS DATE)`;

function levelsInsert(pair: ScalePair, index: number, shape: ScaleShape): string {
  const { lit, p } = checkedPair(pair, index);
  const perCapture = shape.expirations + 1;
  return `
INSERT INTO levels
SELECT ${lit}, d, ts, CASE WHEN cap = ncap - 1 THEN 'close' ELSE 'intraday' END, d - 1,
       CASE WHEN k < 0 THEN 'TOTAL' ELSE strftime(xd, '%Y-%m-%d') END, xd,
       CASE WHEN k < 0 THEN NULL ELSE epoch(xd + INTERVAL 8 HOUR - ts) / 86400.0 END,
       spot, flip, 1 + (h % 3)::INTEGER, CASE WHEN spot >= flip THEN 'positive' ELSE 'negative' END,
       cg - pg, cg + pg, cg, pg, 1e5 * u2, 1e5 * u3,
       atm + step * (1 + h % 8), cg * 0.2, atm + step * (2 + (h >> 8) % 8), cg * 0.1,
       atm - step * (1 + (h >> 16) % 8), -pg * 0.2, atm - step * (2 + (h >> 24) % 8), -pg * 0.1,
       atm + step * (1 + h % 8), cg * 0.2, atm - step * (1 + (h >> 16) % 8), -pg * 0.2,
       atm + step * (1 + h % 8), cg * 0.2, atm - step * (1 + (h >> 16) % 8), -pg * 0.2,
       CASE WHEN k < 0 THEN NULL ELSE atm + step * (CAST((h >> 32) % 5 AS INTEGER) - 2) END, 0.4 + 0.3 * u3,
       1, 'file'
  FROM (SELECT *, spot * (0.96 + 0.08 * u1) AS flip, 1e9 * u2 / (k + 2) AS cg, 1e9 * u3 / (k + 2) AS pg,
               CASE WHEN k < 0 THEN NULL ELSE ${expirationOf('k')} END AS xd
          FROM (${rowsSource(pair, p, perCapture, ', w - 1 AS k')}))`;
}

function strikesTotalInsert(pair: ScalePair, index: number, shape: ScaleShape): string {
  const { lit, p } = checkedPair(pair, index);
  const mid = Math.floor(shape.strikes / 2);
  return `
INSERT INTO strikes_total
SELECT ${lit}, d, ts, atm + (w - ${mid}) * step, 1e7 * u1, 1e7 * u2, 1e7 * (u1 - u2), 1e4 * u3, 1e4 * u1 * u3, 1
  FROM (${rowsSource(pair, p, shape.strikes, '')})`;
}

function strikesByExpiryInsert(pair: ScalePair, index: number, shape: ScaleShape): string {
  const { lit, p } = checkedPair(pair, index);
  const full = shape.fullExpirations * shape.strikes;
  const perCapture = rowsPerCapture(shape).strikes_by_expiry;
  const lo = Math.floor((shape.strikes - shape.bandStrikes) / 2);
  const mid = Math.floor(shape.strikes / 2);
  const kj = `, CASE WHEN i % ${perCapture} < ${full} THEN (i % ${perCapture}) // ${shape.strikes}
                  ELSE ${shape.fullExpirations} + (i % ${perCapture} - ${full}) // ${shape.bandStrikes} END AS k,
              CASE WHEN i % ${perCapture} < ${full} THEN (i % ${perCapture}) % ${shape.strikes}
                  ELSE ${lo} + (i % ${perCapture} - ${full}) % ${shape.bandStrikes} END AS j`;
  return `
INSERT INTO strikes_by_expiry
SELECT ${lit}, d, ts, ${expirationOf('k')}, atm + (j - ${mid}) * step,
       1e7 * u1 / (k + 1), 1e7 * u2 / (k + 1), 1e7 * (u1 - u2) / (k + 1), 1e4 * u3, 1e4 * u1 * u3, 1
  FROM (${rowsSource(pair, p, perCapture, kj)})`;
}

const FILES = ['levels', 'strikes_total', 'strikes_by_expiry'] as const;

async function hasTable(conn: DuckDBConnection, name: string): Promise<boolean> {
  const reader = await conn.runAndReadAll(
    `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND table_name = $1`,
    [name],
  );
  return Number(reader.getRowObjectsJS()[0]?.n ?? 0) > 0;
}

/**
 * Grows the (migrated) warehouse behind `conn` by `days` session dates ending at lastSession, one
 * transaction per date. Returns the rows inserted per table.
 */
export async function growScaleWarehouse(conn: DuckDBConnection, options: ScaleOptions): Promise<ScaleRows> {
  const shape = options.shape ?? DEFAULT_SHAPE;
  const allPairs = options.pairs ?? SCALE_PAIRS;
  const perCapture = rowsPerCapture(shape);
  const total: ScaleRows = { levels: 0, strikes_total: 0, strikes_by_expiry: 0 };
  const dates = sessionDates(options.lastSession, options.days);
  const marker = await hasTable(conn, 'session_closes');
  for (const [index, date] of dates.entries()) {
    const pairs = pairsOn(date, allPairs);
    if (pairs.length === 0) continue;
    await conn.run('BEGIN TRANSACTION');
    try {
      // File by file as the loader does: every pair's levels, then strikes_total, then strikes_by_expiry.
      for (const insert of [levelsInsert, strikesTotalInsert, strikesByExpiryInsert]) {
        for (const pair of pairs) await conn.run(insert(pair, allPairs.indexOf(pair), shape), [date]);
      }
      // The close marker of each pair's session, as the loader writes it with a levels file (a
      // warehouse migrated only up to an older version, --schema-version, has no such table).
      if (marker)
        await conn.run(
          `INSERT INTO session_closes
         SELECT exchange, symbol, session_date, max(timestamp_utc) FROM levels
          WHERE session_date = $1::DATE AND expiration = 'TOTAL'
          GROUP BY exchange, symbol, session_date ORDER BY exchange, symbol`,
          [date],
        );
      for (const pair of pairs) {
        for (const file of FILES) {
          const rows = capturesPerSession(pair) * perCapture[file];
          total[file] += rows;
          await conn.run(
            `INSERT INTO sync.files (exchange, symbol, session_date, file, sha256, bytes, rows, archive_path, downloaded_at, loaded_at, status, updated_at)
             VALUES ($1, $2, $3::DATE, $4, sha256($1 || $2 || $3 || $4), NULL, $5, NULL, now(), now(), 'loaded', now())`,
            [pair.exchange, pair.symbol, date, file, rows],
          );
        }
      }
      await conn.run('COMMIT');
    } catch (error) {
      await conn.run('ROLLBACK');
      throw error;
    }
    options.onSession?.(date, index);
  }
  return total;
}
