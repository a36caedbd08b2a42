// Inserts for the live-capture tables of sql/010_live_capture.sql (`gexwh capture`). Rows are
// appended to a temp staging table (text for dates and instants, cast strictly in SQL) and copied
// with ON CONFLICT DO NOTHING, so capturing the same as_of twice adds nothing. Table and column
// names come from the fixed lists below, never from data.
import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import { inTransaction } from './transaction.js';
import { LEVELS_FIELDS } from './layouts.js';
import { readRows, text } from './read-rows.js';
import { pairKey } from '../core/pairs.js';

type ColumnType = 'VARCHAR' | 'DOUBLE' | 'INTEGER' | 'BOOLEAN' | 'DATE' | 'TIMESTAMPTZ';
type Column = readonly [name: string, type: ColumnType];
export type LiveValue = string | number | boolean | null | undefined;
export type LiveRow = Record<string, LiveValue>;

const LEVELS_COLUMNS: Column[] = LEVELS_FIELDS.map((f): Column => [f, f === 'regime' ? 'VARCHAR' : f === 'flip_count' ? 'INTEGER' : 'DOUBLE']);

const CAPTURE_KEY: Column[] = [
  ['exchange', 'VARCHAR'],
  ['symbol', 'VARCHAR'],
  ['session_date', 'DATE'],
  ['as_of', 'TIMESTAMPTZ'],
];

const LIVE_META: Column[] = [
  ['oi_as_of', 'DATE'],
  ['data_source', 'VARCHAR'],
  ['is_live', 'BOOLEAN'],
  ['market_open', 'BOOLEAN'],
];

export const LIVE_TABLES = {
  live_levels: [...CAPTURE_KEY, ['expiration', 'VARCHAR'], ...LIVE_META, ['next_open', 'TIMESTAMPTZ'], ...LEVELS_COLUMNS, ['captured_at', 'TIMESTAMPTZ']],
  term_structure: [
    ...CAPTURE_KEY,
    ...LIVE_META,
    ['expiration', 'VARCHAR'],
    ['expiration_date', 'DATE'],
    ['days_to_expiry', 'DOUBLE'],
    ['venue', 'VARCHAR'],
    ['oi_usd', 'DOUBLE'],
    ['call_oi_usd', 'DOUBLE'],
    ['put_oi_usd', 'DOUBLE'],
    ['contracts', 'DOUBLE'],
    ['total_gex', 'DOUBLE'],
    ['abs_gex', 'DOUBLE'],
    ['upside_gex', 'DOUBLE'],
    ['downside_gex', 'DOUBLE'],
    ['spot', 'DOUBLE'],
    ['entry_ts', 'TIMESTAMPTZ'],
    ['captured_at', 'TIMESTAMPTZ'],
  ],
  live_strikes: [
    ...CAPTURE_KEY,
    ['expiration', 'VARCHAR'],
    ['expiration_date', 'DATE'],
    ['strike', 'DOUBLE'],
    ['call_gex', 'DOUBLE'],
    ['put_gex', 'DOUBLE'],
    ['net_gex', 'DOUBLE'],
    ['total_gex', 'DOUBLE'],
    ['spot', 'DOUBLE'],
    ['captured_at', 'TIMESTAMPTZ'],
  ],
} as const satisfies Record<string, readonly Column[]>;

export type LiveTable = keyof typeof LIVE_TABLES;

/** The primary keys of sql/010_live_capture.sql. */
const LIVE_KEYS: Record<LiveTable, readonly string[]> = {
  live_levels: ['exchange', 'symbol', 'as_of', 'expiration'],
  term_structure: ['exchange', 'symbol', 'as_of', 'expiration', 'venue'],
  live_strikes: ['exchange', 'symbol', 'as_of', 'expiration', 'strike'],
};

export interface LiveRows {
  live_levels: LiveRow[];
  term_structure: LiveRow[];
  live_strikes: LiveRow[];
}

const STAGE = 'gexwh_live_stage';

/** The staged type: instants and dates travel as text and are cast in the INSERT. */
function stagedType(type: ColumnType): 'VARCHAR' | 'DOUBLE' | 'BOOLEAN' {
  if (type === 'DOUBLE' || type === 'INTEGER') return 'DOUBLE';
  if (type === 'BOOLEAN') return 'BOOLEAN';
  return 'VARCHAR';
}

function appendValue(appender: DuckDBAppender, type: ColumnType, value: LiveValue): void {
  const staged = stagedType(type);
  if (staged === 'DOUBLE' && typeof value === 'number' && Number.isFinite(value)) appender.appendDouble(value);
  else if (staged === 'BOOLEAN' && typeof value === 'boolean') appender.appendBoolean(value);
  else if (staged === 'VARCHAR' && typeof value === 'string') appender.appendVarchar(value);
  else appender.appendNull();
}

function castOf(name: string, type: ColumnType): string {
  if (type === 'DATE' || type === 'TIMESTAMPTZ' || type === 'INTEGER') return `CAST(s.${name} AS ${type})`;
  return `s.${name}`;
}

/** Inserts rows into one live table; returns how many were new. */
export async function insertLiveRows(conn: DuckDBConnection, table: LiveTable, rows: readonly LiveRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const columns: readonly Column[] = LIVE_TABLES[table];
  await conn.run(`CREATE OR REPLACE TEMP TABLE ${STAGE} (${columns.map(([n, t]) => `${n} ${stagedType(t)}`).join(', ')})`);
  try {
    const appender = await conn.createAppender(STAGE, 'main', 'temp');
    for (const row of rows) {
      for (const [name, type] of columns) appendValue(appender, type, row[name]);
      appender.endRow();
    }
    appender.flushSync();
    appender.closeSync();
    const names = columns.map(([n]) => n).join(', ');
    const values = columns.map(([n, t]) => castOf(n, t)).join(', ');
    const types = new Map<string, ColumnType>(columns.map(([n, t]) => [n, t]));
    const key = LIVE_KEYS[table].map((n) => castOf(n, types.get(n) ?? 'VARCHAR')).join(', ');
    // One row per key within the batch too: two targets (all, combined) may resolve to one venue.
    const result = await conn.run(
      `INSERT INTO ${table} (${names})
       SELECT ${values} FROM temp.main.${STAGE} s QUALIFY row_number() OVER (PARTITION BY ${key}) = 1
       ON CONFLICT DO NOTHING`,
    );
    return result.rowsChanged;
  } finally {
    await conn.run(`DROP TABLE IF EXISTS temp.main.${STAGE}`);
  }
}

/** Writes a whole capture run in one transaction; rows inserted per table. */
export async function writeLiveCapture(conn: DuckDBConnection, rows: LiveRows): Promise<Record<LiveTable, number>> {
  return await inTransaction(conn, async () => ({
    live_levels: await insertLiveRows(conn, 'live_levels', rows.live_levels),
    term_structure: await insertLiveRows(conn, 'term_structure', rows.term_structure),
    live_strikes: await insertLiveRows(conn, 'live_strikes', rows.live_strikes),
  }));
}

/** The latest as_of with term_structure rows per (exchange, symbol): a closed market's snapshot is taken once. */
export async function latestTermCaptures(conn: DuckDBConnection): Promise<Map<string, string>> {
  const rows = await readRows(
    conn,
    `SELECT exchange, symbol, strftime(max(as_of) AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') AS as_of
       FROM term_structure GROUP BY exchange, symbol`,
    [],
    { exchange: text, symbol: text, as_of: text },
  );
  return new Map(rows.map((row) => [pairKey(row), row.as_of]));
}
