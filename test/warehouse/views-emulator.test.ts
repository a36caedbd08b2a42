// levels_compare agrees with the emulator's /levels?compare=1d,7d,30d at the same clock: the
// warehouse holds the emulator's daily levels files of past sessions plus the live capture (as an
// api fill of today's session), so "today" is the same session on both sides.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { LEVELS_FIELDS } from '../../src/warehouse/layouts.js';
import { loadFiles, type LoadInput } from '../../src/warehouse/loader.js';
import type { Warehouse } from '../../src/warehouse/open.js';
import { query, withWarehouse } from './fixtures.js';

/** Monday 2026-03-16 14:07 UTC: 10:07 in New York (EDT), so TradFi is in session; crypto too. */
const NOW = new Date('2026-03-16T14:07:00Z');
const PERIODS = ['1d', '7d', '30d'] as const;
const DELTAS = ['spot', 'flip', 'net_gex', 'abs_gex', 'p1_strike', 'n1_strike', 's_price', 'v_price'] as const;

let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator({ now: NOW, days: 36, expirations: 2, strikes: 8, seed: 11, symbols: ['BTC', 'SPY'] });
});

afterAll(async () => {
  await emulator?.close();
});

function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** Writes the emulator's levels file of every completed session of [from, to] and loads them. */
async function loadHistory(wh: Warehouse, dir: string, exchange: string, symbol: string, from: string, to: string): Promise<number> {
  const market = emulator.market.symbolInfo(symbol)!.market;
  const inputs: LoadInput[] = [];
  for (let date = from; date <= to; date = addDays(date, 1)) {
    if (emulator.market.sessionCaptures(market, date).length === 0) continue; // TradFi weekend
    const daily = emulator.market.dailyFile(exchange, symbol, date, 'levels', 0);
    const path = join(dir, `${exchange}_${symbol}_${date}_levels.csv.gz`);
    writeFileSync(path, daily.bytes);
    inputs.push({
      exchange,
      symbol,
      sessionDate: date,
      file: 'levels',
      path,
      sha256: daily.sha256,
      bytes: daily.bytes.length,
      rows: daily.rows,
      archivePath: path,
      downloadedAt: NOW,
    });
  }
  const report = await loadFiles(wh.connection, inputs);
  expect(report.failed).toEqual([]);
  return inputs.length;
}

async function levelsWithCompare(exchange: string, symbol: string) {
  const res = await fetch(`${emulator.baseUrl}/api/v1/levels/${exchange}/${symbol}?compare=1d,7d,30d`, { headers: { 'X-API-Key': emulator.keys.admin } });
  expect(res.status).toBe(200);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON under test
  return (await res.json()) as { data: Record<string, any>; meta: Record<string, any> };
}

/** The live levels as an api fill of today's session (what `sync --fill-levels` would hold). */
async function insertLive(wh: Warehouse, exchange: string, symbol: string, data: Record<string, unknown>, asOf: string): Promise<void> {
  const market = emulator.market.symbolInfo(symbol)!.market;
  const columns = LEVELS_FIELDS.join(', ');
  const params = LEVELS_FIELDS.map((_, i) => `$${i + 6}`).join(', ');
  await wh.connection.run(
    `INSERT INTO levels (exchange, symbol, session_date, timestamp_utc, type, expiration, source, ${columns})
     VALUES ($1, $2, $3::DATE, $4::TIMESTAMPTZ, $5, 'TOTAL', 'api', ${params})`,
    [
      exchange,
      symbol,
      emulator.market.sessionDateOf(market, NOW),
      asOf,
      'intraday',
      ...LEVELS_FIELDS.map((field) => (data[field] ?? null) as string | number | null),
    ],
  );
}

function close(actual: unknown, expected: unknown): boolean {
  if (actual === null || expected === null) return actual === expected;
  const a = Number(actual);
  const b = Number(expected);
  // The emulator rounds deltas to two decimals; big GEX numbers also carry float noise.
  return Math.abs(a - b) <= 0.006 + Math.abs(b) * 1e-9;
}

describe('levels_compare agrees with the emulator’s /levels compare', () => {
  for (const [exchange, symbol] of [
    ['deribit', 'BTC'],
    ['tradfi', 'SPY'],
  ] as const) {
    it(`${exchange}/${symbol}`, async () => {
      await withWarehouse(async (wh, dir) => {
        const loaded = await loadHistory(wh, dir, exchange, symbol, '2026-02-10', '2026-03-15');
        expect(loaded).toBeGreaterThan(20);
        const { data, meta } = await levelsWithCompare(exchange, symbol);
        await insertLive(wh, exchange, symbol, data, String(meta.as_of));
        const [row] = await query(
          wh,
          `SELECT * EXCLUDE (timestamp_utc), strftime(timestamp_utc, '%Y-%m-%dT%H:%M:%SZ') AS timestamp_utc,
            ${PERIODS.map((p) => `strftime(ref_timestamp_utc_${p}, '%Y-%m-%dT%H:%M:%SZ') AS ref_ts_${p}`).join(', ')}
            FROM levels_compare WHERE exchange = $1 AND symbol = $2`,
          [exchange, symbol],
        );
        expect(row?.timestamp_utc).toBe(meta.as_of);
        for (const period of PERIODS) {
          const entry = data.compare[period];
          expect(entry, `${period} has history`).not.toBeNull();
          expect({ period, session: row?.[`ref_session_date_${period}`], ts: row?.[`ref_ts_${period}`], type: row?.[`ref_type_${period}`] }).toEqual({
            period,
            session: entry.session_date,
            ts: entry.timestamp_utc,
            type: entry.type,
          });
          for (const field of DELTAS) {
            const ours = row?.[`${field}_delta_${period}`];
            const theirs = entry.delta[field];
            expect(close(ours, theirs), `${period} ${field}: warehouse ${String(ours)} vs emulator ${String(theirs)}`).toBe(true);
          }
        }
        // TradFi's Monday 1d reference is Sunday, which gives Friday's close.
        if (symbol === 'SPY') expect(data.compare['1d'].session_date).toBe('2026-03-13');
      });
    }, 60_000);
  }
});
