import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../../emulator/index.js';
import { LEVELS_FIELD_NAMES } from '../../../emulator/market/types.js';
import { call, smallEmulator } from './helpers.js';

let em: Emulator;
beforeAll(async () => {
  em = await smallEmulator();
});
afterAll(() => em.close());

describe('/levels', () => {
  test('live crypto levels: every levels field, echoed expiration, the full meta', async () => {
    const answer = await call(em, '/levels/all/btc');
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body.data)).toEqual([...LEVELS_FIELD_NAMES, 'expiration', 'expiration_iso']);
    expect(answer.body.data).toMatchObject({ expiration: 'TOTAL', expiration_iso: null, max_pain: null });
    expect(answer.body.meta).toEqual({
      timestamp: '2026-03-11T14:07:00.000Z',
      exchange: 'all',
      coin: 'btc',
      exchange_resolved: 'combined',
      market: 'crypto',
      symbol: 'BTC',
      as_of: '2026-03-11T14:00:00Z',
      oi_as_of: '2026-03-10',
      data_source: 'live',
      is_live: true,
      market_open: true,
      next_open: null,
      units: expect.stringContaining('USD'),
      docs_url: expect.any(String),
      expiration: 'TOTAL',
      expiration_iso: null,
      rate_limit: expect.objectContaining({ limit: 500 }),
    });
  });

  test('live levels equal the history row of the same capture', async () => {
    const live = (await call(em, '/levels/combined/ETH')).body.data;
    const rows = (await call(em, '/history/levels/combined/ETH?granularity=15m&start=2026-03-11T14:00:00Z')).body.data;
    expect(rows).toHaveLength(1);
    for (const field of LEVELS_FIELD_NAMES) expect(rows[0][field], field).toEqual(live[field]);
  });

  test('TradFi outside regular hours shows the last close: not live, market closed, next_open set', async () => {
    const weekend = await smallEmulator({ now: '2026-03-07T15:00:00Z' });
    try {
      const answer = await call(weekend, '/levels/tradfi/SPY');
      expect(answer.body.meta).toMatchObject({
        as_of: '2026-03-06T21:00:00Z',
        data_source: 'end_of_day',
        is_live: false,
        market_open: false,
        next_open: '2026-03-09T13:30:00Z',
        exchange_resolved: 'tradfi',
        market: 'tradfi',
      });
      const open = await call(em, '/levels/all/SPY');
      expect(open.body.meta).toMatchObject({ exchange_resolved: 'tradfi', is_live: true, market_open: true, next_open: null, data_source: 'live' });
    } finally {
      await weekend.close();
    }
  });

  test('a single expiration by code or ISO date sets max_pain and echoes code and ISO', async () => {
    const detail = (await call(em, '/expirations/all/BTC')).body.data.expirations_detail[0];
    for (const value of [detail.code, detail.iso]) {
      const answer = await call(em, `/levels/all/BTC?expiration=${value}`);
      expect(answer.status).toBe(200);
      expect(answer.body.data).toMatchObject({ expiration: detail.code, expiration_iso: detail.iso, max_pain: expect.any(Number) });
      expect(answer.body.meta).toMatchObject({ expiration: detail.code, expiration_iso: detail.iso });
    }
  });

  test('an unlisted expiration is 400 invalid_expiration with up to five nearest ISO dates', async () => {
    const listed = (await call(em, '/expirations/all/BTC')).body.data.expirations_detail.map((d: { iso: string }) => d.iso);
    const answer = await call(em, '/levels/all/BTC?expiration=2026-12-25');
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_expiration');
    expect(answer.body.nearest_expirations).toEqual([...listed].reverse());
    const notADate = await call(em, '/levels/all/BTC?expiration=soon');
    expect(notADate.body.nearest_expirations).toEqual(listed);
  });

  test('compare: one key per period, null beyond history, a history row plus delta otherwise', async () => {
    const answer = await call(em, '/levels/all/BTC?compare=1d,30d');
    const { compare, ...live } = answer.body.data;
    expect(Object.keys(compare)).toEqual(['1d', '30d']);
    expect(compare['30d']).toBeNull();
    const day = compare['1d'];
    expect(day).toMatchObject({ timestamp_utc: '2026-03-10T23:45:00Z', session_date: '2026-03-10', type: 'close', exchange: 'combined', symbol: 'BTC' });
    expect(day.delta.spot).toBe(Math.round((live.spot - day.spot) * 100) / 100);
    expect(Object.keys(day.delta)).toEqual(['spot', 'flip', 'net_gex', 'abs_gex', 'p1_strike', 'n1_strike', 's_price', 'v_price']);
    expect(em.counters.requests(em.keys.pro)).toBeGreaterThan(0);
  });

  test('compare on a weekend reference gives the Friday close (TradFi session calendar)', async () => {
    const monday = await smallEmulator({ now: '2026-03-09T15:00:00Z' });
    try {
      const compare = (await call(monday, '/levels/tradfi/SPY?compare=1d')).body.data.compare;
      expect(compare['1d']).toMatchObject({ session_date: '2026-03-06', timestamp_utc: '2026-03-06T21:00:00Z', type: 'close', exchange: 'tradfi' });
    } finally {
      await monday.close();
    }
  });

  test('compare errors: bad period, single expiration, venue subset', async () => {
    const period = await call(em, '/levels/all/BTC?compare=2d');
    expect(period.body).toMatchObject({ error: 'invalid_param', valid_values: ['1d', '7d', '30d'] });
    const code = (await call(em, '/expirations/all/BTC')).body.data.expirations[0];
    expect((await call(em, `/levels/all/BTC?compare=1d&expiration=${code}`)).body.error).toBe('invalid_param');
    const subset = await call(em, '/levels/deribit+okx/BTC?compare=1d');
    expect(subset.body.error).toBe('history_not_available');
    expect(subset.body.valid_exchanges).toContain('combined');
    const withoutCompare = await call(em, '/levels/deribit+okx/BTC');
    expect(withoutCompare.body.meta).toMatchObject({ exchange: 'deribit+okx', exchange_resolved: 'deribit+okx' });
  });

  test('compare on a venue without history returns the live levels with every period null', async () => {
    const answer = await call(em, '/levels/binance/BTC?compare=1d,7d');
    expect(answer.status).toBe(200);
    expect(answer.body.data.compare).toEqual({ '1d': null, '7d': null });
  });

  test('pair errors: invalid_exchange, invalid_pair, unsupported_coin, no_data', async () => {
    const unknown = await call(em, '/levels/nyse/BTC');
    expect(unknown.body).toMatchObject({ error: 'invalid_exchange', valid_exchanges: expect.arrayContaining(['deribit', 'all', 'tradfi']) });
    expect((await call(em, '/levels/deribit+nyse/BTC')).body.error).toBe('invalid_exchange');
    const pair = await call(em, '/levels/bybit/SPY');
    expect(pair.body).toMatchObject({ error: 'invalid_pair', valid_exchanges: ['tradfi', 'all', 'combined'] });
    expect((await call(em, '/levels/tradfi/BTC')).body.error).toBe('invalid_pair');
    const coin = await call(em, '/levels/all/DOGE');
    expect(coin.status).toBe(400);
    expect(coin.body).toMatchObject({ error: 'unsupported_coin', supported_crypto: ['BTC', 'ETH', 'SOL'], supported_tradfi: ['QQQ', 'SPY'] });
    const notListed = await call(em, '/levels/deribit/SOL');
    expect(notListed.status).toBe(404);
    expect(notListed.body.error).toBe('no_data');
  });
});

