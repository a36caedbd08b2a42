// What a stop (SIGINT/SIGTERM) and a local write error do to the two paid steps of a download: the
// link request (the 302 is what the server charges) and the storage fetch of a paid link.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient, type ApiClientOptions } from '../../src/api/client.js';
import { sleep } from '../../src/api/retry.js';
import { LocalWriteError, NetworkError } from '../../src/core/errors.js';
import { KEY, RESET } from './fixtures.js';
import { startServer, type Handler, type TestServer } from './server.js';
import { toolOrSkip } from '../helpers/tool.js';

const FILE = Buffer.from('timestamp_utc,expiration,strike\n'.repeat(2000));
const SHA = createHash('sha256').update(FILE).digest('hex');
const CREDIT_HEADERS = { 'x-history-files-limit': '20', 'x-history-files-remaining': '19', 'x-history-files-reset': RESET };

let dir: string;
const cleanups: (() => Promise<void>)[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gexwh-api-stop-'));
});
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
  await rm(dir, { recursive: true, force: true });
});

interface Setup {
  api: TestServer;
  storage: TestServer;
  client: ApiClient;
  stop: AbortController;
  temp: string;
}

/** An API whose 302 waits `linkDelayMs`, a storage origin, and a client stopped by `stop`. */
async function setup(storageHandler: Handler, linkDelayMs = 0, retry: Partial<ApiClientOptions['retry']> = {}): Promise<Setup> {
  const storage = await startServer(storageHandler);
  const api = await startServer((_req, res, i) => {
    setTimeout(() => {
      res.writeHead(302, { location: `${storage.url}/f.csv.gz?link=${i + 1}`, ...CREDIT_HEADERS });
      res.end();
    }, linkDelayMs);
  });
  const stop = new AbortController();
  const client = createApiClient({
    baseUrl: api.url,
    apiKey: KEY,
    signal: stop.signal,
    retry: { maxAttempts: 3, baseDelayMs: 1, random: () => 0, sleep: async () => {}, ...retry },
  });
  cleanups.push(
    () => api.close(),
    () => storage.close(),
    () => client.close(),
  );
  return { api, storage, client, stop, temp: join(dir, 'f.csv.gz.part') };
}

