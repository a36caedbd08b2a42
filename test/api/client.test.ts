import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient, type ApiClientOptions } from '../../src/api/client.js';
import { ApiError, ApiSchemaError, AuthError, exitCodeOf, LinkAnswerLostError, NetworkError, QuotaExceededError, UsageError } from '../../src/core/errors.js';
import { clone, coverageRow, KEY, RESET, VALID_BODIES } from './fixtures.js';
import { sendJson, startServer, type Handler, type TestServer } from './server.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

interface Setup {
  server: TestServer;
  client: ApiClient;
  sleeps: number[];
}

async function setup(handler: Handler, options: Partial<ApiClientOptions> = {}): Promise<Setup> {
  const server = await startServer(handler);
  const sleeps: number[] = [];
  const client = createApiClient({
    baseUrl: server.url,
    apiKey: KEY,
    retry: { maxAttempts: 3, baseDelayMs: 1, random: () => 0.5, sleep: async (ms) => void sleeps.push(ms) },
    ...options,
  });
  cleanups.push(
    () => server.close(),
    () => client.close(),
  );
  return { server, client, sleeps };
}

const RL_HEADERS = { 'x-ratelimit-limit': '500', 'x-ratelimit-remaining': '41', 'x-ratelimit-reset': RESET };

/** Records and asserts: the error must not mention the key anywhere (message, hints, cause). */
function expectNoKey(error: unknown): void {
  const text = JSON.stringify(error, Object.getOwnPropertyNames(error as object)) + String(error);
  expect(text).not.toContain(KEY);
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    expectNoKey(error);
    return error;
  }
  throw new Error('expected a rejection');
}

describe('construction', () => {
  it('refuses a malformed key without echoing it', () => {
    for (const apiKey of ['gex_sh ort', `gex_${'a'.repeat(31)}\n`, `abc_\u0000${'a'.repeat(32)}`, '']) {
      try {
        createApiClient({ baseUrl: 'http://127.0.0.1:1', apiKey });
        throw new Error('accepted');
      } catch (error) {
        expect(error).toBeInstanceOf(AuthError);
        expect((error as Error).message).toContain('whitespace, a control character');
        if (apiKey !== '') expect((error as Error).message).not.toContain(apiKey);
        expect(exitCodeOf(error)).toBe(3);
      }
    }
  });

  it('refuses a base URL that would send the key in clear or with user info', () => {
    expect(() => createApiClient({ baseUrl: 'http://api.example.com', apiKey: KEY })).toThrow(UsageError);
    expect(() => createApiClient({ baseUrl: 'https://u:p@api.example.com', apiKey: KEY })).toThrow(UsageError);
    expect(() => createApiClient({ baseUrl: 'not a url', apiKey: KEY })).toThrow(UsageError);
    void createApiClient({ baseUrl: 'https://api.example.com', apiKey: KEY }).close();
  });
});

