import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { Emulator } from '../../../emulator/index.js';
import { call, smallEmulator } from './helpers.js';

let em: Emulator;
beforeEach(async () => {
  em = await smallEmulator();
});
afterEach(() => em.close());

const DOWNLOAD = '/history/files/combined/BTC/2026-03-10/levels';

describe('request quota', () => {
  test('free endpoints cost nothing; /exchanges and /coins carry no rate_limit block or headers', async () => {
    for (const path of ['/exchanges', '/coins']) {
      const answer = await call(em, path);
      expect(answer.status).toBe(200);
      expect(Object.keys(answer.body.meta)).toEqual(['timestamp']);
      expect(answer.headers.get('x-ratelimit-limit')).toBeNull();
    }
    for (const path of ['/expirations/all/BTC', '/me', '/history/coverage']) expect((await call(em, path)).status).toBe(200);
    expect(em.counters.requests(em.keys.pro)).toBe(0);
  });

  test('a counted endpoint costs one request, mirrored in meta.rate_limit and X-RateLimit-*', async () => {
    const answer = await call(em, '/levels/all/BTC?compare=1d,7d,30d');
    expect(answer.status).toBe(200);
    expect(answer.body.meta.rate_limit).toEqual({ limit: 500, remaining: 499, reset: '2026-03-12T00:00:00.000Z' });
    expect(answer.headers.get('x-ratelimit-limit')).toBe('500');
    expect(answer.headers.get('x-ratelimit-remaining')).toBe('499');
    expect(answer.headers.get('x-ratelimit-reset')).toBe('2026-03-12T00:00:00.000Z');
    expect(em.counters.requests(em.keys.pro)).toBe(1);
  });

  test('every counted endpoint costs exactly one request', async () => {
    const paths = [
      '/levels/all/BTC',
      '/gex/by-strike-enhanced/all/BTC/TOTAL',
      '/gex/term-oi/all/BTC',
      '/history/timestamps/combined/BTC?date=2026-03-10',
      '/history/levels/combined/BTC',
      '/history/snapshot/combined/BTC?at=2026-03-10T12:00:00Z',
      '/history/files/combined/BTC',
    ];
    for (const [i, path] of paths.entries()) {
      expect((await call(em, path)).status).toBe(200);
      expect(em.counters.requests(em.keys.pro)).toBe(i + 1);
    }
    expect(em.counters.credits(em.keys.pro)).toBe(0);
  });

  test('4xx answers cost nothing but still show the quota headers', async () => {
    const bad = await call(em, '/history/levels/combined/BTC?granularity=5m');
    expect(bad.status).toBe(400);
    expect(bad.headers.get('x-ratelimit-remaining')).toBe('500');
    expect((await call(em, '/levels/all/NOPE')).status).toBe(400);
    expect((await call(em, '/history/snapshot/combined/BTC?at=2026-01-01T00:00:00Z')).status).toBe(404);
    expect(em.counters.requests(em.keys.pro)).toBe(0);
  });

  test('an empty bucket gives 429 rate_limit_exceeded with the rate_limit hint and no Retry-After', async () => {
    em.setQuota(em.keys.trial, { requestsUsed: 50 });
    const answer = await call(em, '/levels/all/BTC', { key: em.keys.trial });
    expect(answer.status).toBe(429);
    expect(answer.body).toMatchObject({
      error: 'rate_limit_exceeded',
      rate_limit: { limit: 50, remaining: 0, reset: '2026-03-12T00:00:00.000Z' },
    });
    expect(answer.headers.get('retry-after')).toBeNull();
    expect(answer.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(em.counters.requests(em.keys.trial)).toBe(0);
    // free endpoints still answer
    expect((await call(em, '/me', { key: em.keys.trial })).status).toBe(200);
  });

  test('the buckets reset at midnight UTC of the emulator clock', async () => {
    em.setQuota(em.keys.trial, { requestsUsed: 50, creditsUsed: 20 });
    expect((await call(em, '/levels/all/BTC', { key: em.keys.trial })).status).toBe(429);
    em.clock.set('2026-03-11T23:59:59Z');
    expect((await call(em, '/levels/all/BTC', { key: em.keys.trial })).status).toBe(429);
    em.clock.set('2026-03-12T00:00:00Z');
    const answer = await call(em, '/levels/all/BTC', { key: em.keys.trial });
    expect(answer.status).toBe(200);
    expect(answer.body.meta.rate_limit).toEqual({ limit: 50, remaining: 49, reset: '2026-03-13T00:00:00.000Z' });
    const me = await call(em, '/me', { key: em.keys.trial });
    expect(me.body.data.quota.history_files).toMatchObject({ limit: 20, used: 0, remaining: 20 });
  });

  test('/me reports both buckets; admin is unlimited (limit 0, remaining null)', async () => {
    await call(em, '/levels/all/BTC', { key: em.keys.trial });
    const trial = await call(em, '/me', { key: em.keys.trial });
    expect(trial.body.data).toEqual({
      tier: 'trial',
      markets: ['crypto', 'tradfi'],
      api_access: true,
      quota: {
        requests: { limit: 50, used: 1, remaining: 49, reset: '2026-03-12T00:00:00.000Z' },
        history_files: { limit: 20, used: 0, remaining: 20, reset: '2026-03-12T00:00:00.000Z' },
      },
    });
    const admin = await call(em, '/me', { key: em.keys.admin });
    expect(admin.body.data.tier).toBe('admin');
    expect(admin.body.data.quota.requests).toMatchObject({ limit: 0, remaining: null });
    expect(admin.body.data.quota.history_files).toMatchObject({ limit: 0, remaining: null });
  });

  test('admin never hits a 429', async () => {
    em.setQuota(em.keys.admin, { requestsUsed: 100_000, creditsUsed: 100_000 });
    const answer = await call(em, '/levels/all/BTC', { key: em.keys.admin });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-ratelimit-limit')).toBe('0');
    expect((await call(em, DOWNLOAD, { key: em.keys.admin })).status).toBe(302);
  });
});

describe('file credits', () => {
  test('the download 302 costs one credit and no request, with no-store and X-History-Files-*', async () => {
    const answer = await call(em, DOWNLOAD);
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\//);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('x-history-files-limit')).toBe('200');
    expect(answer.headers.get('x-history-files-remaining')).toBe('199');
    expect(answer.headers.get('x-history-files-reset')).toBe('2026-03-12T00:00:00.000Z');
    expect(answer.headers.get('x-ratelimit-limit')).toBeNull();
    expect(em.counters.credits(em.keys.pro)).toBe(1);
    expect(em.counters.requests(em.keys.pro)).toBe(0);
  });

  test('used-up credits give 429 history_files_limit_exceeded with headers and hint', async () => {
    em.setQuota(em.keys.trial, { creditsUsed: 20 });
    const answer = await call(em, DOWNLOAD, { key: em.keys.trial });
    expect(answer.status).toBe(429);
    expect(answer.body).toMatchObject({
      error: 'history_files_limit_exceeded',
      rate_limit: { limit: 20, remaining: 0, reset: '2026-03-12T00:00:00.000Z' },
    });
    expect(answer.headers.get('x-history-files-remaining')).toBe('0');
    expect(answer.headers.get('retry-after')).toBeNull();
    expect(em.counters.credits(em.keys.trial)).toBe(0);
  });

  test('HEAD on a download is 405 method_not_allowed with Allow: GET and costs nothing', async () => {
    const answer = await call(em, DOWNLOAD, { method: 'HEAD' });
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET');
    expect(em.counters.credits(em.keys.pro)).toBe(0);
    expect(em.counters.requests(em.keys.pro)).toBe(0);
  });

  test('400, 404 and 503 downloads cost no credit', async () => {
    expect((await call(em, '/history/files/combined/BTC/2026-03-10/everything')).status).toBe(400);
    expect((await call(em, '/history/files/combined/BTC/2026-03-11/levels')).status).toBe(404); // today: not built
    em.faults.add({ match: /history\/files\/.+\/levels$/, action: { kind: 'status', status: 503 } });
    const unavailable = await call(em, DOWNLOAD);
    expect(unavailable.status).toBe(503);
    expect(unavailable.body.error).toBe('files_unavailable');
    expect(em.counters.credits(em.keys.pro)).toBe(0);
  });

  test('missing_quota_headers: the 302 has no X-History-Files-* and the download proceeds', async () => {
    em.faults.add({ action: { kind: 'missing_quota_headers' } });
    const answer = await call(em, DOWNLOAD);
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBeTruthy();
    expect(answer.headers.get('x-history-files-limit')).toBeNull();
    expect(answer.headers.get('x-history-files-remaining')).toBeNull();
    expect(answer.headers.get('x-history-files-reset')).toBeNull();
  });
});