/** Sends the first half of the file, waits until `release` resolves, then the rest. */
function servePaused(release: Promise<void>, onHalf: () => void): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': FILE.length });
    res.write(FILE.subarray(0, FILE.length / 2), () => {
      onHalf();
      void release.then(() => res.end(FILE.subarray(FILE.length / 2)));
    });
  };
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('a stop while the link request is in flight', () => {
  it('lets the 302 arrive and counts its credit; the next link is not requested', async () => {
    const { api, client, stop } = await setup(() => undefined, 150);
    const pending = client.requestFileLink('deribit', 'BTC', '2025-03-03', 'levels');
    while (api.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    stop.abort('SIGINT');
    const link = await pending;
    expect(link.location.searchParams.get('link')).toBe('1');
    expect(client.spent().credits).toBe(1);
    await expect(client.requestFileLink('deribit', 'BTC', '2025-03-04', 'levels')).rejects.toMatchObject({ name: 'InterruptedError', signal: 'SIGINT' });
    expect(api.requests).toHaveLength(1); // refused unsent: nothing charged
  });

  it('a per-call signal works the same way', async () => {
    const { api, client } = await setup(() => undefined, 100);
    const call = new AbortController();
    const pending = client.requestFileLink('deribit', 'BTC', '2025-03-03', 'levels', { signal: call.signal });
    while (api.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    call.abort('SIGTERM');
    await expect(pending).resolves.toMatchObject({ location: expect.any(URL) });
    expect(client.spent().credits).toBe(1);
  });
});

describe('a stop while a paid link is downloading', () => {
  it('finishes the body: the file arrives whole', async () => {
    const release = deferred();
    const half = deferred();
    const { client, stop, temp } = await setup(servePaused(release.promise, half.resolve));
    const link = await client.requestFileLink('deribit', 'BTC', '2025-03-03', 'levels');
    const download = client.downloadToFile(link, temp, { expectedBytes: FILE.length });
    await half.promise;
    stop.abort('SIGINT');
    release.resolve();
    await expect(download).resolves.toEqual({ bytes: FILE.length, sha256: SHA });
    expect(await readFile(temp)).toEqual(FILE);
  });

  it('but makes no new attempt after it: a broken body is not retried once stopped', async () => {
    const { storage, client, stop, temp } = await setup((_req, res) => {
      res.writeHead(200, { 'content-length': FILE.length });
      res.write(FILE.subarray(0, 100), () => {
        stop.abort('SIGINT');
        res.socket?.destroy();
      });
    });
    const link = await client.requestFileLink('deribit', 'BTC', '2025-03-03', 'levels');
    const error = await client.downloadToFile(link, temp, { expectedBytes: FILE.length }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(storage.requests).toHaveLength(1);
    expect(existsSync(temp)).toBe(false);
  });

  it('a stop during the backoff before a retry ends the wait: no retry, no 10 s pause', async () => {
    const { storage, client, stop, temp } = await setup(
      (_req, res) => {
        res.writeHead(503);
        res.end();
      },
      0,
      { sleep, baseDelayMs: 10_000, maxDelayMs: 10_000, random: () => 0.99 },
    );
    const link = await client.requestFileLink('deribit', 'BTC', '2025-03-03', 'levels');
    const started = performance.now();
    const download = client.downloadToFile(link, temp, { expectedBytes: FILE.length });
    while (storage.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 50)); // the 503 is in, the backoff has begun
    stop.abort('SIGTERM');
    await expect(download).rejects.toThrow(/failed after 1 attempt\(s\): HTTP 503/);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(storage.requests).toHaveLength(1);
  });

  it('the per-call signal still aborts the transfer', async () => {
    const release = deferred();
    const half = deferred();
    const { client, temp } = await setup(servePaused(release.promise, half.resolve));
    const link = await client.requestFileLink('deribit', 'BTC', '2025-03-03', 'levels');
    const abort = new AbortController();
    const download = client.downloadToFile(link, temp, { expectedBytes: FILE.length, signal: abort.signal });
    await half.promise;
    abort.abort(new Error('aborted by the caller'));
    await expect(download).rejects.toThrow();
    release.resolve();
    expect(existsSync(temp)).toBe(false);
  });
});

describe('a local write error', () => {
  const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });

  it('is a LocalWriteError with the errno in its cause, thrown at once (the storage is not asked again)', async () => {
    const { storage, client, temp } = await setup((_req, res) => {
      res.writeHead(200, { 'content-length': FILE.length });
      res.end(FILE);
    });
    const link = await client.requestFileLink('deribit', 'BTC', '2025-03-03', 'levels');
    const openFile = () => new Writable({ write: (_chunk, _encoding, callback) => callback(enospc()) });
    const error = await client.downloadToFile(link, temp, { expectedBytes: FILE.length, openFile }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LocalWriteError);
    expect((error as Error).message).toMatch(/could not be written to disk: ENOSPC/);
    expect(((error as Error).cause as NodeJS.ErrnoException).code).toBe('ENOSPC');
    expect(storage.requests).toHaveLength(1);
  });

  it.skipIf(!toolOrSkip(existsSync('/dev/full'), '/dev/full', 'a Linux /dev'))('a real one: writing to /dev/full (the kernel answers ENOSPC)', async () => {
    const { storage, client, temp } = await setup((_req, res) => {
      res.writeHead(200, { 'content-length': FILE.length });
      res.end(FILE);
    });
    const link = await client.requestFileLink('deribit', 'BTC', '2025-03-03', 'levels');
    const { createWriteStream } = await import('node:fs');
    const error = await client
      .downloadToFile(link, temp, { expectedBytes: FILE.length, openFile: () => createWriteStream('/dev/full') })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LocalWriteError);
    expect(((error as Error).cause as NodeJS.ErrnoException).code).toBe('ENOSPC');
    expect(storage.requests).toHaveLength(1);
  });

  it('a broken body is still a network error, retried on the same link', async () => {
    const { storage, client, temp } = await setup((_req, res, i) => {
      res.writeHead(200, { 'content-length': FILE.length });
      if (i === 0) return void res.write(FILE.subarray(0, 100), () => res.socket?.destroy());
      res.end(FILE);
    });
    const link = await client.requestFileLink('deribit', 'BTC', '2025-03-03', 'levels');
    await expect(client.downloadToFile(link, temp, { expectedBytes: FILE.length })).resolves.toEqual({ bytes: FILE.length, sha256: SHA });
    expect(storage.requests).toHaveLength(2);
  });
});
