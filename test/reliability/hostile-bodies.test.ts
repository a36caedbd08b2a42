// Reliability matrix, bodies a hostile or broken server sends to the API client, each against a local
// server on port 0: a redirect with an endless or stalled body, a JSON answer past its cap (a manifest
// page has its own, 400 rows at most), a JSON body trickling below the minimum rate. Each ends that
// request with a clear error (or, for a redirect, without reading the body) and bounded memory.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClientOptions } from '../../src/api/index.js';
import { DEFAULT_MAX_JSON_BYTES, MAX_DRAINED_BYTES, MAX_MANIFEST_JSON_BYTES } from '../../src/api/http.js';
import { maxInflatedBytes } from '../../src/api/inflate-meter.js';
import { ApiSchemaError, NetworkError, PartialFailureError } from '../../src/core/errors.js';
import { KEY } from '../api/fixtures.js';
import { expectRecovered, syncVia } from '../helpers/reliability.js';
import { listFiles, startBench, type Bench } from '../helpers/sync.js';

const servers: Server[] = [];
const closers: Array<() => Promise<void>> = [];
let bench: Bench | undefined;
afterEach(async () => {
  await bench?.close();
  bench = undefined;
  for (const close of closers.splice(0)) await close();
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

interface Hostile {
  url: string;
  requests: () => number;
  bytesSent: () => number;
}

async function hostileServer(handler: (res: ServerResponse, url: string) => void): Promise<Hostile> {
  let sent = 0;
  let requests = 0;
  const server = createServer((req, res) => {
    requests += 1;
    const write = res.write.bind(res);
    res.write = ((chunk: Buffer | string, ...rest: never[]) => {
      sent += Buffer.byteLength(chunk);
      return write(chunk, ...rest);
    }) as typeof res.write;
    handler(res, req.url ?? '');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests, bytesSent: () => sent };
}

function client(server: Hostile, options: Partial<ApiClientOptions> = {}) {
  const c = createApiClient({ baseUrl: server.url, apiKey: KEY, retry: { maxAttempts: 1, baseDelayMs: 1 }, ...options });
  closers.push(() => c.close());
  return c;
}

/** Writes `block` until the client stops reading (or `limit` bytes), honouring back-pressure. */
function pump(res: ServerResponse, block: Buffer | string, limit = Infinity): void {
  let sent = 0;
  const next = () => {
    while (sent < limit && !res.destroyed) {
      sent += Buffer.byteLength(block);
      if (!res.write(block)) return void res.once('drain', next);
    }
    if (!res.destroyed) res.end();
  };
  next();
}

const LINK = ['deribit', 'BTC', '2026-03-10', 'levels'] as const;

describe('redirect bodies', () => {
  it('a 302 with an endless body: the link is taken, the body cut after a few KB', async () => {
    const api = await hostileServer((res) => {
      res.writeHead(302, { location: 'http://127.0.0.1:9/f.csv.gz?sig=1' });
      pump(res, Buffer.alloc(64 * 1024, 'x'));
    });
    const link = await client(api).requestFileLink(...LINK);
    expect(link.location.href).toBe('http://127.0.0.1:9/f.csv.gz?sig=1');
    // Socket buffers hold some; without the cap the server would send until the test timed out.
    expect(api.bytesSent()).toBeLessThan(8 * 1024 * 1024);
    expect(MAX_DRAINED_BYTES).toBeLessThanOrEqual(8 * 1024);
  });

  it('a 302 whose body stalls: the link is taken without waiting for the body timeout', async () => {
    const api = await hostileServer((res) => {
      res.writeHead(302, { location: 'http://127.0.0.1:9/f.csv.gz?sig=1' });
      res.write('a few bytes, then nothing'); // the connection stays open
    });
    // bodyMs far above the test's own timeout: only the drain's time limit can end this in time.
    const link = await client(api, { timeouts: { bodyMs: 120_000 } }).requestFileLink(...LINK);
    expect(link.location.protocol).toBe('http:');
  }, 15_000);
});

describe('JSON bodies past their cap', () => {
  it(`a manifest page past ${MAX_MANIFEST_JSON_BYTES} bytes (400 rows at most): refused at the cap, read no further`, async () => {
    const row = JSON.stringify({ session_date: '2026-03-10', file: 'levels', bytes: 1, rows: 1, sha256: 'a'.repeat(64) });
    const api = await hostileServer((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":[');
      pump(res, `${row},`.repeat(200));
    });
    const rssBefore = process.memoryUsage().rss;
    const error = await client(api)
      .historyFiles('deribit', 'BTC')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiSchemaError);
    expect((error as Error).message).toMatch(/a manifest page \(at most 400 rows\) larger than 2097152 bytes; refused/);
    expect(api.bytesSent()).toBeLessThan(MAX_MANIFEST_JSON_BYTES + 8 * 1024 * 1024);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(100 * 1024 * 1024);
  });

  it(`any other answer past ${DEFAULT_MAX_JSON_BYTES} bytes: refused at the cap`, async () => {
    const api = await hostileServer((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":"');
      pump(res, Buffer.alloc(64 * 1024, 'y'));
    });
    const error = await client(api)
      .get('/levels/deribit/BTC')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiSchemaError);
    expect((error as Error).message).toMatch(/an answer larger than 16777216 bytes; refused/);
    expect(api.bytesSent()).toBeLessThan(DEFAULT_MAX_JSON_BYTES + 8 * 1024 * 1024);
  });
});

describe('JSON bodies below the minimum rate', () => {
  it('a body trickling just often enough to dodge bodyMs: aborted as too slow, retried, then a network error', async () => {
    const api = await hostileServer((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":[');
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(' ')), 20);
      res.on('close', () => clearInterval(timer));
    });
    const c = client(api, { timeouts: { bodyMs: 300, minBytesPerSecond: 1000 }, retry: { maxAttempts: 2, baseDelayMs: 1 } });
    const error = await c.me().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toMatch(
      /could not be reached \(\/me: body too slow: \d+ bytes\/s after \d+ s, below the 1000 bytes\/s minimum\) after 2 attempt\(s\)/,
    );
    expect(api.requests()).toBe(2);
  });
});

