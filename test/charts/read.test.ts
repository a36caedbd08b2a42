// The reads behind the charts on a warehouse with two captures: a time between them draws the
// earlier one (never the later), the staleness limit drops a capture too old, and names are checked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCloses, readProfile, readTerm, resolvePair } from '../../src/charts/read.js';
import { openWarehouse, IN_MEMORY, type Warehouse } from '../../src/warehouse/index.js';
import { rebuildSessionCloses } from '../../src/warehouse/session-closes.js';

let wh: Warehouse;
const PAIR = { exchange: 'deribit', symbol: 'BTC' };
const EARLY = '2026-03-10 14:00:00+00';
const LATE = '2026-03-10 14:15:00+00';

beforeAll(async () => {
  wh = await openWarehouse(IN_MEMORY);
  const c = wh.connection;
  for (const [ts, spot, flip, wall] of [
    [EARLY, 100_000, 99_000, 101_000],
    [LATE, 110_000, 108_000, 112_000],
  ] as const) {
    await c.run(
      `INSERT INTO levels (exchange, symbol, session_date, timestamp_utc, type, expiration, spot, flip, regime, p1_strike, n1_strike,
                           net_gex, call_gex, put_gex, call_oi_total, put_oi_total, source)
       VALUES ('deribit', 'BTC', DATE '2026-03-10', TIMESTAMPTZ '${ts}', 'intraday', 'TOTAL', ${spot}, ${flip}, 'positive', ${wall}, ${wall - 5000},
               4e6, 9e6, 5e6, 1200, 900, 'file')`,
    );
    for (const strike of [spot - 1000, spot, spot + 1000]) {
      await c.run(
        `INSERT INTO strikes_total (exchange, symbol, session_date, timestamp_utc, strike, call_gex, put_gex, net_gex, call_oi, put_oi)
         VALUES ('deribit', 'BTC', DATE '2026-03-10', TIMESTAMPTZ '${ts}', ${strike}, 2e6, 1e6, 1e6, 40, 30)`,
      );
    }
  }
  await c.run(
    `INSERT INTO sync.files (exchange, symbol, session_date, file, sha256, status, updated_at)
     VALUES ('deribit', 'BTC', DATE '2026-03-10', 'levels', 'x', 'loaded', now())`,
  );
  await rebuildSessionCloses(c); // as the loader keeps the close marker with the levels it writes
});
afterAll(() => wh.close());

describe('readProfile', () => {
  it('a time between two captures draws the earlier one, never the later', async () => {
    const between = await readProfile(wh.connection, PAIR, 'TOTAL', { at: new Date('2026-03-10T14:14:59Z') });
    expect(between).toMatchObject({
      capturedAt: '2026-03-10T14:00:00Z',
      askedAt: '2026-03-10T14:14:59Z',
      spot: 100_000,
      flip: 99_000,
      callWall: 101_000,
      putWall: 96_000,
    });
    expect(between.strikes.map((s) => s.strike)).toEqual([99_000, 100_000, 101_000]);
    const exact = await readProfile(wh.connection, PAIR, 'TOTAL', { at: new Date('2026-03-10T14:15:00Z') });
    expect(exact.capturedAt).toBe('2026-03-10T14:15:00Z');
    const latest = await readProfile(wh.connection, PAIR, 'TOTAL', {});
    expect(latest).toMatchObject({ capturedAt: '2026-03-10T14:15:00Z', spot: 110_000 });
    expect(latest.askedAt).toBeUndefined();
  });

  it("reads the capture's totals, each strike's open interest and the net GEX summed from the lowest strike", async () => {
    const profile = await readProfile(wh.connection, PAIR, 'TOTAL', {});
    expect(profile.totals).toEqual({ netGex: 4e6, callGex: 9e6, putGex: 5e6, callOi: 1200, putOi: 900 });
    expect(profile.strikes.map((s) => [s.strike, s.callOi, s.putOi, s.cumulativeNetGex])).toEqual([
      [109_000, 40, 30, 1e6],
      [110_000, 40, 30, 2e6],
      [111_000, 40, 30, 3e6],
    ]);
  });

  it('before the first capture, or past the staleness limit, there is nothing to draw', async () => {
    await expect(readProfile(wh.connection, PAIR, 'TOTAL', { at: new Date('2026-03-10T13:59:59Z') })).rejects.toThrow(
      'no strikes capture of deribit BTC at or before 2026-03-10 13:59:59Z',
    );
    await expect(readProfile(wh.connection, PAIR, 'TOTAL', { at: new Date('2026-03-10T14:14:00Z'), maxStalenessSeconds: 600 })).rejects.toThrow(
      /within --max-staleness 600 s/,
    );
    const fresh = await readProfile(wh.connection, PAIR, 'TOTAL', { at: new Date('2026-03-10T14:14:00Z'), maxStalenessSeconds: 900 });
    expect(fresh.capturedAt).toBe('2026-03-10T14:00:00Z');
  });
});