describe('endpoints', () => {
  it('sends the key to the API origin, encodes path segments and query, returns typed data and quota', async () => {
    const { server, client } = await setup((_req, res) => sendJson(res, 200, VALID_BODIES.historyLevels, RL_HEADERS));
    const response = await client.historyLevels('deribit+derive', 'B/TC', { start: '2025-03-01', granularity: '15m', cursor: 'a b&c' });
    expect(server.requests[0]!.url).toBe('/api/v1/history/levels/deribit%2Bderive/B%2FTC?start=2025-03-01&granularity=15m&cursor=a+b%26c');
    expect(server.requests[0]!.headers['x-api-key']).toBe(KEY);
    expect(response.data[0]!.session_date).toBe('2025-03-04');
    expect(response.meta.next_cursor).toBeNull();
    expect(response.quota.requests).toEqual({ limit: 500, remaining: 41, reset: new Date(RESET), unlimited: false });
    expect(client.spent()).toEqual({ requests: 1, credits: 0 });
  });

  it('keeps a base path prefix', async () => {
    const { server, client } = await setup((_req, res) => sendJson(res, 200, VALID_BODIES.me));
    const prefixed = createApiClient({ baseUrl: `${server.url}/gex/`, apiKey: KEY });
    cleanups.push(() => prefixed.close());
    await prefixed.me();
    expect(server.requests[0]!.url).toBe('/gex/api/v1/me');
    void client;
  });

  it.each([
    ['exchanges', (c: ApiClient) => c.exchanges(), '/api/v1/exchanges', 0],
    ['coins', (c: ApiClient) => c.coins(), '/api/v1/coins', 0],
    ['expirations', (c: ApiClient) => c.expirations('deribit', 'BTC'), '/api/v1/expirations/deribit/BTC', 0],
    ['me', (c: ApiClient) => c.me(), '/api/v1/me', 0],
    ['coverage', (c: ApiClient) => c.coverage(), '/api/v1/history/coverage', 0],
    ['levels', (c: ApiClient) => c.levels('all', 'BTC', { compare: ['1d', '30d'] }), '/api/v1/levels/all/BTC?compare=1d%2C30d', 1],
    ['gexByStrike', (c: ApiClient) => c.gexByStrike('deribit', 'BTC', 'TOTAL'), '/api/v1/gex/by-strike-enhanced/deribit/BTC/TOTAL', 1],
    ['termOi', (c: ApiClient) => c.termOi('all', 'BTC'), '/api/v1/gex/term-oi/all/BTC', 1],
    ['historyTimestamps', (c: ApiClient) => c.historyTimestamps('deribit', 'BTC', '2025-03-04'), '/api/v1/history/timestamps/deribit/BTC?date=2025-03-04', 1],
    [
      'historySnapshot',
      (c: ApiClient) => c.historySnapshot('deribit', 'BTC', { at: '2025-03-04T12:00:00Z' }),
      '/api/v1/history/snapshot/deribit/BTC?at=2025-03-04T12%3A00%3A00Z',
      1,
    ],
    ['historyFiles', (c: ApiClient) => c.historyFiles('deribit', 'BTC', { end: '2025-03-01' }), '/api/v1/history/files/deribit/BTC?end=2025-03-01', 1],
  ] as const)('%s', async (name, call, url, requests) => {
    const { server, client } = await setup((_req, res) => sendJson(res, 200, VALID_BODIES[name]));
    const response = await call(client);
    expect(server.requests.map((r) => r.url)).toEqual([url]);
    expect(response.data).toBeDefined();
    expect(client.spent().requests).toBe(requests);
  });

  it('/me feeds both buckets of the quota state', async () => {
    const { client } = await setup((_req, res) => sendJson(res, 200, VALID_BODIES.me));
    await client.me();
    expect(client.quota().files).toMatchObject({ limit: 200, remaining: 150, unlimited: false });
    expect(client.quota().requests).toMatchObject({ limit: 500, remaining: 499 });
  });

  it('a missing required field is an ApiSchemaError naming endpoint and field path', async () => {
    const body = clone(VALID_BODIES.historyFiles);
    delete (body.data[1] as Record<string, unknown>).sha256;
    const { client } = await setup((_req, res) => sendJson(res, 200, body));
    const error = await caught(client.historyFiles('deribit', 'BTC'));
    expect(error).toBeInstanceOf(ApiSchemaError);
    expect((error as ApiSchemaError).message).toContain('/history/files/deribit/BTC');
    expect((error as ApiSchemaError).message).toContain('data[1].sha256');
    expect((error as ApiSchemaError).hints).toEqual({ field: 'data[1].sha256' });
  });

  it('a coverage row off the spec is set aside with its reason; the other rows are returned', async () => {
    const long = 'X'.repeat(33);
    const body = {
      data: [
        coverageRow(),
        coverageRow({ symbol: long }),
        'junk',
        coverageRow({ exchange: 'deribit', symbol: 'ETH', sessions: -1 }),
        coverageRow({ symbol: '\u001b[2J' + 'Y'.repeat(70) }),
      ],
      meta: { timestamp: RESET },
    };
    const { client } = await setup((_req, res) => sendJson(res, 200, body));
    const response = await client.coverage();
    expect(response.data).toEqual([coverageRow()]);
    expect(response.rejected).toEqual([
      { exchange: coverageRow().exchange, symbol: long, reason: expect.stringMatching(/^symbol: expected a symbol of 1 to 32 characters/) },
      { reason: expect.stringMatching(/^\(row\): /) },
      { exchange: 'deribit', symbol: 'ETH', reason: expect.stringMatching(/^sessions: /) },
      { exchange: coverageRow().exchange, symbol: `?[2J${'Y'.repeat(60)}…`, reason: expect.stringMatching(/^symbol: /) },
    ]);
  });

  it('non-JSON success is an ApiSchemaError', async () => {
    const { client } = await setup((_req, res) => res.end('<html>'));
    expect(await caught(client.coverage())).toBeInstanceOf(ApiSchemaError);
  });

  it('missing quota headers and meta.rate_limit leave the state unknown', async () => {
    const body = clone(VALID_BODIES.levels) as { meta: Record<string, unknown> };
    delete body.meta.rate_limit;
    const { client } = await setup((_req, res) => sendJson(res, 200, body));
    const response = await client.levels('deribit', 'BTC');
    expect(response.quota).toEqual({});
    expect(client.quota()).toEqual({});
  });

  it('caps JSON bodies', async () => {
    const big = { data: [], meta: { timestamp: RESET, padding: 'x'.repeat(5000) } };
    const { client } = await setup((_req, res) => sendJson(res, 200, big), { maxJsonBytes: 1000 });
    const error = await caught(client.coverage());
    expect(error).toBeInstanceOf(ApiSchemaError);
    expect((error as Error).message).toContain('larger than 1000 bytes');
  });
});

