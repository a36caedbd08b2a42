import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient, type ApiClientOptions } from '../../src/api/client.js';
import { ApiError, ApiSchemaError, LinkExpiredError, NetworkError, QuotaExceededError, UnsafeResponseError, UsageError } from '../../src/core/errors.js';
import type { PlannedFile } from '../../src/core/rows.js';
import { syncApiFrom } from '../../src/sync/api-port.js';
import { PaidDownloadError } from '../../src/sync/fetch.js';
import { KEY, RESET } from './fixtures.js';
import { sendJson, startServer, type Handler, type TestServer } from './server.js';

const FILE = Buffer.from('timestamp_utc,expiration,strike\n'.repeat(2000)); // ~64 KB, several chunks
const SHA = createHash('sha256').update(FILE).digest('hex');
const FILE_PATH = '/api/v1/history/files/deribit/BTC/2025-03-03/levels';
const CREDIT_HEADERS = { 'x-history-files-limit': '20', 'x-history-files-remaining': '19', 'x-history-files-reset': RESET };

let dir: string;
const cleanups: (() => Promise<void>)[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gexwh-api-'));
});
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
  await rm(dir, { recursive: true, force: true });
});

interface Setup {
  api: TestServer;
  storage: TestServer;
  client: ApiClient;
  temp: string;
}

/** An API that answers every download with a 302 to `locationOf(storage, linkNumber)`, and a storage origin. */
async function setup(
  storageHandler: Handler,
  options: { apiHandler?: Handler; locationOf?: (storageUrl: string, link: number) => string; client?: Partial<ApiClientOptions> } = {},
): Promise<Setup> {
  const storage = await startServer(storageHandler);
  const locationOf = options.locationOf ?? ((url, link) => `${url}/files/2025-03-03_levels.csv.gz?link=${link}&sig=s3cr3t`);
  const api = await startServer(
    options.apiHandler ??
      ((_req, res, i) => {
        res.writeHead(302, { location: locationOf(storage.url, i + 1), 'cache-control': 'no-store', ...CREDIT_HEADERS });
        res.end();
      }),
  );
  const client = createApiClient({
    baseUrl: api.url,
    apiKey: KEY,
    retry: { maxAttempts: 3, baseDelayMs: 1, random: () => 0, sleep: async () => {} },
    ...options.client,
  });
  cleanups.push(
    () => api.close(),
    () => storage.close(),
    () => client.close(),
  );
  return { api, storage, client, temp: join(dir, '2025-03-03_levels.csv.gz.part') };
}

/** One file as the client serves it: its link (one credit), then the key-free download. */
async function linkThenDownload(client: ApiClient, temp: string, options: { expectedBytes?: number } = {}) {
  const link = await client.requestFileLink('deribit', 'BTC', '2025-03-03', 'levels');
  return client.downloadToFile(link, temp, options);
}

/** One file as a sync fetches it (src/sync/api-port.ts): an expired link is renewed once, for one more credit. */
function downloadThroughSyncPort(client: ApiClient, temp: string) {
  const file: PlannedFile = {
    exchange: 'deribit',
    symbol: 'BTC',
    sessionDate: '2025-03-03',
    file: 'levels',
    sha256: SHA,
    bytes: FILE.length,
    rows: 2000,
    schemaVersion: 1,
  };
  // A budget with credits left over: a renewal may be bought (without one the file is deferred, see
  // test/sync/quota-as-server-counts.test.ts).
  const budget = { paid: async () => {}, answerLost: () => {}, takeExtraCredit: () => true };
  return syncApiFrom(client).download(file, temp, new AbortController().signal, budget);
}

function serveFile(res: ServerResponse, body: Buffer = FILE): void {
  res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': body.length });
  res.end(body);
}

/** Sends the headers for the whole file, half the body, then drops the connection. */
function serveTruncated(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': FILE.length });
  res.write(FILE.subarray(0, FILE.length / 2), () => res.socket?.destroy());
}

const fileHandler: Handler = (_req, res) => serveFile(res);