describe('an expiration the captures do not hold', () => {
  it('names the expirations the latest capture holds, and the first capture with any before a --at too early', async () => {
    const c = wh.connection;
    for (const [ts, expiry] of [
      [EARLY, '2026-03-13'],
      [LATE, '2026-03-13'],
      [LATE, '2026-03-27'],
    ] as const) {
      await c.run(
        `INSERT INTO strikes_by_expiry (exchange, symbol, session_date, timestamp_utc, expiration_date, strike, call_gex, put_gex, net_gex, call_oi, put_oi)
         VALUES ('deribit', 'BTC', DATE '2026-03-10', TIMESTAMPTZ '${ts}', DATE '${expiry}', 100000, 1, 1, 0, 1, 1)`,
      );
    }
    try {
      const unknown = readProfile(c, PAIR, '2099-01-01', {});
      await expect(unknown).rejects.toThrow(
        'no capture of deribit BTC holds expiration 2099-01-01; the latest, 2026-03-10 14:15:00Z, holds 2026-03-13, 2026-03-27: pass one of them to --expiration',
      );
      await expect(readProfile(c, PAIR, '2099-01-01', {})).rejects.toMatchObject({
        hints: { captured_at: '2026-03-10T14:15:00Z', expirations: ['2026-03-13', '2026-03-27'] },
      });
      // At the earlier capture only one expiration was held.
      await expect(readProfile(c, PAIR, '2026-03-27', { at: new Date('2026-03-10T14:05:00Z') })).rejects.toThrow(
        /the latest, 2026-03-10 14:00:00Z, holds 2026-03-13:/,
      );
      await expect(readProfile(c, PAIR, '2026-03-13', { at: new Date('2026-03-09T00:00:00Z') })).rejects.toThrow(
        /at or before 2026-03-09 00:00:00Z holds per-expiration strikes; the first with per-expiration strikes is 2026-03-10 14:00:00Z/,
      );
    } finally {
      await c.run('DELETE FROM strikes_by_expiry');
    }
  });
});

describe('readCloses and readTerm', () => {
  it('the session close is the last capture', async () => {
    const series = await readCloses(wh.connection, PAIR, { sessions: 30 });
    expect(series.closes).toHaveLength(1);
    expect(series.closes[0]).toMatchObject({ sessionDate: '2026-03-10', capturedAt: '2026-03-10T14:15:00Z', spot: 110_000, callWall: 112_000 });
    await expect(readCloses(wh.connection, PAIR, { from: '2026-04-01', sessions: 30 })).rejects.toThrow(
      /no session of deribit BTC in levels_close between 2026-04-01 and the latest/,
    );
  });

  it('no captured term structure says how to capture it', async () => {
    await expect(readTerm(wh.connection, PAIR, {})).rejects.toThrow(/the history files do not hold it: gexwh capture --symbol BTC captures it/);
  });
});

describe('resolvePair', () => {
  it('accepts any case and names the closest held pair when unknown', async () => {
    expect(await resolvePair(wh.connection, { exchange: 'Deribit', symbol: 'btc' })).toEqual(PAIR);
    await expect(resolvePair(wh.connection, { exchange: 'deribit', symbol: 'BTX' })).rejects.toThrow(/BTX: no history in the warehouse .*did you mean BTC\?/);
    await expect(resolvePair(wh.connection, { exchange: 'okx', symbol: 'BTC' })).rejects.toThrow(/okx: no history/);
  });
});
