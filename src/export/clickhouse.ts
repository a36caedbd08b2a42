// clickhouse.sql of an export: the warehouse's tables, views and point-in-time questions for
// ClickHouse (a server or cluster through clickhouse-client --multiquery, clickhouse-local, or chDB in
// a process). The tables are views over the exported Parquet, read with file() from a folder or s3()
// from object storage, typed from the warehouse's own column list; the views are sql/views.sql
// written for ClickHouse, and levels_asof / strikes_asof become parameterized views. A test runs the
// file in chDB and checks every table and view against the warehouse (row counts and checksums), and
// that every view and macro of sql/views.sql has its counterpart here.
import { PARTITION_COLUMNS, type ExportColumn, type ExportedTable } from './views.js';
import { quoteIdentifier, quoteString } from '../core/sql-quote.js';
import { CLICKHOUSE_RESEARCH_VIEWS } from './clickhouse-research.js';

export const CLICKHOUSE_FILE = 'clickhouse.sql';

/** Where ClickHouse reads the export: a local folder (file()) or an HTTP(S) URL of the prefix (s3()). */
export type ClickHouseSource = { kind: 'file'; root: string } | { kind: 's3'; url: string };

/** A DuckDB column type as ClickHouse names it. Timestamps are UTC instants in the files. */
const TYPES: Record<string, string> = {
  VARCHAR: 'String',
  JSON: 'String',
  DOUBLE: 'Float64',
  INTEGER: 'Int32',
  BIGINT: 'Int64',
  BOOLEAN: 'Bool',
  DATE: 'Date32',
  'TIMESTAMP WITH TIME ZONE': "DateTime64(6, 'UTC')",
};

/** The column's ClickHouse type; Nullable unless the warehouse declares it NOT NULL (ClickHouse would read a NULL as 0 or ''). */
export function clickhouseType(column: ExportColumn): string {
  const type = TYPES[column.type];
  if (!type) throw new Error(`gexwh: no ClickHouse type for the DuckDB type ${column.type}`);
  return column.nullable === false ? type : `Nullable(${type})`;
}

/** A ClickHouse string literal: backslash and quote escaped. */
export const clickhouseString = (text: string): string => quoteString(text, 'clickhouse');
const clickhouseName = (name: string): string => quoteIdentifier(name, 'clickhouse');

/** The HTTP(S) URL ClickHouse's s3() reads an s3://bucket/prefix export at: path-style at a given endpoint, else AWS. */
export function clickhouseS3Url(bucket: string, prefix: string, endpoint?: string, region?: string): string {
  const base = endpoint ? `${endpoint.replace(/\/+$/, '')}/${bucket}` : `https://${bucket}.s3${region ? `.${region}` : ''}.amazonaws.com`;
  return prefix ? `${base}/${prefix}` : base;
}

function structure(table: ExportedTable): string {
  return table.columns.map((c) => `${clickhouseName(c.name)} ${clickhouseType(c)}`).join(', ');
}

/**
 * One table as a view over its files. Hive partitioning is on, so a filter on exchange, symbol or
 * session_date skips the other folders before a file is opened (the files hold those columns too).
 * A table with no file yet is an empty view of the same columns.
 */
export function clickhouseTableSql(source: ClickHouseSource, table: ExportedTable): string {
  if (!table.hasFiles) return `CREATE OR REPLACE VIEW ${clickhouseName(table.name)} AS SELECT * FROM null(${clickhouseString(structure(table))});`;
  const base = source.kind === 'file' ? source.root : source.url;
  const glob = `${base.replace(/\/+$/, '')}/${table.name}/${table.partitioned ? '*/*/*/' : ''}*.parquet`;
  const fn = source.kind === 'file' ? 'file' : 's3';
  const settings = table.partitioned ? ' SETTINGS use_hive_partitioning = 1' : '';
  return `CREATE OR REPLACE VIEW ${clickhouseName(table.name)} AS SELECT * FROM ${fn}(${clickhouseString(glob)}, 'Parquet', ${clickhouseString(structure(table))})${settings};`;
}

const TS = "{ts:DateTime64(6, 'UTC')}";
const STALENESS = '{max_staleness:Nullable(UInt32)}';
/** No look-ahead, and (when max_staleness seconds are given) nothing older than ts - max_staleness. */
const AT_OR_BEFORE = (column: string) =>
  `${column} <= ${TS}\n     AND (${STALENESS} IS NULL OR ${column} >= ${TS} - toIntervalSecond(ifNull(${STALENESS}, 0)))`;