describe('requestFileLink', () => {
  it('GETs the file path with the key, does not follow the 302, returns the link and the credit quota', async () => {
    const { api, storage, client } = await setup(fileHandler);
    const link = await client.requestFileLink('deribit', 'BTC', '2025-03-03', 'levels');
    expect(api.requests.map((r) => r.url)).toEqual([FILE_PATH]);
    expect(api.requests[0]!.headers['x-api-key']).toBe(KEY);
    expect(storage.requests).toHaveLength(0); // redirect not followed
    expect(link.location.href).toBe(`${storage.url}/files/2025-03-03_levels.csv.gz?link=1&sig=s3cr3t`);
    expect(link.quota.files).toEqual({ limit: 20, remaining: 19, reset: new Date(RESET), unlimited: false });
    expect(client.spent()).toEqual({ requests: 0, credits: 1 });
  });

  it.each([['file:///etc/passwd'], ['/relative/link'], ['ftp://example.com/f'], ['http://user:pw@127.0.0.1:1/f'], ['http://example.com/f']])(
    'refuses Location %s and sends nothing there',
    async (location) => {
      const { storage, client } = await setup(fileHandler, { locationOf: (url) => location.replace('127.0.0.1:1', new URL(url).host) });
      await expect(client.requestFileLink('deribit', 'BTC', '2025-03-03', 'levels')).rejects.toThrow(UnsafeResponseError);
      expect(storage.requests).toHaveLength(0);
    },
  );

  it('a 302 without quota headers (quota service down) still gives the link; the state stays unknown', async () => {
    const { client } = await setup(fileHandler, {
      apiHandler: (_req, res) => {
        res.writeHead(302, { location: 'https://storage.example.com/f?sig=1' });
        res.end();
      },
    });
    const link = await client.requestFileLink('deribit', 'BTC', '2025-03-03', 'levels');
    expect(link.quota).toEqual({});
    expect(client.quota().files).toBeUndefined();
    expect(client.spent().credits).toBe(1); // counted as spent: the conservative side for budgets
  });

  it('a 302 without Location is unsafe', async () => {
    const { client } = await setup(fileHandler, {
      apiHandler: (_req, res) => {
        res.writeHead(302);
        res.end();
      },
    });
    await expect(client.requestFileLink('deribit', 'BTC', '2025-03-03', 'levels')).rejects.toThrow(UnsafeResponseError);
  });

  it('a 200 instead of 302 is a schema error', async () => {
    const { client } = await setup(fileHandler, { apiHandler: (_req, res) => sendJson(res, 200, { data: {} }) });
    await expect(client.requestFileLink('deribit', 'BTC', '2025-03-03', 'levels')).rejects.toThrow(ApiSchemaError);
  });

  it('validates date and file kind before sending', async () => {
    const { api, client } = await setup(fileHandler);
    await expect(client.requestFileLink('deribit', 'BTC', '../../me', 'levels')).rejects.toThrow(UsageError);
    // @ts-expect-error: not a file kind
    await expect(client.requestFileLink('deribit', 'BTC', '2025-03-03', 'trades')).rejects.toThrow(UsageError);
    expect(api.requests).toHaveLength(0);
  });

  it('retries 503 files_unavailable (no credit), then gets the link', async () => {
    const { api, client } = await setup(fileHandler, {
      apiHandler: (_req, res, i) => {
        if (i === 0) return sendJson(res, 503, { error: 'files_unavailable', message: 'Storage unavailable.' });
        res.writeHead(302, { location: 'https://storage.example.com/f?sig=1', ...CREDIT_HEADERS });
        res.end();
      },
    });
    await client.requestFileLink('deribit', 'BTC', '2025-03-03', 'levels');
    expect(api.requests).toHaveLength(2);
    expect(client.spent().credits).toBe(1);
  });

  it('429 history_files_limit_exceeded: QuotaExceededError on the files bucket, reset from headers, no retry', async () => {
    const { api, client } = await setup(fileHandler, {
      apiHandler: (_req, res) =>
        sendJson(
          res,
          429,
          { error: 'history_files_limit_exceeded', message: 'No credits left.' },
          {
            'x-history-files-limit': '20',
            'x-history-files-remaining': '0',
            'x-history-files-reset': RESET,
          },
        ),
    });
    const error = await client.requestFileLink('deribit', 'BTC', '2025-03-03', 'levels').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QuotaExceededError);
    expect(error).toMatchObject({ bucket: 'files', resetAt: new Date(RESET), slug: 'history_files_limit_exceeded' });
    expect(api.requests).toHaveLength(1);
    expect(client.spent().credits).toBe(0);
    expect(client.quota().files?.remaining).toBe(0);
  });

  it('404 no_file is an ApiError, not retried', async () => {
    const { api, client } = await setup(fileHandler, { apiHandler: (_req, res) => sendJson(res, 404, { error: 'no_file', message: 'No such file.' }) });
    await expect(client.requestFileLink('deribit', 'BTC', '2025-03-03', 'levels')).rejects.toMatchObject({ status: 404, slug: 'no_file' });
    expect(api.requests).toHaveLength(1);
  });
});