describe('errors', () => {
  it('an error body becomes ApiError with slug, message and every other field as hints', async () => {
    const body = { error: 'invalid_exchange', message: 'Unknown exchange.', valid_exchanges: ['bybit', 'deribit'], extra: 1 };
    const { server, client, sleeps } = await setup((_req, res) => sendJson(res, 400, body));
    const error = await caught(client.levels('nope', 'BTC'));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, slug: 'invalid_exchange', message: 'Unknown exchange.', endpoint: '/levels/nope/BTC' });
    expect((error as ApiError).hints).toEqual({ valid_exchanges: ['bybit', 'deribit'], extra: 1 });
    expect(server.requests).toHaveLength(1); // 4xx never retried
    expect(sleeps).toEqual([]);
    expect(exitCodeOf(error)).toBe(2);
    // The spec does not say a failed request is free: an answered one counts as the server may count it.
    expect(client.spent().requests).toBe(1);
  });

  it.each([401, 403, 404])('%i is not retried', async (status) => {
    const { server, client } = await setup((_req, res) => sendJson(res, status, { error: 'x', message: 'no' }));
    const error = await caught(client.historyFiles('deribit', 'BTC'));
    expect((error as ApiError).status).toBe(status);
    expect(server.requests).toHaveLength(1);
  });

  it('a body that is not an API error still gives an ApiError', async () => {
    const { client } = await setup((_req, res) => {
      res.writeHead(418);
      res.end('teapot');
    });
    expect(await caught(client.coins())).toMatchObject({ status: 418, slug: 'http_418' });
  });

  it('a hostile server echoing the key gets it redacted from message and hints', async () => {
    const { client } = await setup((req, res) =>
      sendJson(res, 400, { error: 'invalid_param', message: `bad key ${String(req.headers['x-api-key'])}`, seen: { key: req.headers['x-api-key'] } }),
    );
    const error = await caught(client.coins()); // caught() asserts the key is absent
    expect((error as Error).message).toContain('[redacted]');
  });

  it('429 rate_limit_exceeded: QuotaExceededError on the request bucket with the reset time, not retried', async () => {
    const { server, client, sleeps } = await setup((_req, res) =>
      sendJson(
        res,
        429,
        { error: 'rate_limit_exceeded', message: 'Daily quota used.', rate_limit: { limit: 50, remaining: 0, reset: RESET } },
        {
          'x-ratelimit-limit': '50',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': RESET,
        },
      ),
    );
    const error = await caught(client.levels('deribit', 'BTC'));
    expect(error).toBeInstanceOf(QuotaExceededError);
    expect(error).toMatchObject({ status: 429, bucket: 'requests', resetAt: new Date(RESET) });
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(client.quota().requests).toMatchObject({ remaining: 0 });
  });

  it('429 without headers takes the reset from the body hint', async () => {
    const { client } = await setup((_req, res) =>
      sendJson(res, 429, { error: 'rate_limit_exceeded', message: 'Daily quota used.', rate_limit: { limit: 50, remaining: 0, reset: RESET } }),
    );
    expect(await caught(client.historyFiles('deribit', 'BTC'))).toMatchObject({ bucket: 'requests', resetAt: new Date(RESET) });
  });
});

