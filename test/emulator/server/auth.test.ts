import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Emulator } from '../../../emulator/index.js';
import { signJwt } from '../../../emulator/server/auth.js';
import { call, smallEmulator } from './helpers.js';

let em: Emulator;
beforeAll(async () => {
  em = await smallEmulator();
});
afterAll(() => em.close());

describe('authentication', () => {
  test('keys have the spec format gex_ + 32 URL-safe characters', () => {
    for (const key of Object.values(em.keys)) expect(key).toMatch(/^gex_[A-Za-z0-9_-]{32}$/);
    expect(new Set(Object.values(em.keys)).size).toBe(6);
  });

  test('a missing key is 401 unauthorized, even on free endpoints', async () => {
    const answer = await call(em, '/exchanges', { key: null });
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ error: 'unauthorized' });
    expect(answer.body.message).toEqual(expect.any(String));
    expect(answer.body.data).toBeUndefined();
  });

  test('a malformed key and an unknown well-formed key are 401', async () => {
    expect((await call(em, '/me', { key: 'gex_short' })).status).toBe(401);
    const unknown = `gex_${'A'.repeat(32)}`;
    const answer = await call(em, '/me', { key: unknown });
    expect(answer.status).toBe(401);
    expect(answer.text).not.toContain(unknown);
  });

  test('a revoked key is 401 unauthorized', async () => {
    const answer = await call(em, '/me', { key: em.keys.revoked });
    expect(answer.status).toBe(401);
    expect(answer.body.error).toBe('unauthorized');
  });

  test('a plan without api_access is 403 subscription_required with current_tier', async () => {
    const answer = await call(em, '/levels/all/BTC', { key: em.keys.premium });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ error: 'subscription_required', current_tier: 'premium' });
  });

  test('a coin outside the plan is 403 market_not_in_plan with market, markets_in_plan, current_tier', async () => {
    const answer = await call(em, '/levels/tradfi/SPY', { key: em.keys.cryptoOnly });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({
      error: 'market_not_in_plan',
      market: 'tradfi',
      markets_in_plan: ['crypto'],
      current_tier: 'pro',
    });
    expect((await call(em, '/levels/all/BTC', { key: em.keys.cryptoOnly })).status).toBe(200);
  });

  test('the Bearer token is accepted and shares the pro account', async () => {
    const before = em.counters.requests(em.keys.pro);
    const answer = await call(em, '/levels/all/BTC', { key: null, headers: { Authorization: `Bearer ${em.bearerToken}` } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-ratelimit-limit')).toBe('500');
    expect(em.counters.requests(em.keys.pro)).toBe(before + 1);
    const me = await call(em, '/me', { key: null, headers: { Authorization: `Bearer ${em.bearerToken}` } });
    expect(me.body.data.tier).toBe('pro');
  });

  test('a tampered or foreign-signed Bearer token is 401', async () => {
    const [head, , sig] = em.bearerToken.split('.');
    const forgedBody = Buffer.from(JSON.stringify({ sub: 'admin' })).toString('base64url');
    const tampered = await call(em, '/me', { key: null, headers: { Authorization: `Bearer ${head}.${forgedBody}.${sig}` } });
    expect(tampered.status).toBe(401);
    const foreign = signJwt(Buffer.from('another secret'), { sub: 'admin' });
    expect((await call(em, '/me', { key: null, headers: { Authorization: `Bearer ${foreign}` } })).status).toBe(401);
    expect((await call(em, '/me', { key: null, headers: { Authorization: 'Basic abc' } })).status).toBe(401);
  });

  test('a Bearer token expired on the emulator clock is 401', async () => {
    // Same secret as the emulator (derived from its seed): only exp differs from a valid token.
    const { createHash } = await import('node:crypto');
    const secret = createHash('sha256').update('gexwh-emulator:7').digest();
    const exp = Math.floor(em.clock.now().getTime() / 1000) - 1;
    const expired = signJwt(secret, { sub: 'pro', exp });
    const fresh = signJwt(secret, { sub: 'pro', exp: exp + 3600 });
    expect((await call(em, '/me', { key: null, headers: { Authorization: `Bearer ${expired}` } })).status).toBe(401);
    expect((await call(em, '/me', { key: null, headers: { Authorization: `Bearer ${fresh}` } })).status).toBe(200);
  });
});
