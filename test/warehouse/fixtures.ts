// Hand-made daily files in the daily file layouts, and a temp warehouse per test.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { LEVELS_FIELDS } from '../../src/warehouse/layouts.js';
import type { LoadInput } from '../../src/warehouse/loader.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/open.js';
import type { FileKind } from '../../src/core/file-kinds.js';
import { migratedTemplate, seedWarehouse } from '../helpers/migrated-warehouse.js';

export type Row = Record<string, string | number | null>;

export const HEADERS: Record<FileKind, string[]> = {
  levels: ['schema_version', 'timestamp_utc', 'session_date', 'type', 'exchange', 'symbol', 'oi_date', 'expiration', 'dte', ...LEVELS_FIELDS],
  strikes_total: [
    'schema_version',
    'timestamp_utc',
    'session_date',
    'type',
    'exchange',
    'symbol',
    'oi_date',
    ...LEVELS_FIELDS,
    'strike',
    'strike_call_gex',
    'strike_put_gex',
    'strike_net_gex',
    'strike_call_oi',
    'strike_put_oi',
  ],
  strikes_by_expiry: [
    'schema_version',
    'timestamp_utc',
    'session_date',
    'exchange',
    'symbol',
    'expiration',
    'strike',
    'strike_call_gex',
    'strike_put_gex',
    'strike_net_gex',
    'strike_call_oi',
    'strike_put_oi',
  ],
};

export interface Market {
  exchange: string;
  symbol: string;
  sessionDate: string;
}

export const BTC: Market = { exchange: 'bybit', symbol: 'BTC', sessionDate: '2026-11-20' };

/** A levels-fields record with distinct, recognisable values. */
function levelsFields(seed: number): Row {
  const row: Row = {};
  LEVELS_FIELDS.forEach((field, i) => {
    row[field] = field === 'regime' ? 'positive' : field === 'flip_count' ? 2 : seed * 1000 + i + 0.5;
  });
  row.max_pain = null;
  return row;
}

export function levelsRows(market: Market, captures = 2): Row[] {
  const rows: Row[] = [];
  for (let c = 0; c < captures; c += 1) {
    const ts = `${market.sessionDate}T14:${String(c * 15).padStart(2, '0')}:00Z`;
    const base = {
      schema_version: 1,
      timestamp_utc: ts,
      session_date: market.sessionDate,
      type: 'intraday',
      exchange: market.exchange,
      symbol: market.symbol,
      oi_date: market.sessionDate,
    };
    rows.push({ ...base, expiration: 'TOTAL', dte: null, ...levelsFields(c) });
    rows.push({ ...base, expiration: '2026-12-25', dte: 35, ...levelsFields(c), max_pain: 95000 });
  }
  return rows;
}

export function strikesTotalRows(market: Market): Row[] {
  const ts = `${market.sessionDate}T14:00:00Z`;
  return [97500, 97750.5, 98000].map((strike, i) => ({
    schema_version: 1,
    timestamp_utc: ts,
    session_date: market.sessionDate,
    type: 'close',
    exchange: market.exchange,
    symbol: market.symbol,
    oi_date: market.sessionDate,
    ...levelsFields(9),
    strike,
    strike_call_gex: i === 0 ? '1.5e6' : 100 + i,
    strike_put_gex: i === 1 ? '' : 50,
    strike_net_gex: 50 + i,
    strike_call_oi: 10,
    strike_put_oi: 20,
  }));
}

export function strikesByExpiryRows(market: Market): Row[] {
  const ts = `${market.sessionDate}T14:00:00Z`;
  return ['2026-11-27', '2026-12-25'].flatMap((expiration) =>
    [97500, 97500.5].map((strike) => ({
      schema_version: 1,
      timestamp_utc: ts,
      session_date: market.sessionDate,
      exchange: market.exchange,
      symbol: market.symbol,
      expiration,
      strike,
      strike_call_gex: 1,
      strike_put_gex: 2,
      strike_net_gex: -1,
      strike_call_oi: 3,
      strike_put_oi: '4E2',
    })),
  );
}

export function rowsFor(kind: FileKind, market: Market): Row[] {
  if (kind === 'levels') return levelsRows(market);
  if (kind === 'strikes_total') return strikesTotalRows(market);
  return strikesByExpiryRows(market);
}

export function toCsv(header: readonly string[], rows: readonly Row[]): string {
  const cell = (value: string | number | null | undefined): string => (value === null || value === undefined ? '' : String(value));
  return [header.join(','), ...rows.map((row) => header.map((name) => cell(row[name])).join(','))].join('\n') + '\n';
}

export interface FixtureOptions {
  header?: string[];
  rows?: Row[];
  /** Manifest row count to claim (defaults to the real count). */
  manifestRows?: number;
  name?: string;
}

/** Writes a gzip CSV into `dir` and returns the LoadInput a sync would pass. */
export function writeFixture(dir: string, kind: FileKind, market: Market, options: FixtureOptions = {}): LoadInput {
  const rows = options.rows ?? rowsFor(kind, market);
  const bytes = gzipSync(toCsv(options.header ?? HEADERS[kind], rows));
  const name = options.name ?? `${market.exchange}_${market.symbol}_${market.sessionDate}_${kind}.csv.gz`;
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return {
    exchange: market.exchange,
    symbol: market.symbol,
    sessionDate: market.sessionDate,
    file: kind,
    path,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    bytes: bytes.length,
    rows: options.manifestRows ?? rows.length,
    archivePath: `${market.exchange}/${market.symbol}/${market.sessionDate}_${kind}.csv.gz`,
    downloadedAt: new Date('2026-11-21T01:00:00Z'),
  };
}

export function makeTempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'gexwh-wh-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A fresh migrated warehouse in a temp folder (a copy of the worker's template), closed and removed afterwards. */
export async function withWarehouse<T>(fn: (wh: Warehouse, dir: string) => Promise<T>): Promise<T> {
  const { dir, cleanup } = makeTempDir();
  const path = join(dir, 'db', 'gex.duckdb');
  seedWarehouse(await migratedTemplate(), path);
  const wh = await openWarehouse(path);
  try {
    return await fn(wh, dir);
  } finally {
    wh.close();
    cleanup();
  }
}

export async function query(wh: Warehouse, sql: string, params: Array<string | number | null> = []): Promise<Array<Record<string, unknown>>> {
  const reader = await wh.connection.runAndReadAll(sql, params);
  return reader.getRowObjectsJson() as Array<Record<string, unknown>>;
}