describe('retries', () => {
  it('retries 503 then succeeds', async () => {
    const { server, client, sleeps } = await setup((_req, res, i) =>
      i < 2 ? sendJson(res, 503, { error: 'files_unavailable', message: 'later' }) : sendJson(res, 200, VALID_BODIES.coverage),
    );
    const response = await client.coverage();
    expect(response.data).toHaveLength(1);
    expect(server.requests).toHaveLength(3);
    expect(sleeps).toEqual([0, 1]); // full jitter 0.5 of 1 ms then of 2 ms
  });

  it('gives up after maxAttempts on 5xx with the last ApiError', async () => {
    const { server, client } = await setup((_req, res) => sendJson(res, 500, { error: 'internal', message: 'boom' }));
    const error = await caught(client.coverage());
    expect(error).toMatchObject({ status: 500, slug: 'internal' });
    expect(server.requests).toHaveLength(3);
  });

  it('retries a reset connection (network error)', async () => {
    const { server, client } = await setup((req, res, i) => {
      if (i === 0) req.socket.destroy();
      else sendJson(res, 200, VALID_BODIES.coins);
    });
    await client.coins();
    expect(server.requests).toHaveLength(2);
  });

  it('a file link request reset after it was sent is not retried: LinkAnswerLostError, the caller decides', async () => {
    const { server, client } = await setup((req) => req.socket.destroy());
    const error = await caught(client.requestFileLink('deribit', 'BTC', '2026-03-10', 'levels'));
    expect(error).toBeInstanceOf(LinkAnswerLostError);
    expect((error as Error).message).toMatch(/answer to the file link request was lost.*may have charged/);
    expect(server.requests).toHaveLength(1);
    expect(client.spent().credits).toBe(0);
  });

  it('a network failure after every attempt is a NetworkError without the key', async () => {
    const { client } = await setup((req) => req.socket.destroy());
    const error = await caught(client.me());
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toContain('after 3 attempt(s)');
  });

  it('a headers timeout counts as a network error', async () => {
    const { server, client } = await setup(
      (_req, res, i) => {
        if (i > 0) sendJson(res, 200, VALID_BODIES.coins); // the first request never answers
      },
      { timeouts: { headersMs: 50 } },
    );
    await client.coins();
    // The wait covers the new connection too: on a loaded machine the second may time out as well.
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
  });
});

describe('redirects and aborts', () => {
  it('a redirect on a JSON endpoint is not followed', async () => {
    const { server, client } = await setup((req, res) => {
      if (req.url === '/elsewhere') return sendJson(res, 200, VALID_BODIES.coins);
      res.writeHead(301, { location: '/elsewhere' });
      res.end();
    });
    const error = await caught(client.coins());
    // Something on the way answered instead of the API: it could not be reached (exit 6).
    expect(error).toBeInstanceOf(NetworkError);
    expect(exitCodeOf(error)).toBe(6);
    expect(server.requests.map((r) => r.url)).toEqual(['/api/v1/coins']);
  });

  it('an aborted client signal stops the call without retries', async () => {
    const controller = new AbortController();
    const { server, client } = await setup(
      () => controller.abort(new Error('stop')), // never answers; the abort ends the wait
      { signal: controller.signal },
    );
    await expect(client.coverage()).rejects.toThrow();
    expect(server.requests).toHaveLength(1);
  });
});