describe('downloadToFile', () => {
  it('fetches with no key, no Authorization, no Cookie; writes the exact bytes; returns size and sha256', async () => {
    const { storage, client, temp } = await setup(fileHandler);
    const link = await client.requestFileLink('deribit', 'BTC', '2025-03-03', 'levels');
    const result = await client.downloadToFile(link, temp, { expectedBytes: FILE.length });
    expect(result).toEqual({ bytes: FILE.length, sha256: SHA });
    expect(await readFile(temp)).toEqual(FILE);
    expect(storage.requests).toHaveLength(1);
    const sent = storage.requests[0]!;
    expect(sent.url).toBe('/files/2025-03-03_levels.csv.gz?link=1&sig=s3cr3t');
    expect(sent.headers['x-api-key']).toBeUndefined();
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.headers.cookie).toBeUndefined();
    expect(JSON.stringify(sent.headers)).not.toContain(KEY);
  });

  it('does not follow a storage redirect', async () => {
    const { storage, client, temp } = await setup((req, res) => {
      if (req.url?.startsWith('/elsewhere')) return serveFile(res);
      res.writeHead(302, { location: '/elsewhere' });
      res.end();
    });
    const link = await client.requestFileLink('deribit', 'BTC', '2025-03-03', 'levels');
    await expect(client.downloadToFile(link, temp)).rejects.toThrow(UnsafeResponseError);
    expect(storage.requests).toHaveLength(1);
    expect(existsSync(temp)).toBe(false);
  });

  it('from an API that is not on loopback, refuses a plain-http link to this machine unsent', async () => {
    const storage = await startServer((_req, res) => serveFile(res));
    // The API is never contacted: the link is handed to the downloader as if a remote API had sent it.
    const client = createApiClient({ baseUrl: 'https://api.example.invalid', apiKey: KEY, retry: { maxAttempts: 1 } });
    cleanups.push(
      () => storage.close(),
      () => client.close(),
    );
    const temp = join(dir, 'remote.part');
    const error = await client.downloadToFile(new URL(`${storage.url}/f.csv.gz?sig=s3cr3t`), temp).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsafeResponseError);
    expect((error as Error).message).toMatch(/plain http on this machine, from an API that is not on this machine/);
    expect((error as Error).message).not.toContain('s3cr3t');
    expect(storage.requests).toHaveLength(0);
    expect(existsSync(temp)).toBe(false);
  });

  it('retries a truncated body with the same link', async () => {
    const { api, storage, client, temp } = await setup((_req, res, i) => (i === 0 ? serveTruncated(res) : serveFile(res)));
    const result = await linkThenDownload(client, temp, { expectedBytes: FILE.length });
    expect(result).toEqual({ bytes: FILE.length, sha256: SHA });
    expect(client.spent().credits).toBe(1);
    expect(storage.requests.map((r) => r.url)).toEqual([
      '/files/2025-03-03_levels.csv.gz?link=1&sig=s3cr3t',
      '/files/2025-03-03_levels.csv.gz?link=1&sig=s3cr3t',
    ]);
    expect(api.requests).toHaveLength(1);
    expect(await readFile(temp)).toEqual(FILE);
  });

  it('creates its temp file new: a link planted at the name is refused, never written through', async () => {
    const { client, temp } = await setup(fileHandler);
    const target = join(dir, 'victim.txt');
    await writeFile(target, 'mine');
    await symlink(target, temp);
    const link = await client.requestFileLink('deribit', 'BTC', '2025-03-03', 'levels');
    await expect(client.downloadToFile(link, temp, { expectedBytes: FILE.length })).rejects.toThrow(/EEXIST/);
    expect(await readFile(target, 'utf8')).toBe('mine'); // before ('w'), it held the downloaded bytes
  });

  it('retries storage 5xx with the same link, then gives up with NetworkError and no temp file', async () => {
    const { api, storage, client, temp } = await setup((_req, res) => {
      res.writeHead(500);
      res.end('oops');
    });
    const error = await linkThenDownload(client, temp).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).not.toContain('s3cr3t');
    expect(storage.requests).toHaveLength(3);
    expect(new Set(storage.requests.map((r) => r.url)).size).toBe(1);
    expect(api.requests).toHaveLength(1);
    expect(existsSync(temp)).toBe(false);
  });

  it('a storage 404 is final', async () => {
    const { storage, client, temp } = await setup((_req, res) => {
      res.writeHead(404);
      res.end('NoSuchKey');
    });
    await expect(linkThenDownload(client, temp)).rejects.toThrow(NetworkError);
    expect(storage.requests).toHaveLength(1);
  });

  it('aborts when the body exceeds maxBytes (Content-Length or streamed) and removes the temp file', async () => {
    const { client, temp } = await setup((_req, res, i) => {
      if (i === 0) return serveFile(res); // declared length too big
      res.writeHead(200, { 'transfer-encoding': 'chunked' }); // no length: caught while streaming
      res.end(FILE);
    });
    const link = await client.requestFileLink('deribit', 'BTC', '2025-03-03', 'levels');
    await expect(client.downloadToFile(link, temp, { maxBytes: 1000 })).rejects.toThrow(/1000 bytes/);
    await expect(client.downloadToFile(link, temp, { expectedBytes: 1000 })).rejects.toThrow(UnsafeResponseError);
    expect(existsSync(temp)).toBe(false);
  });
});

