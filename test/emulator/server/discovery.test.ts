import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../../emulator/index.js';
import { call, smallEmulator } from './helpers.js';

let em: Emulator;
beforeAll(async () => {
  em = await smallEmulator();
});
afterAll(() => em.close());

describe('discovery', () => {
  test('/exchanges lists venues, the virtual all and markets; meta is timestamp only', async () => {
    const answer = await call(em, '/exchanges');
    expect(answer.body).toEqual({
      data: {
        available: ['bybit', 'deribit', 'okx', 'derive', 'binance', 'tradfi'],
        virtual: ['all'],
        markets: { crypto: ['bybit', 'deribit', 'okx', 'derive', 'binance'], tradfi: ['tradfi'] },
      },
      meta: { timestamp: '2026-03-11T14:07:00.000Z' },
    });
  });

  test('/coins lists sorted upper-case symbols by market', async () => {
    const answer = await call(em, '/coins');
    expect(answer.body.data).toEqual({ coins: ['BTC', 'ETH', 'QQQ', 'SOL', 'SPY'], markets: { crypto: ['BTC', 'ETH', 'SOL'], tradfi: ['QQQ', 'SPY'] } });
  });

  test('/expirations: DDMMMYY codes in order with details; meta resolves the venue', async () => {
    const answer = await call(em, '/expirations/ALL/eth');
    expect(answer.status).toBe(200);
    const { expirations, expirations_detail: details } = answer.body.data;
    expect(expirations).toHaveLength(3);
    expect(details.map((d: { code: string }) => d.code)).toEqual(expirations);
    expect(details[0]).toEqual({ code: '12MAR26', iso: '2026-03-12', dte: 0.75, cutoff_utc: '2026-03-12T08:00:00Z', is_0dte: false });
    expect(answer.body.meta).toMatchObject({ exchange: 'all', coin: 'eth', exchange_resolved: 'combined', market: 'crypto' });
  });

  test('/expirations keeps an expiration during its one-hour grace and marks it 0DTE', async () => {
    const early = await smallEmulator({ now: '2026-03-12T08:30:00Z' });
    try {
      const details = (await call(early, '/expirations/all/BTC')).body.data.expirations_detail;
      expect(details[0]).toMatchObject({ iso: '2026-03-12', is_0dte: true, dte: -0.02 });
      early.clock.set('2026-03-12T09:00:01Z');
      const later = (await call(early, '/expirations/all/BTC')).body.data.expirations_detail;
      expect(later[0].iso).not.toBe('2026-03-12');
    } finally {
      await early.close();
    }
  });

  test('/expirations errors: invalid_exchange with valid_exchanges, market_not_in_plan', async () => {
    expect((await call(em, '/expirations/kraken/BTC')).body).toMatchObject({ error: 'invalid_exchange', valid_exchanges: expect.any(Array) });
    expect((await call(em, '/expirations/tradfi/QQQ', { key: em.keys.cryptoOnly })).body.error).toBe('market_not_in_plan');
  });

  test('an unknown route is 404 not_found; other methods are 405; unknown query parameters are invalid_param', async () => {
    const missing = await call(em, '/levels');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('not_found');
    expect((await call(em, '/../../etc/passwd')).status).toBe(404);
    const post = await call(em, '/me', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET');
    const extra = await call(em, '/coins?verbose=1');
    expect(extra.status).toBe(400);
    expect(extra.body.error).toBe('invalid_param');
    expect((await call(em, '/history/levels/combined/BTC?granularity=1h&granularity=close')).body.error).toBe('invalid_param');
  });

  test('JSON content type and the quota headers are exposed to browsers', async () => {
    const answer = await call(em, '/me');
    expect(answer.headers.get('content-type')).toContain('application/json');
    expect(answer.headers.get('access-control-expose-headers')).toContain('X-History-Files-Remaining');
  });

  test('counters: api hits and path hits', async () => {
    const before = em.counters.apiHits;
    await call(em, '/coins');
    await call(em, '/coins');
    expect(em.counters.apiHits).toBe(before + 2);
    expect(em.counters.hits(/^\/api\/v1\/coins$/)).toBeGreaterThanOrEqual(2);
  });
});

describe('clock', () => {
  test('without now the clock follows the wall clock; with realtimeClock it ticks from now', async () => {
    const wall = await smallEmulator({ now: undefined });
    const ticking = await smallEmulator({ now: '2026-03-11T14:07:00Z', realtimeClock: true });
    try {
      expect(Math.abs(wall.clock.now().getTime() - Date.now())).toBeLessThan(5_000);
      const start = ticking.clock.now().getTime();
      expect(start).toBeGreaterThanOrEqual(Date.parse('2026-03-11T14:07:00Z'));
      ticking.clock.advance(60_000);
      expect(ticking.clock.now().getTime()).toBeGreaterThanOrEqual(start + 60_000);
      em.clock.advance(0);
      expect(em.clock.now().toISOString()).toBe('2026-03-11T14:07:00.000Z');
    } finally {
      await wall.close();
      await ticking.close();
    }
  });
});