const LEVELS_TOTAL_COLUMNS = `exchange, symbol, session_date, timestamp_utc, type, oi_date,
       spot, flip, flip_count, regime, net_gex, abs_gex, call_gex, put_gex,
       call_oi_total, put_oi_total, p1_strike, p1_gex, p2_strike, p2_gex,
       n1_strike, n1_gex, n2_strike, n2_gex, a1_strike, a1_gex, a2_strike, a2_gex,
       s_price, s_gex, v_price, v_gex, max_pain, atm_iv,
       schema_version, source`;

/** levels_total's columns from the alias l, named plainly (ClickHouse names l.* of a join "l.exchange"). */
const LATEST_COLUMNS = LEVELS_TOTAL_COLUMNS.split(',')
  .map((c) => c.trim())
  .map((c) => `  l.${c} AS ${c}`);

const DELTAS = (n: string) =>
  [
    `c${n}.session_date AS ref_session_date_${n}d`,
    `c${n}.timestamp_utc AS ref_timestamp_utc_${n}d`,
    `c${n}.type AS ref_type_${n}d`,
    ...['spot', 'flip', 'net_gex', 'abs_gex', 'p1_strike', 'n1_strike', 's_price', 'v_price'].map((c) => `l.${c} - c${n}.${c} AS ${c}_delta_${n}d`),
  ].map((line) => `  ${line}`);

/** nearest_walls for ClickHouse: the range a parameter or a number; the -OrNull aggregates give NULL as DuckDB's FILTER does. */
const NEAREST_WALLS = (range: string) => {
  const above = `distance_pct > 0 AND distance_pct <= ${range} AND net_gex > 0`;
  const below = `distance_pct < 0 AND distance_pct >= -${range} AND net_gex < 0`;
  return `SELECT exchange, symbol, session_date, timestamp_utc, any(spot) AS spot, toFloat64(${range}) AS range_pct,
       argMaxIfOrNull(strike, net_gex, ${above}) AS nearest_call_wall,
       maxIfOrNull(net_gex, ${above}) AS nearest_call_wall_gex,
       argMinIfOrNull(strike, net_gex, ${below}) AS nearest_put_wall,
       minIfOrNull(net_gex, ${below}) AS nearest_put_wall_gex
  FROM strikes
 GROUP BY exchange, symbol, session_date, timestamp_utc`;
};

/**
 * sql/views.sql for ClickHouse, same names, columns and answers. Where DuckDB gives NULL for an
 * outer join's missing side, ClickHouse gives the type's default unless join_use_nulls = 1: every
 * view with an outer join sets it. Columns are named explicitly, so the names never carry a table
 * prefix. Parameters: exchange, symbol, ts (UTC, 'YYYY-MM-DD HH:MM:SS[.ffffff]') and optionally
 * max_staleness in seconds.
 */