describe("expired links, renewed by the sync's port", () => {
  it('storage 403 "expired" → one new link (a counted extra credit), then success', async () => {
    const { api, storage, client, temp } = await setup((req, res) => {
      if (req.url?.includes('link=1')) {
        res.writeHead(403, { 'content-type': 'application/xml' });
        res.end('<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>');
        return;
      }
      serveFile(res);
    });
    const result = await downloadThroughSyncPort(client, temp);
    expect(result).toEqual({ bytes: FILE.length, sha256: SHA, creditsSpent: 2 });
    expect(api.requests).toHaveLength(2);
    expect(storage.requests.map((r) => new URL(r.url, 'http://x').searchParams.get('link'))).toEqual(['1', '2']);
    expect(client.spent().credits).toBe(2);
  });

  it('a link older than its lifetime is not even tried', async () => {
    let now = 1_000_000;
    const { storage, client, temp } = await setup(fileHandler, { client: { now: () => now, linkLifetimeMs: 15 * 60 * 1000 } });
    const link = await client.requestFileLink('deribit', 'BTC', '2025-03-03', 'levels');
    now += 15 * 60 * 1000;
    await expect(client.downloadToFile(link, temp)).rejects.toThrow(LinkExpiredError);
    expect(storage.requests).toHaveLength(0);
  });

  it('expiry during retries asks for one new link; a second expiry is reported', async () => {
    let now = 0;
    const { api, storage, client, temp } = await setup(
      (_req, res) => {
        now += 10 * 60 * 1000; // every storage attempt takes 10 minutes
        res.writeHead(503);
        res.end();
      },
      { client: { now: () => now } },
    );
    const error = await downloadThroughSyncPort(client, temp).catch((e: unknown) => e);
    // Both links were paid, so the failure carries the credits it cost.
    expect(error).toBeInstanceOf(PaidDownloadError);
    expect((error as PaidDownloadError).creditsSpent).toBe(2);
    expect((error as PaidDownloadError).cause).toBeInstanceOf(LinkExpiredError);
    expect(api.requests).toHaveLength(2); // the original link and one renewal
    expect(storage.requests).toHaveLength(4); // two attempts per link before each expired
    expect(client.spent().credits).toBe(2);
  });
});

describe('link errors from the API side', () => {
  it('passes ApiError through without downloading', async () => {
    const { storage, client, temp } = await setup(fileHandler, {
      apiHandler: (_req, res) => sendJson(res, 400, { error: 'invalid_param', message: 'bad', valid_values: ['levels'] }),
    });
    const error = await linkThenDownload(client, temp).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).hints).toEqual({ valid_values: ['levels'] });
    expect(storage.requests).toHaveLength(0);
  });
});