describe('a gzip inflating far past its declared rows (a decompression bomb)', () => {
  it('consistent with its manifest size: aborted while downloading, nothing archived, the other files loaded', async () => {
    bench = await startBench({ days: 2 });
    const { emulator } = bench;
    const lister = createApiClient({ baseUrl: emulator.baseUrl, apiKey: emulator.keys.pro });
    closers.push(() => lister.close());
    const row = (await lister.historyFiles('deribit', 'BTC')).data.find((r) => r.session_date === '2026-03-10' && r.file === 'levels')!;
    // Zeros deflate ~1000:1: a bomb within the manifest's byte count that inflates 8x past the cap.
    const bomb = gzipSync(Buffer.alloc(8 * maxInflatedBytes(row.rows)), { level: 9 });
    expect(bomb.length).toBeLessThanOrEqual(row.bytes);
    const storage = await hostileServer((res) => {
      res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': bomb.length });
      res.end(bomb);
    });
    emulator.faults.add({
      where: 'api',
      match: /\/api\/v1\/history\/files\/deribit\/BTC\/2026-03-10\/levels$/,
      times: 1,
      action: { kind: 'redirect', location: `${storage.url}/bomb.csv.gz` },
    });
    const run = await syncVia(bench);
    expect(run.ok).toBe(false);
    expect((run as { error: unknown }).error).toBeInstanceOf(PartialFailureError);
    expect(run.summary?.filesFailed).toEqual([
      expect.objectContaining({
        file: 'levels',
        sessionDate: '2026-03-10',
        error: expect.stringMatching(/inflates past \d+ bytes, far more than its declared rows/),
      }),
    ]);
    expect((await listFiles(bench.archive)).filter((f) => f.includes('2026-03-10_levels'))).toEqual([]);
    await expectRecovered(bench, { forcedCredits: 1 });
  });
});