export const CLICKHOUSE_VIEWS = `-- The daily views and the point-in-time questions, as sql/views.sql defines them for DuckDB.
CREATE OR REPLACE VIEW session_closes AS
SELECT exchange, symbol, session_date, max(timestamp_utc) AS timestamp_utc
  FROM levels WHERE expiration = 'TOTAL' GROUP BY exchange, symbol, session_date;

CREATE OR REPLACE VIEW levels_total AS
SELECT ${LEVELS_TOTAL_COLUMNS}
  FROM levels
 WHERE expiration = 'TOTAL';

CREATE OR REPLACE VIEW levels_close AS
SELECT *
  FROM levels_total
 WHERE (exchange, symbol, session_date, timestamp_utc) IN (SELECT exchange, symbol, session_date, timestamp_utc FROM session_closes);

CREATE OR REPLACE VIEW levels_expiry AS
SELECT *
  FROM levels
 WHERE expiration <> 'TOTAL';

CREATE OR REPLACE VIEW strikes AS
SELECT s.exchange AS exchange, s.symbol AS symbol, s.session_date AS session_date, s.timestamp_utc AS timestamp_utc, s.strike AS strike,
       s.call_gex AS call_gex, s.put_gex AS put_gex, s.net_gex AS net_gex, s.call_oi AS call_oi, s.put_oi AS put_oi,
       l.spot AS spot, l.flip AS flip, l.regime AS regime,
       (s.strike - l.spot) / nullIf(l.spot, 0) * 100 AS distance_pct
  FROM strikes_total AS s
  LEFT JOIN (SELECT exchange, symbol, session_date, timestamp_utc, spot, flip, regime FROM levels WHERE expiration = 'TOTAL') AS l
    ON l.exchange = s.exchange AND l.symbol = s.symbol AND l.session_date = s.session_date AND l.timestamp_utc = s.timestamp_utc
SETTINGS join_use_nulls = 1;

CREATE OR REPLACE VIEW strikes_expiry AS
SELECT s.exchange AS exchange, s.symbol AS symbol, s.session_date AS session_date, s.timestamp_utc AS timestamp_utc,
       s.expiration_date AS expiration_date, l.dte AS dte, s.strike AS strike,
       s.call_gex AS call_gex, s.put_gex AS put_gex, s.net_gex AS net_gex, s.call_oi AS call_oi, s.put_oi AS put_oi,
       l.spot AS spot, l.flip AS flip, l.regime AS regime, l.max_pain AS max_pain,
       (s.strike - l.spot) / nullIf(l.spot, 0) * 100 AS distance_pct
  FROM strikes_by_expiry AS s
  LEFT JOIN (SELECT exchange, symbol, session_date, timestamp_utc, expiration_date, dte, spot, flip, regime, max_pain FROM levels) AS l
    ON l.exchange = s.exchange AND l.symbol = s.symbol AND l.session_date = s.session_date
   AND l.timestamp_utc = s.timestamp_utc AND l.expiration_date = s.expiration_date
SETTINGS join_use_nulls = 1;

-- levels_asof(exchange = 'deribit', symbol = 'BTC', ts = '2026-11-20 14:07:31' [, max_staleness = 1800]):
-- the last TOTAL capture at or before ts (never after); with max_staleness (seconds), none older.
CREATE OR REPLACE VIEW levels_asof AS
SELECT *
  FROM levels_total
 WHERE exchange = {exchange:String} AND symbol = {symbol:String}
   AND ${AT_OR_BEFORE('timestamp_utc')}
 ORDER BY timestamp_utc DESC
 LIMIT 1;

-- strikes_asof(exchange = ..., symbol = ..., ts = ... [, max_staleness = seconds]): the strikes of the
-- last strikes capture at or before ts, by strike, with that capture's TOTAL spot, flip and regime.
CREATE OR REPLACE VIEW strikes_asof AS
WITH capture AS (
  SELECT session_date, timestamp_utc
    FROM strikes_total
   WHERE exchange = {exchange:String} AND symbol = {symbol:String}
     AND ${AT_OR_BEFORE('timestamp_utc')}
   ORDER BY timestamp_utc DESC
   LIMIT 1
)
SELECT s.exchange AS exchange, s.symbol AS symbol, s.session_date AS session_date, s.timestamp_utc AS timestamp_utc, s.strike AS strike,
       s.call_gex AS call_gex, s.put_gex AS put_gex, s.net_gex AS net_gex, s.call_oi AS call_oi, s.put_oi AS put_oi,
       l.spot AS spot, l.flip AS flip, l.regime AS regime,
       (s.strike - l.spot) / nullIf(l.spot, 0) * 100 AS distance_pct
  FROM strikes_total AS s
  INNER JOIN capture AS c ON s.session_date = c.session_date AND s.timestamp_utc = c.timestamp_utc
  LEFT JOIN (SELECT timestamp_utc, spot, flip, regime
               FROM levels
              WHERE exchange = {exchange:String} AND symbol = {symbol:String} AND expiration = 'TOTAL'
                AND (session_date, timestamp_utc) IN (SELECT session_date, timestamp_utc FROM capture)) AS l
    ON l.timestamp_utc = s.timestamp_utc
 WHERE s.exchange = {exchange:String} AND s.symbol = {symbol:String}
 ORDER BY s.strike
SETTINGS join_use_nulls = 1;

-- The latest TOTAL capture per pair with 1d/7d/30d deltas against the last capture of the latest
-- session on or before (latest session - N days).
CREATE OR REPLACE VIEW levels_compare AS
WITH last_capture AS (
  SELECT exchange, symbol, max(timestamp_utc) AS last_ts, max(session_date) AS last_date
    FROM levels
   WHERE expiration = 'TOTAL'
   GROUP BY exchange, symbol
),
reach AS (
  SELECT coalesce(maxIfOrNull(t.session_date, t.session_date <= c.last_date - 30), min(t.session_date)) AS first_needed
    FROM levels AS t
    INNER JOIN last_capture AS c ON t.exchange = c.exchange AND t.symbol = c.symbol
   WHERE t.expiration = 'TOTAL' AND t.session_date <= c.last_date - 1
   GROUP BY t.exchange, t.symbol
),
latest AS (
  SELECT t.*
    FROM levels_total AS t
    INNER JOIN last_capture AS c ON t.exchange = c.exchange AND t.symbol = c.symbol AND t.timestamp_utc = c.last_ts
),
closes AS (
  SELECT *
    FROM levels_total
   WHERE session_date >= (SELECT minOrNull(first_needed) FROM reach)
  QUALIFY row_number() OVER (PARTITION BY exchange, symbol, session_date ORDER BY timestamp_utc DESC) = 1
)
SELECT
${[...LATEST_COLUMNS, ...DELTAS('1'), ...DELTAS('7'), ...DELTAS('30')].join(',\n')}
FROM latest AS l
ASOF LEFT JOIN closes AS c1
  ON c1.exchange = l.exchange AND c1.symbol = l.symbol AND l.session_date - 1 >= c1.session_date
ASOF LEFT JOIN closes AS c7
  ON c7.exchange = l.exchange AND c7.symbol = l.symbol AND l.session_date - 7 >= c7.session_date
ASOF LEFT JOIN closes AS c30
  ON c30.exchange = l.exchange AND c30.symbol = l.symbol AND l.session_date - 30 >= c30.session_date
SETTINGS join_use_nulls = 1;

-- nearest_walls(range_pct = 5): per TOTAL strikes capture, the strike above spot with the largest
-- positive net GEX and the one below with the most negative, within range_pct percent of spot.
CREATE OR REPLACE VIEW nearest_walls AS
${NEAREST_WALLS('{range_pct:Float64}')};

-- The nearest walls within 10% of spot, one row per TOTAL strikes capture.
CREATE OR REPLACE VIEW levels_nearest_walls AS
${NEAREST_WALLS('10')};

${CLICKHOUSE_RESEARCH_VIEWS}`;

