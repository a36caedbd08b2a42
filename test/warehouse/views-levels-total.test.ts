// levels_total is a plain filter since sql/005: "a session with a levels file shows only file rows"
// holds in the levels table by construction (the loader deletes a session's api rows when its file
// loads, a fill never writes into a file-backed session), and migration 005 deletes once the api
// rows an older warehouse may hold in file-backed sessions, so the view shows what 003's showed.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { insertApiLevels, type HistoryLevelsRow } from '../../src/warehouse/levels-api.js';
import { writeApiLevels } from '../../src/warehouse/levels-fill.js';
import { loadFiles } from '../../src/warehouse/loader.js';
import { appliedVersions } from '../../src/warehouse/migrations.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/open.js';
import { seededRandom } from '../helpers/random.js';
import { BTC, makeTempDir, query, withWarehouse, writeFixture } from './fixtures.js';

function apiRow(ts: string, spot: number): HistoryLevelsRow {
  return {
    schema_version: 1,
    timestamp_utc: ts,
    session_date: ts.slice(0, 10),
    type: 'intraday',
    exchange: 'bybit',
    symbol: 'BTC',
    oi_date: null,
    spot,
    flip: 1,
    flip_count: 3,
    regime: 'negative',
    net_gex: -5,
    max_pain: null,
    atm_iv: 0.5,
  };
}

const BY_SOURCE = `SELECT session_date::VARCHAR AS d, source, count(*)::INTEGER AS n FROM levels GROUP BY ALL ORDER BY d, source`;
const TOTAL_BY_SOURCE = `SELECT session_date::VARCHAR AS d, source, count(*)::INTEGER AS n FROM levels_total GROUP BY ALL ORDER BY d, source`;

describe('file rows replace api rows in the table, so levels_total needs no anti-join', () => {
  it('api rows filled first are deleted when the session’s levels file loads; other sessions keep theirs', async () => {
    await withWarehouse(async (wh, dir) => {
      // 14:30 is not a capture of the file (14:00, 14:15): a late fill with its own timestamp.
      const fill = [apiRow('2026-11-20T14:00:00Z', 1), apiRow('2026-11-20T14:30:00Z', 2), apiRow('2026-11-21T00:00:00Z', 3)];
      expect(await writeApiLevels(wh.connection, 'bybit', 'BTC', fill)).toBe(3);
      expect(await query(wh, TOTAL_BY_SOURCE)).toEqual([
        { d: '2026-11-20', source: 'api', n: 2 },
        { d: '2026-11-21', source: 'api', n: 1 },
      ]);

      const report = await loadFiles(wh.connection, [writeFixture(dir, 'levels', BTC)]); // 2 captures × (TOTAL + 1 expiry)
      expect(report.failed).toEqual([]);
      expect(await query(wh, BY_SOURCE)).toEqual([
        { d: '2026-11-20', source: 'file', n: 4 },
        { d: '2026-11-21', source: 'api', n: 1 },
      ]);
      expect(await query(wh, TOTAL_BY_SOURCE)).toEqual([
        { d: '2026-11-20', source: 'file', n: 2 },
        { d: '2026-11-21', source: 'api', n: 1 },
      ]);
    });
  });

  it('a fill after the file inserts nothing into that session, whatever its timestamps', async () => {
    await withWarehouse(async (wh, dir) => {
      await loadFiles(wh.connection, [writeFixture(dir, 'levels', BTC)]);
      const late = [apiRow('2026-11-20T14:00:00Z', 1), apiRow('2026-11-20T23:45:00Z', 2)];
      expect(await insertApiLevels(wh.connection, 'bybit', 'BTC', late)).toBe(0);
      expect(await writeApiLevels(wh.connection, 'bybit', 'BTC', late)).toBe(0);
      expect(await query(wh, BY_SOURCE)).toEqual([{ d: '2026-11-20', source: 'file', n: 4 }]);
      expect(await query(wh, `SELECT count(*)::INTEGER AS n FROM levels_total`)).toEqual([{ n: 2 }]);
    });
  });

  it('the view is a plain filter: no subquery over levels', async () => {
    await withWarehouse(async (wh) => {
      const [row] = await query(wh, `SELECT sql FROM duckdb_views() WHERE view_name = 'levels_total'`);
      expect(String(row?.sql)).not.toMatch(/EXISTS/i);
      expect(String(row?.sql)).toMatch(/WHERE\s+\(?expiration = 'TOTAL'\)?/i);
    });
  });
});

interface Capture {
  exchange: string;
  symbol: string;
  session: string;
  ts: string;
  expiration: string;
  spot: number;
  source: 'file' | 'api';
}

