import { describe, expect, it } from 'vitest';
import { costOfPath, parseQuotaHeaders, parseRateLimitBlock, parseReset, quotaOfResponse, QuotaTracker, unitsLeft } from '../../src/api/quota.js';

const RESET = '2025-03-05T00:00:00Z';

describe('quota headers', () => {
  it('reads the request bucket from X-RateLimit-*', () => {
    const bucket = parseQuotaHeaders({ 'x-ratelimit-limit': '500', 'x-ratelimit-remaining': '42', 'x-ratelimit-reset': RESET }, 'requests');
    expect(bucket).toEqual({ limit: 500, remaining: 42, reset: new Date(RESET), unlimited: false });
    expect(unitsLeft(bucket)).toBe(42);
  });

  it('reads the file-credit bucket from X-History-Files-*', () => {
    const headers = { 'x-history-files-limit': '20', 'x-history-files-remaining': '0', 'x-history-files-reset': RESET };
    expect(parseQuotaHeaders(headers, 'files')).toEqual({ limit: 20, remaining: 0, reset: new Date(RESET), unlimited: false });
    expect(parseQuotaHeaders(headers, 'requests')).toBeUndefined();
  });

  it('treats limit 0 as unlimited (remaining 0 then means nothing)', () => {
    const bucket = parseQuotaHeaders({ 'x-history-files-limit': '0', 'x-history-files-remaining': '0', 'x-history-files-reset': RESET }, 'files');
    expect(bucket).toMatchObject({ limit: 0, unlimited: true, remaining: null });
    expect(unitsLeft(bucket)).toBe(Number.POSITIVE_INFINITY);
  });

  it('missing or garbled headers give an unknown state, not zero', () => {
    expect(parseQuotaHeaders({}, 'requests')).toBeUndefined();
    expect(parseQuotaHeaders({ 'x-ratelimit-limit': 'lots' }, 'requests')).toBeUndefined();
    expect(quotaOfResponse({})).toEqual({});
    expect(unitsLeft(undefined)).toBeUndefined();
    const partial = parseQuotaHeaders({ 'x-ratelimit-limit': '50' }, 'requests');
    expect(partial).toEqual({ limit: 50, remaining: null, reset: null, unlimited: false });
    expect(unitsLeft(partial)).toBeUndefined();
  });

  it('falls back to meta.rate_limit when the headers are absent', () => {
    expect(quotaOfResponse({}, { limit: 50, remaining: 7, reset: RESET })).toEqual({
      requests: { limit: 50, remaining: 7, reset: new Date(RESET), unlimited: false },
    });
    expect(parseRateLimitBlock({ limit: -1 })).toBeUndefined();
    expect(parseRateLimitBlock(null)).toBeUndefined();
  });

  it('prefers headers over meta.rate_limit', () => {
    const quota = quotaOfResponse({ 'x-ratelimit-limit': '500', 'x-ratelimit-remaining': '10' }, { limit: 500, remaining: 11, reset: RESET });
    expect(quota.requests?.remaining).toBe(10);
  });

  it('takes what the headers lack from meta.rate_limit: the spec names only X-RateLimit-Limit and -Reset', () => {
    const named = { 'x-ratelimit-limit': '500', 'x-ratelimit-reset': RESET };
    expect(quotaOfResponse(named, { limit: 500, remaining: 480, reset: RESET }).requests).toEqual({
      limit: 500,
      remaining: 480,
      reset: new Date(RESET),
      unlimited: false,
    });
    // Only when the block describes the same bucket (same limit); else the headers stand alone.
    expect(quotaOfResponse(named, { limit: 50, remaining: 7, reset: RESET }).requests?.remaining).toBeNull();
    expect(quotaOfResponse({ 'x-ratelimit-limit': '500' }, { limit: 500, remaining: 3, reset: RESET }).requests?.reset).toEqual(new Date(RESET));
  });

  it('a limit of 1 is a bound, not unlimited: only 0 means no limit', () => {
    const bucket = parseQuotaHeaders({ 'x-history-files-limit': '1', 'x-history-files-remaining': '0' }, 'files');
    expect(bucket).toEqual({ limit: 1, remaining: 0, reset: null, unlimited: false });
    expect(unitsLeft(bucket)).toBe(0);
  });

  it('reads counts of meta.rate_limit as whole numbers only: a fraction is not a count', () => {
    expect(parseRateLimitBlock({ limit: 50.5, remaining: 7 })).toBeUndefined();
    expect(parseRateLimitBlock({ limit: 50, remaining: 6.5 })).toMatchObject({ limit: 50, remaining: null });
    expect(parseRateLimitBlock({ limit: 50, remaining: Number.NaN })).toMatchObject({ remaining: null });
  });

  it('parses resets in ISO 8601 and, defensively, epoch seconds or milliseconds', () => {
    expect(parseReset(RESET)).toEqual(new Date(RESET));
    expect(parseReset('1741132800')).toEqual(new Date(RESET));
    expect(parseReset(1741132800000)).toEqual(new Date(RESET));
    expect(parseReset('soon')).toBeNull();
    expect(parseReset(undefined)).toBeNull();
  });
});

describe('cost table', () => {
  it.each([
    ['/exchanges', 0, 0],
    ['/coins', 0, 0],
    ['/expirations/deribit/BTC', 0, 0],
    ['/me', 0, 0],
    ['/history/coverage', 0, 0],
    ['/levels/deribit/BTC', 1, 0],
    ['/gex/by-strike-enhanced/deribit/BTC/TOTAL', 1, 0],
    ['/gex/term-oi/all/BTC', 1, 0],
    ['/history/timestamps/deribit/BTC?date=2025-03-03', 1, 0],
    ['/history/levels/deribit/BTC', 1, 0],
    ['/history/snapshot/deribit/BTC', 1, 0],
    ['/history/files/deribit/BTC', 1, 0],
    ['/history/files/deribit/BTC/2025-03-03/levels', 0, 1],
    // Not an endpoint (a file path cut short): neither a manifest page nor a file link.
    ['/history/files/deribit/BTC/2025-03-03', 0, 0],
  ])('%s costs %i request(s) and %i credit(s)', (path, requests, credits) => {
    expect(costOfPath(path)).toEqual({ requests, credits });
  });
});

describe('QuotaTracker', () => {
  it('counts the fall of remaining from the day it implies: answers before the first sight of remaining count too', () => {
    const tracker = new QuotaTracker();
    const requests = (remaining: number) => ({ requests: { limit: 100, remaining, reset: null, unlimited: false } });
    tracker.countAnswered(3); // three answers that carried no quota headers
    tracker.observe(requests(90)); // so the day started at 93
    tracker.countAnswered(1);
    tracker.observe(requests(85)); // another client spent 4 more
    expect(tracker.spent().requests).toBe(8);
  });

  it('keeps the latest known bucket per name and sums what was spent', () => {
    const tracker = new QuotaTracker();
    expect(tracker.state()).toEqual({});
    tracker.observe({ requests: { limit: 50, remaining: 10, reset: null, unlimited: false } });
    tracker.observe({ files: { limit: 20, remaining: 5, reset: null, unlimited: false } });
    tracker.observe({}); // a response without quota headers keeps what we knew
    tracker.observe({ requests: { limit: 50, remaining: 9, reset: null, unlimited: false } });
    expect(tracker.state().requests?.remaining).toBe(9);
    expect(tracker.state().files?.remaining).toBe(5);
    tracker.countSpent({ requests: 1 });
    tracker.countSpent({ credits: 2 });
    tracker.countSpent({ requests: 1 });
    expect(tracker.spent()).toEqual({ requests: 2, credits: 2 });
  });
});
