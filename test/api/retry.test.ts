import { describe, expect, it } from 'vitest';
import { mayHaveReachedServer } from '../../src/api/http.js';
import { backoffDelayMs, decide, isRetryable, retryPolicy, type AttemptOutcome } from '../../src/api/retry.js';

const fixed = (value: number) => retryPolicy({ maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1000, random: () => value });

describe('retry policy', () => {
  it.each<[AttemptOutcome, boolean]>([
    [{ kind: 'network' }, true],
    [{ kind: 'truncated' }, true],
    [{ kind: 'status', status: 500 }, true],
    [{ kind: 'status', status: 502 }, true],
    [{ kind: 'status', status: 503, slug: 'files_unavailable' }, true],
    [{ kind: 'status', status: 400, slug: 'invalid_param' }, false],
    [{ kind: 'status', status: 401 }, false],
    [{ kind: 'status', status: 403 }, false],
    [{ kind: 'status', status: 404, slug: 'no_file' }, false],
    [{ kind: 'status', status: 405 }, false],
    [{ kind: 'status', status: 429, slug: 'rate_limit_exceeded' }, false],
    [{ kind: 'status', status: 429, slug: 'history_files_limit_exceeded' }, false],
    [{ kind: 'status', status: 200 }, false],
    [{ kind: 'status', status: 302 }, false],
  ])('%j retryable: %s', (outcome, expected) => {
    expect(isRetryable(outcome)).toBe(expected);
  });

  it('gives up after maxAttempts', () => {
    const policy = fixed(0.5);
    expect(decide(policy, 4, { kind: 'network' })).toEqual({ retry: true, delayMs: 400 });
    expect(decide(policy, 5, { kind: 'network' })).toEqual({ retry: false });
  });

  it('never retries a 4xx even on the first attempt', () => {
    expect(decide(fixed(0.5), 1, { kind: 'status', status: 429 })).toEqual({ retry: false });
  });

  it('backs off exponentially with full jitter, capped', () => {
    const top = fixed(0.999999);
    expect([1, 2, 3, 4, 5, 6].map((a) => backoffDelayMs(top, a))).toEqual([99, 199, 399, 799, 999, 999]);
    expect(backoffDelayMs(fixed(0), 6)).toBe(0);
  });

  it('jitter stays within [0, step)', () => {
    let seed = 1;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const policy = retryPolicy({ baseDelayMs: 10, maxDelayMs: 50, random });
    for (let attempt = 1; attempt <= 20; attempt++) {
      const delay = backoffDelayMs(policy, attempt);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(Math.min(50, 10 * 2 ** (attempt - 1)));
    }
  });

  it('defaults to 5 attempts and rejects nonsense settings', () => {
    expect(retryPolicy().maxAttempts).toBe(5);
    expect(retryPolicy({ maxAttempts: undefined }).maxAttempts).toBe(5);
    expect(() => retryPolicy({ maxAttempts: 0 })).toThrow(RangeError);
    expect(() => retryPolicy({ baseDelayMs: -1 })).toThrow(RangeError);
  });
});

describe('mayHaveReachedServer', () => {
  const coded = (code: string) => Object.assign(new Error(code), { code });
  it.each([
    ['ECONNREFUSED', false],
    ['ENOTFOUND', false],
    ['UND_ERR_CONNECT_TIMEOUT', false],
    ['ECONNRESET', true],
    ['UND_ERR_SOCKET', true],
    ['UND_ERR_HEADERS_TIMEOUT', true],
  ])('%s → %s', (code, reached) => {
    expect(mayHaveReachedServer(coded(code))).toBe(reached);
    expect(mayHaveReachedServer(new Error('wrapped', { cause: coded(code) }))).toBe(reached);
  });
  it('an unknown failure counts as reached', () => {
    expect(mayHaveReachedServer(new Error('?'))).toBe(true);
  });
});