describe('/gex/by-strike-enhanced', () => {
  test('parallel arrays, every marker, metadata', async () => {
    const answer = await call(em, '/gex/by-strike-enhanced/deribit/btc/TOTAL');
    expect(answer.status).toBe(200);
    const { gex_data: gex, markers, metadata } = answer.body.data;
    const n = gex.strikes.length;
    expect(n).toBe(15);
    for (const key of ['call_gex', 'put_gex', 'net_gex', 'total_gex']) expect(gex[key]).toHaveLength(n);
    expect(gex.net_gex[0]).toBeCloseTo(gex.call_gex[0] - gex.put_gex[0], 1);
    expect(Object.keys(markers)).toEqual([
      'flip_points',
      'max_pain',
      'absolute_max',
      'positive_max',
      'negative_max',
      'spot',
      'stability_point',
      'volatility_point',
      'totals',
      'asymmetry',
    ]);
    expect(markers.absolute_max[0].label).toBe('A1');
    expect(markers.positive_max.every((m: { value: number }) => m.value > 0)).toBe(true);
    expect(markers.negative_max.every((m: { value: number }) => m.value < 0)).toBe(true);
    expect(['bullish', 'bearish', 'neutral']).toContain(markers.asymmetry.bias);
    const levels = (await call(em, '/levels/deribit/BTC')).body.data;
    expect(markers.flip_points[0]?.strike ?? null).toBe(levels.flip);
    expect(markers.flip_points).toHaveLength(levels.flip_count);
    expect(markers.stability_point).toMatchObject({ price: levels.s_price, gex: levels.s_gex });
    expect(markers.positive_max[0]).toMatchObject({ strike: levels.p1_strike, value: levels.p1_gex });
    expect(metadata).toMatchObject({
      basecoin: 'BTC',
      exchange: 'deribit',
      expiration_date: 'TOTAL',
      data_points: 15,
      enhanced: true,
      timestamp: '2026-03-11T14:00:00Z',
    });
    expect(metadata.timestamp_ms).toBe(Date.parse('2026-03-11T14:00:00Z'));
    expect(answer.body.meta).toMatchObject({ exchange: 'deribit', coin: 'BTC', expiration: 'TOTAL', rate_limit: expect.any(Object) });
  });

  test('one expiration by code; an unknown code is 404 no_data; a malformed one invalid_expiration', async () => {
    const code = (await call(em, '/expirations/all/ETH')).body.data.expirations[0];
    const one = await call(em, `/gex/by-strike-enhanced/all/ETH/${code}`);
    expect(one.status).toBe(200);
    expect(one.body.data.markers.max_pain).toMatchObject({ label: expect.any(String), strike: expect.any(Number) });
    expect((await call(em, '/gex/by-strike-enhanced/all/ETH/01JAN27')).body.error).toBe('no_data');
    expect((await call(em, '/gex/by-strike-enhanced/all/ETH/next-friday')).body.error).toBe('invalid_expiration');
  });

  test('range_pct narrows the strikes; a bad value is invalid_param with max_value', async () => {
    const narrow = (await call(em, '/gex/by-strike-enhanced/all/BTC/TOTAL?range_pct=2')).body.data;
    const spot = narrow.metadata.current_price;
    expect(narrow.gex_data.strikes.every((s: number) => Math.abs(s - spot) <= spot * 0.02)).toBe(true);
    const bad = await call(em, '/gex/by-strike-enhanced/all/BTC/TOTAL?range_pct=500');
    expect(bad.body).toMatchObject({ error: 'invalid_param', max_value: 100 });
  });
});

describe('/gex/term-oi', () => {
  test('one entry per listed expiration; total sums the venues', async () => {
    const answer = await call(em, '/gex/term-oi/all/BTC');
    const { expirations, metadata } = answer.body.data;
    expect(expirations).toHaveLength(3);
    expect(metadata).toMatchObject({ basecoin: 'BTC', exchanges_used: ['bybit', 'deribit', 'okx', 'derive'], expiration_count: 3 });
    const entry = expirations[0];
    expect(entry.date).toMatch(/^\d{1,2}[A-Z]{3}\d{2}$/);
    const venues = Object.values(entry.exchanges) as { oi_usd: number }[];
    expect(entry.total.oi_usd).toBeCloseTo(
      venues.reduce((a, v) => a + v.oi_usd, 0),
      2,
    );
    expect(answer.body.meta).toMatchObject({ exchange_resolved: 'combined', is_live: true, as_of: '2026-03-11T14:00:00Z' });
    const single = (await call(em, '/gex/term-oi/okx/BTC')).body.data.expirations[0];
    expect(single.total).toEqual(single.exchanges.okx);
  });
});
