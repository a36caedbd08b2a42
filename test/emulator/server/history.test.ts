import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../../emulator/index.js';
import { LEVELS_FIELD_NAMES } from '../../../emulator/market/types.js';
import { call, fetchLink, parseCsvGz, smallEmulator } from './helpers.js';

let em: Emulator;
beforeAll(async () => {
  em = await smallEmulator();
});
afterAll(() => em.close());

type Row = Record<string, unknown> & { timestamp_utc: string; session_date: string; type: string };

describe('/history/levels', () => {
  test('defaults: granularity close, end = end of the current 15m slot, start = end - 30 days', async () => {
    const answer = await call(em, '/history/levels/combined/BTC');
    expect(answer.status).toBe(200);
    expect(answer.body.meta).toMatchObject({
      granularity: 'close',
      start: '2026-02-09T14:15:00Z',
      end: '2026-03-11T14:15:00Z',
      next_cursor: null,
      exchange: 'combined',
      exchange_resolved: 'combined',
      symbol: 'BTC',
      market: 'crypto',
    });
    const rows = answer.body.data as Row[];
    expect(rows.map((r) => r.session_date)).toEqual(['2026-03-06', '2026-03-07', '2026-03-08', '2026-03-09', '2026-03-10', '2026-03-11']);
    expect(rows.slice(0, 5).every((r) => r.type === 'close' && r.timestamp_utc.endsWith('T23:45:00Z'))).toBe(true);
    expect(rows[5]).toMatchObject({ type: 'intraday', timestamp_utc: '2026-03-11T14:00:00Z' });
  });

  test('rows carry the history row fields in order, TOTAL only, max_pain null', async () => {
    const [row] = (await call(em, '/history/levels/deribit/BTC?start=2026-03-10&end=2026-03-10T00:15:00Z&granularity=15m')).body.data as Row[];
    expect(Object.keys(row!)).toEqual(['schema_version', 'timestamp_utc', 'session_date', 'type', 'exchange', 'symbol', 'oi_date', ...LEVELS_FIELD_NAMES]);
    expect(row).toMatchObject({ schema_version: 1, exchange: 'deribit', symbol: 'BTC', oi_date: '2026-03-09', max_pain: null, type: 'intraday' });
  });

  test('1h keeps the last capture of each UTC hour', async () => {
    const rows = (await call(em, '/history/levels/combined/BTC?start=2026-03-10T00:00:00Z&end=2026-03-10T03:00:00Z&granularity=1h')).body.data as Row[];
    expect(rows.map((r) => r.timestamp_utc)).toEqual(['2026-03-10T00:45:00Z', '2026-03-10T01:45:00Z', '2026-03-10T02:45:00Z']);
  });

  test('TradFi close rows are the 16:00 New York capture of weekdays only', async () => {
    const rows = (await call(em, '/history/levels/tradfi/SPY?start=2026-03-06&end=2026-03-11')).body.data as Row[];
    expect(rows.map((r) => r.session_date)).toEqual(['2026-03-06', '2026-03-09', '2026-03-10']);
    expect(rows.map((r) => r.timestamp_utc)).toEqual(['2026-03-06T21:00:00Z', '2026-03-09T20:00:00Z', '2026-03-10T20:00:00Z']);
    expect(rows.every((r) => r.type === 'close' && r.exchange === 'tradfi')).toBe(true);
  });

  test('window limits: 15m 31 days, 1h 180 days, close unlimited', async () => {
    const tooLong = await call(em, '/history/levels/combined/BTC?granularity=15m&start=2026-02-01&end=2026-03-05');
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toMatchObject({ error: 'range_too_large', max_window_days: 31 });
    expect((await call(em, '/history/levels/combined/BTC?granularity=15m&start=2026-02-01&end=2026-03-04')).status).toBe(200);
    expect((await call(em, '/history/levels/combined/BTC?granularity=1h&start=2025-09-01')).body.max_window_days).toBe(180);
    expect((await call(em, '/history/levels/combined/BTC?granularity=close&start=2020-01-01')).status).toBe(200);
  });

  test('invalid_param: unknown granularity (valid_values), bad dates, years, start after end', async () => {
    const granularity = await call(em, '/history/levels/combined/BTC?granularity=daily');
    expect(granularity.body).toMatchObject({ error: 'invalid_param', valid_values: ['15m', '1h', 'close'] });
    for (const query of [
      'start=yesterday',
      'start=2019-12-31',
      'end=2101-01-01',
      'start=2026-03-10&end=2026-03-09',
      'start=2026-02-30',
      'cursor=abc',
      'bogus=1',
    ]) {
      const answer = await call(em, `/history/levels/combined/BTC?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error, query).toBe('invalid_param');
    }
  });

  test('an empty window is [] and start = end is not an error', async () => {
    const before = await call(em, '/history/levels/combined/BTC?start=2026-01-01&end=2026-02-01');
    expect(before.status).toBe(200);
    expect(before.body.data).toEqual([]);
    expect((await call(em, '/history/levels/combined/BTC?start=2026-03-10&end=2026-03-10')).body.data).toEqual([]);
  });

  test('venue subsets and binance are history_not_available; tradfi on a crypto coin is invalid_pair', async () => {
    for (const exchange of ['deribit+okx', 'binance']) {
      const answer = await call(em, `/history/levels/${exchange}/BTC`);
      expect(answer.body).toMatchObject({ error: 'history_not_available', valid_exchanges: ['bybit', 'deribit', 'okx', 'derive', 'combined', 'all'] });
    }
    expect((await call(em, '/history/levels/tradfi/BTC')).body.error).toBe('invalid_pair');
    expect((await call(em, '/history/levels/nasdaq/BTC')).body.error).toBe('invalid_exchange');
    const alias = await call(em, '/history/levels/all/SPY');
    expect(alias.body.meta).toMatchObject({ exchange: 'all', exchange_resolved: 'tradfi' });
  });
});

describe('/history/levels paging', () => {
  test('next_cursor pages cover the window without overlap or gap', async () => {
    const paged = await smallEmulator({ historyPageRows: 100 });
    try {
      const base = '/history/levels/combined/BTC?granularity=15m&start=2026-03-06&end=2026-03-11T12:00:00Z';
      const whole = (await call(em, base)).body.data as Row[];
      expect(whole).toHaveLength(5 * 96 + 48);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const answer = await call(paged, cursor === null ? base : `${base}&cursor=${encodeURIComponent(cursor)}`);
        expect(answer.status).toBe(200);
        const rows = answer.body.data as Row[];
        expect(rows.length).toBeLessThanOrEqual(100);
        seen.push(...rows.map((r) => r.timestamp_utc));
        cursor = answer.body.meta.next_cursor;
        pages += 1;
      } while (cursor !== null);
      expect(pages).toBe(6);
      expect(seen).toEqual(whole.map((r) => r.timestamp_utc));
      expect(paged.counters.requests(paged.keys.pro)).toBe(6);
    } finally {
      await paged.close();
    }
  });

  test('a cursor only continues the same exchange, coin, end and granularity; it replaces start', async () => {
    const paged = await smallEmulator({ historyPageRows: 10 });
    try {
      const base = '/history/levels/combined/BTC?granularity=15m&start=2026-03-10&end=2026-03-11';
      const first = await call(paged, base);
      const cursor = encodeURIComponent(first.body.meta.next_cursor);
      expect((await call(paged, `/history/levels/deribit/BTC?granularity=15m&end=2026-03-11&cursor=${cursor}`)).body.error).toBe('invalid_param');
      expect((await call(paged, `/history/levels/combined/BTC?granularity=1h&end=2026-03-11&cursor=${cursor}`)).body.error).toBe('invalid_param');
      expect((await call(paged, `/history/levels/combined/BTC?granularity=15m&end=2026-03-10T23:00:00Z&cursor=${cursor}`)).body.error).toBe('invalid_param');
      const second = await call(paged, `/history/levels/combined/BTC?granularity=15m&start=2020-01-01&end=2026-03-11&cursor=${cursor}`);
      expect(second.status).toBe(200);
      expect(second.body.data[0].timestamp_utc).toBe('2026-03-10T02:30:00Z');
    } finally {
      await paged.close();
    }
  });
});

describe('/history/snapshot', () => {
  test('returns the nearest capture within 15 minutes, strikes within ±25% of spot, sorted', async () => {
    const answer = await call(em, '/history/snapshot/combined/BTC?at=2026-03-10T10:08:00Z');
    expect(answer.status).toBe(200);
    expect(answer.body.meta.snapshot_at).toBe('2026-03-10T10:15:00Z');
    const data = answer.body.data;
    expect(data).toMatchObject({ timestamp_utc: '2026-03-10T10:15:00Z', expiration: 'TOTAL', dte: null, max_pain: null, type: 'intraday' });
    const strikes = data.strikes as { strike: number }[];
    expect(strikes.length).toBeGreaterThan(0);
    expect(strikes.map((s) => s.strike)).toEqual([...strikes.map((s) => s.strike)].sort((a, b) => a - b));
    expect(strikes.every((s) => Math.abs(s.strike - data.spot) <= 0.25 * data.spot)).toBe(true);
    expect(Object.keys(strikes[0]!)).toEqual(['strike', 'call_gex', 'put_gex', 'net_gex', 'call_oi', 'put_oi']);
  });

  test('the last capture of a completed session is type close', async () => {
    const answer = await call(em, '/history/snapshot/combined/BTC?at=2026-03-09T23:50:00Z');
    expect(answer.body.data).toMatchObject({ timestamp_utc: '2026-03-09T23:45:00Z', type: 'close' });
  });

  test('a single expiration (ISO) sets max_pain and dte; codes are invalid_param', async () => {
    const at = '2026-03-10T12:00:00Z';
    const listed = (await call(em, `/history/snapshot/combined/BTC?at=${at}`)).body;
    expect(listed.status).toBeUndefined();
    const expirations = await call(em, '/expirations/all/BTC');
    const iso = expirations.body.data.expirations_detail[1].iso;
    const one = await call(em, `/history/snapshot/combined/BTC?at=${at}&expiration=${iso}`);
    expect(one.status).toBe(200);
    expect(one.body.data.expiration).toBe(iso);
    expect(one.body.data.max_pain).toEqual(expect.any(Number));
    expect(one.body.data.dte).toBeGreaterThan(0);
    const code = expirations.body.data.expirations[1];
    expect((await call(em, `/history/snapshot/combined/BTC?at=${at}&expiration=${code}`)).body.error).toBe('invalid_param');
  });

  test('no capture within 15 minutes is 404 no_snapshot with up to three nearest_timestamps', async () => {
    const weekend = await call(em, '/history/snapshot/tradfi/SPY?at=2026-03-07T15:00:00Z');
    expect(weekend.status).toBe(404);
    expect(weekend.body.error).toBe('no_snapshot');
    expect(weekend.body.nearest_timestamps).toEqual(['2026-03-06T20:30:00Z', '2026-03-06T20:45:00Z', '2026-03-06T21:00:00Z']);
    const beforeHistory = await call(em, '/history/snapshot/combined/BTC?at=2026-01-01T00:00:00Z');
    expect(beforeHistory.body.nearest_timestamps).toEqual(['2026-03-06T00:00:00Z', '2026-03-06T00:15:00Z', '2026-03-06T00:30:00Z']);
  });

  test('at is required and must parse within 2020-2100', async () => {
    for (const query of ['', '?at=noon', '?at=2019-06-01T00:00:00Z', '?at=2026-03-10T10:00:00Z&expiration=tomorrow']) {
      const answer = await call(em, `/history/snapshot/combined/BTC${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.error, query).toBe('invalid_param');
    }
  });
});

describe('/history/timestamps and /history/coverage', () => {
  test('timestamps of a session date, oldest first; only past captures; empty outside history', async () => {
    const day = await call(em, '/history/timestamps/combined/BTC?date=2026-03-10');
    expect(day.body.data).toHaveLength(96);
    expect(day.body.data[0]).toBe('2026-03-10T00:00:00Z');
    expect(day.body.meta).toMatchObject({ session_date: '2026-03-10', symbol: 'BTC', exchange_resolved: 'combined' });
    const today = await call(em, '/history/timestamps/combined/BTC?date=2026-03-11');
    expect(today.body.data.at(-1)).toBe('2026-03-11T14:00:00Z');
    expect((await call(em, '/history/timestamps/combined/BTC?date=2026-01-05')).body.data).toEqual([]);
    expect((await call(em, '/history/timestamps/combined/BTC')).body.error).toBe('invalid_param');
    expect((await call(em, '/history/timestamps/combined/BTC?date=2101-01-01')).body.error).toBe('invalid_param');
  });

  test('coverage lists every (exchange, symbol) with history; free; meta has only timestamp', async () => {
    const answer = await call(em, '/history/coverage');
    expect(Object.keys(answer.body.meta)).toEqual(['timestamp']);
    const rows = answer.body.data as Record<string, unknown>[];
    expect(rows).toContainEqual({
      exchange: 'combined',
      symbol: 'BTC',
      first_ts: '2026-03-06T00:00:00Z',
      last_ts: '2026-03-11T14:00:00Z',
      sessions: 6,
      files_first_date: '2026-03-06',
      files_last_date: '2026-03-10',
    });
    expect(rows.some((r) => r.exchange === 'binance')).toBe(false);
    expect(rows.filter((r) => r.symbol === 'SPY').map((r) => r.exchange)).toEqual(['tradfi']);
  });

  test('coverage is cached for coverageCacheSeconds of emulator clock', async () => {
    const cached = await smallEmulator({ coverageCacheSeconds: 3600 });
    try {
      const first = (await call(cached, '/history/coverage')).body.data[0];
      cached.clock.advance(59 * 60_000);
      expect((await call(cached, '/history/coverage')).body.data[0]).toEqual(first);
      cached.clock.advance(60_000);
      const fresh = (await call(cached, '/history/coverage')).body.data[0];
      expect(fresh.last_ts).toBe('2026-03-11T15:00:00Z');
    } finally {
      await cached.close();
    }
  });
});

describe('one capture, one set of numbers', () => {
  test('/history/snapshot, /history/levels and the levels daily file agree on a capture', async () => {
    const at = '2026-03-09T17:30:00Z';
    const snapshot = (await call(em, `/history/snapshot/deribit/ETH?at=${at}`)).body.data;
    const [row] = (await call(em, `/history/levels/deribit/ETH?granularity=15m&start=${at}&end=2026-03-09T17:45:00Z`)).body.data as Row[];
    const link = (await call(em, '/history/files/deribit/ETH/2026-03-09/levels')).headers.get('location')!;
    const fileRow = parseCsvGz((await fetchLink(link)).bytes).find((r) => r.timestamp_utc === at && r.expiration === 'TOTAL')!;
    expect(fileRow).toBeDefined();
    for (const field of ['timestamp_utc', 'session_date', 'type', 'exchange', 'symbol', 'oi_date', ...LEVELS_FIELD_NAMES]) {
      expect(row![field], field).toEqual(snapshot[field]);
      const value = snapshot[field];
      const text = value === null ? '' : String(value);
      expect(fileRow[field], field).toBe(text);
    }
  });

  test('a per-expiration snapshot agrees with the file row of that expiration', async () => {
    const at = '2026-03-08T06:00:00Z';
    const exp = (await call(em, `/history/snapshot/combined/SOL?at=${at}`)).body.data;
    expect(exp.expiration).toBe('TOTAL');
    const link = (await call(em, '/history/files/combined/SOL/2026-03-08/levels')).headers.get('location')!;
    const rows = parseCsvGz((await fetchLink(link)).bytes).filter((r) => r.timestamp_utc === at && r.expiration !== 'TOTAL');
    const first = rows[0]!;
    const one = (await call(em, `/history/snapshot/combined/SOL?at=${at}&expiration=${first.expiration}`)).body.data;
    expect(String(one.max_pain)).toBe(first.max_pain);
    expect(String(one.net_gex)).toBe(first.net_gex);
    expect(String(one.dte)).toBe(first.dte);
  });
});