describe('raw get (gexwh api PATH)', () => {
  it('returns the parsed JSON, accepts the /api/v1 prefix and inline query', async () => {
    const { server, client } = await setup((_req, res) =>
      sendJson(res, 200, { data: { anything: true }, meta: { rate_limit: { limit: 50, remaining: 3, reset: RESET } } }),
    );
    const response = await client.get('/api/v1/levels/deribit/BTC?expiration=TOTAL', { compare: '1d' });
    expect(server.requests[0]!.url).toBe('/api/v1/levels/deribit/BTC?expiration=TOTAL&compare=1d');
    expect(response.body).toEqual({ data: { anything: true }, meta: { rate_limit: { limit: 50, remaining: 3, reset: RESET } } });
    expect(response.quota.requests?.remaining).toBe(3);
    expect(client.spent().requests).toBe(1);
  });

  it('refuses paths that leave the API or spend a file credit', async () => {
    const { server, client } = await setup((_req, res) => sendJson(res, 200, {}));
    await expect(client.get('//evil.example.com/x')).rejects.toThrow(UsageError);
    await expect(client.get('https://evil.example.com/x')).rejects.toThrow(UsageError);
    await expect(client.get('/history/files/deribit/BTC/2025-03-03/levels')).rejects.toThrow(UsageError);
    expect(server.requests).toHaveLength(0);
  });

  // Each spelling a server may normalise to the file-link route, or above /api/v1: refused unsent.
  it.each([
    ['percent-encoded letters', '/history/%66iles/deribit/BTC/2025-03-03/levels', /file credit/],
    ['an encoded slash', '/history%2Ffiles/deribit/BTC/2025-03-03/levels', /file credit/],
    ['doubly encoded', '/history/%2566iles/deribit/BTC/2025-03-03/levels', /file credit/],
    ['empty segments', '/history//files///deribit/BTC/2025-03-03/levels/', /file credit/],
    ['dot segments', '/history/./files/x/../deribit/BTC/2025-03-03/levels', /file credit/],
    ['encoded dots', '/history/x/%2e%2E/files/deribit/BTC/2025-03-03/levels', /file credit/],
    ['upper case', '/HISTORY/Files/deribit/BTC/2025-03-03/levels', /file credit/],
    ['the prefix, upper case', '/API/V1/history/files/deribit/BTC/2025-03-03/levels', /file credit/],
    ['a longer path under the route', '/history/files/deribit/BTC/2025-03-03/levels/x', /file credit/],
    ['dots above the prefix', '/../admin', /leaves \/api\/v1/],
    ['dots out of the prefix', '/api/v1/../v2/me', /leaves \/api\/v1/],
    ['encoded dots above the prefix', '/%2e%2e/%2e%2e/admin', /leaves \/api\/v1/],
    ['doubly encoded dots above the prefix', '/%252e%252e/%252e%252e/admin', /leaves \/api\/v1/],
    ['a malformed escape', '/levels/%zz', /malformed percent-encoding/],
  ])('refuses %s, sending nothing', async (_label, path, message) => {
    const { server, client } = await setup((_req, res) => sendJson(res, 200, {}));
    const error = await caught(client.get(path));
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
    expect(server.requests).toHaveLength(0);
  });

  it('sends the canonical path it judged: decoded, dots resolved, each segment encoded again', async () => {
    const { server, client } = await setup((_req, res) => sendJson(res, 200, { data: {} }));
    await client.get('/api/v1/./levels//x/../deribit%2Bderive/B%54C/?compare=1d');
    expect(server.requests[0]!.url).toBe('/api/v1/levels/deribit%2Bderive/BTC?compare=1d');
    await client.get('/history/files/deribit/BTC');
    expect(server.requests[1]!.url).toBe('/api/v1/history/files/deribit/BTC');
    expect(client.spent()).toEqual({ requests: 2, credits: 0 });
  });

  it('error answers are ApiError', async () => {
    const { client } = await setup((_req, res) => sendJson(res, 404, { error: 'no_data', message: 'none' }));
    await expect(client.get('/levels/deribit/XYZ')).rejects.toMatchObject({ status: 404, slug: 'no_data' });
  });
});
