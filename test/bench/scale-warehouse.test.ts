// The scale benchmark's generator and questions on a few days (no timing): the warehouse has the
// shape the generator promises, and every view, macro and recipe agrees with its hand-written twins.
import { describe, expect, it } from 'vitest';
import { openWarehouse, IN_MEMORY } from '../../src/warehouse/index.js';
import { DEFAULT_SHAPE, SCALE_PAIRS, capturesPerSession, growScaleWarehouse, rowsPerCapture, sessionDates } from '../../bench/scale-warehouse.js';
import { scaleQueries } from '../../bench/scale-queries.js';
import { daysOfMonths, fingerprint, parseScaleArgs } from '../../bench/scenario-scale.js';

const LAST = '2026-11-23'; // a Monday: 4 dates hold 4 crypto sessions each and 2 TradFi sessions (Fri, Mon)
const DAYS = 4;
const SHAPE = { expirations: 6, strikes: 12, fullExpirations: 2, bandStrikes: 4 };

async function withScaleWarehouse(work: (conn: Awaited<ReturnType<typeof openWarehouse>>['connection']) => Promise<void>): Promise<void> {
  const warehouse = await openWarehouse(IN_MEMORY);
  try {
    await growScaleWarehouse(warehouse.connection, { lastSession: LAST, days: DAYS, shape: SHAPE });
    await work(warehouse.connection);
  } finally {
    warehouse.close();
  }
}

async function rows(conn: Awaited<ReturnType<typeof openWarehouse>>['connection'], sql: string): Promise<Record<string, unknown>[]> {
  return (await conn.runAndReadAll(sql))
    .getRowObjectsJS()
    .map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])));
}

describe('scale warehouse', () => {
  it('session dates, months and arguments', () => {
    expect(sessionDates('2026-03-01', 3)).toEqual(['2026-02-27', '2026-02-28', '2026-03-01']);
    expect(daysOfMonths(24)).toBe(731);
    expect(rowsPerCapture(DEFAULT_SHAPE)).toEqual({ levels: 41, strikes_total: 120, strikes_by_expiry: 4 * 120 + 36 * 30 });
    expect(parseScaleArgs(['--scale', '6', '--runs', '7'], {})).toMatchObject({ months: 6, runs: 7, buildOnly: false });
    expect(parseScaleArgs([], {})).toBeUndefined();
    expect(() => parseScaleArgs(['--scale', 'x'], {})).toThrow(/whole months/);
  });

  it('grows every pair session by session with the promised shape, unique captures and matching ledger rows', async () => {
    await withScaleWarehouse(async (conn) => {
      const perCapture = rowsPerCapture(SHAPE);
      const got = await rows(
        conn,
        `SELECT exchange, symbol, count(DISTINCT session_date) AS sessions, count(DISTINCT timestamp_utc) AS captures, count(*) AS n,
                count(DISTINCT (timestamp_utc, expiration)) AS unique_keys, count(*) FILTER (WHERE type = 'close') AS closes
           FROM levels GROUP BY ALL ORDER BY exchange, symbol`,
      );
      const expected = [...SCALE_PAIRS]
        .sort((a, b) => `${a.exchange}|${a.symbol}`.localeCompare(`${b.exchange}|${b.symbol}`))
        .map((pair) => {
          const sessions = pair.tradfi ? 2 : DAYS;
          const captures = sessions * capturesPerSession(pair);
          return {
            exchange: pair.exchange,
            symbol: pair.symbol,
            sessions,
            captures,
            n: captures * perCapture.levels,
            unique_keys: captures * perCapture.levels,
            closes: sessions * perCapture.levels,
          };
        });
      expect(got).toEqual(expected);
      const counts = await rows(
        conn,
        `SELECT (SELECT count(*) FROM strikes_total) AS st, (SELECT count(*) FROM strikes_by_expiry) AS sbe,
                (SELECT count(*) FROM strikes_by_expiry s ANTI JOIN levels l USING (exchange, symbol, session_date, timestamp_utc, expiration_date)) AS orphans,
                (SELECT sum(rows) FROM sync.files WHERE file = 'strikes_by_expiry' AND status = 'loaded') AS ledger_sbe,
                (SELECT min(timestamp_utc)::VARCHAR FROM levels WHERE symbol = 'SPY') AS spy_open`,
      );
      const captures = SCALE_PAIRS.reduce((sum, pair) => sum + (pair.tradfi ? 2 : DAYS) * capturesPerSession(pair), 0);
      expect(counts).toEqual([
        {
          st: captures * perCapture.strikes_total,
          sbe: captures * perCapture.strikes_by_expiry,
          orphans: 0,
          ledger_sbe: captures * perCapture.strikes_by_expiry,
          spy_open: '2026-11-20 14:30:00+00', // 09:30 New York
        },
      ]);
    });
  });

  it('keeps session_closes as the loader does: one marker per pair and session, its last TOTAL capture', async () => {
    await withScaleWarehouse(async (conn) => {
      const markers = `SELECT exchange, symbol, session_date::VARCHAR AS d, timestamp_utc::VARCHAR AS ts FROM session_closes ORDER BY ALL`;
      const truth = `SELECT exchange, symbol, session_date::VARCHAR AS d, max(timestamp_utc)::VARCHAR AS ts FROM levels
                      WHERE expiration = 'TOTAL' GROUP BY ALL ORDER BY ALL`;
      const got = await rows(conn, markers);
      expect(got).toHaveLength(SCALE_PAIRS.reduce((sum, pair) => sum + (pair.tradfi ? 2 : DAYS), 0));
      expect(got).toEqual(await rows(conn, truth));
    });
  });

  it('every view, macro and recipe gives the same rows as its hand-written twins', async () => {
    await withScaleWarehouse(async (conn) => {
      const queries = scaleQueries({ midSession: '2026-11-21', moment: '2026-11-21 14:07:00+00' }, [500]);
      expect(queries.length).toBeGreaterThanOrEqual(15);
      for (const query of queries) {
        for (const statement of query.setup ?? []) await conn.run(statement);
        const view = await fingerprint(conn, query.view);
        expect(JSON.parse(view)[0][0], query.name).not.toBe('0');
        for (const hand of query.hand) expect(await fingerprint(conn, hand), query.name).toBe(view);
      }
    });
  });
});