/** Every view and parameterized view clickhouse.sql defines, in order (the tables come first). */
export const CLICKHOUSE_VIEW_NAMES = [...CLICKHOUSE_VIEWS.matchAll(/^CREATE OR REPLACE VIEW (\w+)/gm)].map((m) => m[1]!);

/** The whole file (pure): header, the tables over the files, then the views. */
export function clickhouseSql(source: ClickHouseSource, tables: readonly ExportedTable[]): string {
  const where =
    source.kind === 'file'
      ? [
          '-- The tables read the folder with file(): clickhouse-local and chDB read any path; a ClickHouse server reads',
          '-- only under its user_files_path (put or link the export there, or export to object storage).',
        ]
      : [
          '-- The tables read object storage with s3(): credentials come from ClickHouse, not from this file (the',
          "-- server's <s3> endpoint settings, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY where environment credentials",
          '-- are on, as in clickhouse-local and chDB); docs/sharing.md shows both.',
        ];
  return [
    "-- gexwh export: the warehouse's tables, views and point-in-time questions for ClickHouse.",
    '-- Run with: clickhouse-client --multiquery < clickhouse.sql (in the database of your choice),',
    '-- clickhouse-local --queries-file clickhouse.sql, or statement by statement in chDB.',
    ...where,
    "-- Timestamps are UTC (DateTime64(6, 'UTC')); ts arguments are UTC 'YYYY-MM-DD HH:MM:SS' strings. Written by every",
    '-- gexwh export (Parquet); the paths below are absolute.',
    `-- Partition columns (${PARTITION_COLUMNS.join(', ')}) are in the folder names and in the files.`,
    '',
    ...tables.map((table) => clickhouseTableSql(source, table)),
    '',
    CLICKHOUSE_VIEWS,
  ].join('\n');
}

/** The statements of a clickhouse.sql text, one per `;`-terminated group of lines, comments dropped (for chDB, which runs one at a time). */
export function clickhouseStatements(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => !line.startsWith('--'))
    .join('\n')
    .split(/;\s*$/m)
    .map((statement) => statement.trim())
    .filter((statement) => statement.length > 0);
}