async function insertCapture(wh: Warehouse, c: Capture): Promise<void> {
  await wh.connection.run(
    `INSERT INTO levels (exchange, symbol, session_date, timestamp_utc, type, oi_date, expiration, expiration_date, spot, flip, net_gex, source)
     VALUES ($1, $2, $3::DATE, $4::TIMESTAMPTZ, 'intraday', $3::DATE, $5, TRY_CAST($5 AS DATE), $6, $6 - 10, $6 * 2, $7)`,
    [c.exchange, c.symbol, c.session, c.ts, c.expiration, c.spot, c.source],
  );
}

/**
 * A warehouse as an older gexwh could leave it: per (pair, session) file rows only, api rows only,
 * both (api captures at the file's times are impossible: unique key; at other times, late fills),
 * or a file with no TOTAL row next to api rows (003 kept those api rows visible).
 */
function mixedCaptures(seed: number): Capture[] {
  const random = seededRandom(seed);
  const captures: Capture[] = [];
  let spot = 100;
  for (const [exchange, symbol] of [
    ['bybit', 'BTC'],
    ['deribit', 'ETH'],
  ] as const) {
    for (let day = 1; day <= 12; day += 1) {
      const session = `2026-11-${String(day).padStart(2, '0')}`;
      const kind = day === 12 ? 'expiry_file_and_api' : (['file', 'api', 'both', 'none'] as const)[Math.floor(random() * 4)];
      const at = (minute: number) => `${session}T14:${String(minute).padStart(2, '0')}:00Z`;
      const add = (minute: number, expiration: string, source: 'file' | 'api') =>
        captures.push({ exchange, symbol, session, ts: at(minute), expiration, spot: (spot += 1), source });
      if (kind === 'file' || kind === 'both') for (const m of [0, 15]) for (const e of ['TOTAL', '2026-12-25']) add(m, e, 'file');
      if (kind === 'api' || kind === 'both') for (const m of kind === 'both' ? [5, 30] : [0, 15, 30]) add(m, 'TOTAL', 'api');
      if (kind === 'expiry_file_and_api') {
        add(0, '2026-12-25', 'file');
        add(10, 'TOTAL', 'api');
      }
    }
  }
  return captures;
}

const ALL_TOTAL = `SELECT * REPLACE (timestamp_utc::VARCHAR AS timestamp_utc, session_date::VARCHAR AS session_date, oi_date::VARCHAR AS oi_date)
                     FROM levels_total ORDER BY exchange, symbol, timestamp_utc`;

describe('migration 005 on a warehouse written by an older version', () => {
  it('deletes the api rows 003 hid, once, and the new view returns what the old one did', async () => {
    const { dir, cleanup } = makeTempDir();
    const db = join(dir, 'gex.duckdb');
    try {
      const old = await openWarehouse(db, { migrations: { upTo: 4 } }); // 003's levels_total with NOT EXISTS
      let before: Array<Record<string, unknown>>;
      let apiRowsBefore: number;
      try {
        for (const capture of mixedCaptures(5)) await insertCapture(old, capture);
        before = await query(old, ALL_TOTAL);
        apiRowsBefore = Number((await query(old, `SELECT count(*)::INTEGER AS n FROM levels WHERE source = 'api'`))[0]?.n);
      } finally {
        old.close();
      }
      expect(before.length).toBeGreaterThan(0);

      const upgraded = await openWarehouse(db);
      try {
        expect(await appliedVersions(upgraded.connection)).toContain(5);
        expect(await query(upgraded, ALL_TOTAL)).toEqual(before);
        // No api row is left in a session with TOTAL file rows; api-only sessions keep theirs.
        const mixed = await query(
          upgraded,
          `SELECT count(*)::INTEGER AS n FROM levels a
            WHERE a.source = 'api' AND EXISTS (SELECT 1 FROM levels f WHERE f.source = 'file' AND f.expiration = 'TOTAL'
                    AND f.exchange = a.exchange AND f.symbol = a.symbol AND f.session_date = a.session_date)`,
        );
        expect(mixed).toEqual([{ n: 0 }]);
        const apiRowsAfter = Number((await query(upgraded, `SELECT count(*)::INTEGER AS n FROM levels WHERE source = 'api'`))[0]?.n);
        const apiShown = before.filter((row) => row.source === 'api').length;
        expect(apiRowsAfter).toBe(apiShown);
        expect(apiRowsBefore).toBeGreaterThan(apiRowsAfter); // the mix did hold hidden api rows
      } finally {
        upgraded.close();
      }
    } finally {
      cleanup();
    }
  });
});
