// Reliability matrix, a hostile or broken server: redirects that must be refused unsent, names from the
// server that could reach a path or SQL, and oversized bodies. The key and the machine stay safe:
// nothing is sent with the key outside the API, nothing is written outside the archive.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { ApiSchemaError, PartialFailureError } from '../../src/core/errors.js';
import type { PlannedFile } from '../../src/core/rows.js';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { consistent, inspectWarehouse } from '../helpers/invariants.js';
import { expectRecovered, ONE_PAIR, recordedCredits, syncVia } from '../helpers/reliability.js';
import { expectArchiveHoldsOnly, fetchStage, manifestOf } from '../helpers/fetch-stage.js';
import { listFiles, migrateOnly, NOW, snapshotBench, type Bench, type BenchSnapshot } from '../helpers/sync.js';

let bench: Bench | undefined;
const servers: Server[] = [];
afterEach(async () => {
  await bench?.close();
  bench = undefined;
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.closeAllConnections() ?? s.close(resolve))));
});

// Each test starts a fresh emulator on a copy of one of two states built once: a migrated, empty
// warehouse, or one a clean sync filled (what a hostile name could try to reach).
// Small chains (4 strikes, 1 expiration): no case depends on a file's size.
const EMULATOR = { days: 2, strikes: 4, expirations: 1 };
let empty: BenchSnapshot;
let synced: BenchSnapshot;
const SYNCED_FILES = 6;
beforeAll(async () => {
  empty = await snapshotBench(EMULATOR, migrateOnly);
  synced = await snapshotBench(EMULATOR, async (b) => {
    expect((await syncVia(b)).ok).toBe(true);
    expect(await inspectWarehouse(b.dbPath, b.archive)).toEqual(consistent(SYNCED_FILES));
    expect(b.emulator.counters.credits(b.emulator.keys.pro)).toBe(SYNCED_FILES);
  });
}, 120_000);
afterAll(async () => {
  await empty?.remove();
  await synced?.remove();
});
const open = () => empty.start();
const MANIFEST = /\/history\/files\/deribit\/BTC(\?|$)/;
const ONE_LINK = /\/api\/v1\/history\/files\/deribit\/BTC\/2026-03-10\/levels$/;

/** A loopback server on port 0 that records every request's headers and answers with `handler`. */
async function hostileServer(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; seen: IncomingHttpHeaders[]; bytesSent: () => number }> {
  const seen: IncomingHttpHeaders[] = [];
  let sent = 0;
  const server = createServer((req, res) => {
    seen.push(req.headers);
    const write = res.write.bind(res);
    res.write = ((chunk: Buffer | string, ...rest: never[]) => {
      sent += Buffer.byteLength(chunk);
      return write(chunk, ...rest);
    }) as typeof res.write;
    handler!(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, bytesSent: () => sent };
}

describe('redirects of a file link', () => {
  const refused: { name: string; location: (storage: string) => string | null; error: RegExp }[] = [
    { name: 'Location missing', location: () => null, error: /no Location/ },
    { name: 'relative Location', location: () => '/files/deribit/BTC/2026-03-10/levels.csv.gz', error: /not an absolute URL/ },
    { name: 'data: URL', location: () => 'data:application/gzip;base64,H4sIAAAAAAAAAwMAAAAAAAAAAAA=', error: /scheme "data"/ },
    { name: 'file: URL', location: () => 'file:///etc/passwd', error: /scheme "file"/ },
    { name: 'ftp: URL', location: () => 'ftp://127.0.0.1/x.csv.gz', error: /scheme "ftp"/ },
    { name: 'non-loopback http', location: () => 'http://192.0.2.10/x.csv.gz', error: /non-loopback/ },
    { name: 'credentials in the URL', location: (s) => s.replace('http://', 'http://user:secret@') + '/files/x', error: /user info/ },
  ];

  // Every refusal at the download stage (the real downloader and client, no warehouse): the file fails
  // naming why, nothing is fetched from where the Location points, the paid 302 is counted, and the
  // file is fetched on the next run for that one forced credit.
  describe('at the download stage', () => {
    let emulator: Emulator;
    let root: string;
    let files: PlannedFile[];
    beforeAll(async () => {
      emulator = await startEmulator({ now: NOW, days: 2, expirations: 3, strikes: 12, seed: 11, symbols: ['BTC', 'SPY'] });
      root = mkdtempSync(join(tmpdir(), 'gexwh-hostile-'));
      files = await manifestOf(emulator);
      expect(files).toHaveLength(6);
    });
    afterAll(async () => {
      await emulator?.close();
      if (root) rmSync(root, { recursive: true, force: true });
    });

    it.each(refused)('$name: refused unsent, its credit counted, the rest archived, the next run fetches it', async ({ location, error }) => {
      const archive = mkdtempSync(join(root, 'raw-'));
      const credits = () => emulator.counters.credits(emulator.keys.pro);
      const before = { credits: credits(), storage: emulator.counters.storageHits };
      emulator.faults.add({ where: 'api', match: ONE_LINK, times: 1, action: { kind: 'redirect', location: location(emulator.storageUrl) } });
      const report = await fetchStage(emulator, archive, files);
      emulator.faults.clear();
      expect(report.failed).toEqual([expect.objectContaining({ file: 'levels', sessionDate: '2026-03-10', error: expect.stringMatching(error) })]);
      expect(report.verified).toHaveLength(5);
      expect(emulator.counters.storageHits - before.storage).toBe(5); // the 5 good files only
      expect(emulator.counters.storageTripwire).toBe(0);
      // The 302 was charged: the stage counts that credit as spent.
      expect(report.creditsSpent).toBe(credits() - before.credits);
      expect(report.creditsSpent).toBe(6);
      await expectArchiveHoldsOnly(archive, report);
      const next = await fetchStage(emulator, archive, report.failed);
      expect(next.verified).toHaveLength(1);
      expect(credits() - before.credits).toBe(7);
    });
  });

  // One of them through a whole sync: the warehouse, the recorded credits and the recovery run.
  it.each(refused.filter((r) => r.name === 'file: URL'))(
    '$name: refused unsent, one credit recorded, the rest loaded, the next run completes',
    async ({ location, error }) => {
      bench = await open();
      const { emulator } = bench;
      emulator.faults.add({ where: 'api', match: ONE_LINK, times: 1, action: { kind: 'redirect', location: location(emulator.storageUrl) } });
      const storageBefore = emulator.counters.storageHits;
      const run = await syncVia(bench);
      expect(run.ok).toBe(false);
      expect((run as { error: unknown }).error).toBeInstanceOf(PartialFailureError);
      expect(run.summary?.filesFailed).toEqual([expect.objectContaining({ file: 'levels', sessionDate: '2026-03-10', error: expect.stringMatching(error) })]);
      expect(emulator.counters.storageHits - storageBefore).toBe(5); // the 5 good files only
      expect(emulator.counters.storageTripwire).toBe(0);
      // The 302 was charged: gexwh records that credit as spent.
      expect(await recordedCredits(bench)).toBe(emulator.counters.credits(emulator.keys.pro));
      await expectRecovered(bench, { forcedCredits: 1 });
    },
  );

  it('a link to a loopback server that redirects again: fetched without the key, the second redirect not followed', async () => {
    bench = await open();
    const { emulator } = bench;
    const second = await hostileServer((_req, res) => res.writeHead(200).end('never fetched'));
    const first = await hostileServer((_req, res) => res.writeHead(302, { location: `${second.url}/x.csv.gz` }).end());
    emulator.faults.add({ where: 'api', match: ONE_LINK, times: 1, action: { kind: 'redirect', location: `${first.url}/file.csv.gz?sig=1` } });
    const run = await syncVia(bench);
    expect(run.ok).toBe(false);
    expect(run.summary?.filesFailed[0]?.error).toMatch(/redirect.*not followed/);
    expect(first.seen).toHaveLength(1);
    expect(second.seen).toHaveLength(0);
    for (const headers of first.seen) {
      expect(headers['x-api-key']).toBeUndefined();
      expect(headers.authorization).toBeUndefined();
      expect(JSON.stringify(headers)).not.toContain(emulator.keys.pro);
    }
    await expectRecovered(bench, { forcedCredits: 1 });
  });
});

describe('names from the server that could reach a path or SQL', () => {
  const coverageRow = {
    exchange: 'deribit',
    symbol: 'BTC',
    first_ts: '2026-03-09T00:00:00Z',
    last_ts: '2026-03-11T14:00:00Z',
    sessions: 3,
    files_first_date: '2026-03-09',
    files_last_date: '2026-03-10',
  };
  const manifestRow = { session_date: '2026-03-10', file: 'levels', rows: 10, bytes: 100, sha256: 'a'.repeat(64), schema_version: 1 };
  const meta = {
    timestamp: '2026-03-11T14:07:00Z',
    exchange: 'deribit',
    coin: 'BTC',
    symbol: 'BTC',
    exchange_resolved: 'deribit',
    market: 'crypto',
    units: 'USD',
    docs_url: 'https://x.invalid',
  };
  const cases: { name: string; match: RegExp; body: unknown }[] = [
    { name: 'manifest session_date ../../x', match: MANIFEST, body: { data: [{ ...manifestRow, session_date: '../../x' }], meta } },
    { name: 'manifest session_date with a path inside', match: MANIFEST, body: { data: [{ ...manifestRow, session_date: '2026-03-10/../../../etc' }], meta } },
    { name: 'manifest file kind not one of the three', match: MANIFEST, body: { data: [{ ...manifestRow, file: 'quotes' }], meta } },
    { name: 'manifest file kind with a path', match: MANIFEST, body: { data: [{ ...manifestRow, file: '../../levels' }], meta } },
    {
      name: 'coverage symbol with /',
      match: /\/history\/coverage$/,
      body: { data: [{ ...coverageRow, symbol: 'BTC/../../x' }, coverageRow], meta: { timestamp: meta.timestamp } },
    },
    {
      name: 'coverage symbol with quotes and ;',
      match: /\/history\/coverage$/,
      body: { data: [{ ...coverageRow, symbol: "BTC';DROP TABLE levels;--" }, coverageRow], meta: { timestamp: meta.timestamp } },
    },
    {
      name: 'coverage exchange not a history venue',
      match: /\/history\/coverage$/,
      body: { data: [{ ...coverageRow, exchange: '../raw' }, coverageRow], meta: { timestamp: meta.timestamp } },
    },
  ];

  // Each odd answer pays for nothing and writes no file, so the cases follow one another on one
  // bench (each checked on its own), and one recovery run ends them.
  it(`${cases.length} names (${cases.map((c) => c.name).join('; ')}), one run each: skipped with a warning naming it, nothing written outside the archive, tables intact; the next run completes`, async () => {
    // Tables a clean sync filled, paid on the snapshot's emulator: this one charges only what follows.
    bench = await synced.start();
    const { emulator } = bench;
    emulator.clock.advance(24 * 3600 * 1000);
    const notWarehouse = (f: string) => !/\.duckdb(\.wal)?$/.test(f);
    for (const { name, match, body } of cases) {
      const filesBefore = (await listFiles(bench.dir)).filter(notWarehouse).sort();
      emulator.faults.add({
        where: 'api',
        match,
        times: 1,
        action: { kind: 'body', status: 200, body: JSON.stringify(body), contentType: 'application/json' },
      });
      // One odd answer never sinks the run: the row (or the pair whose manifest it is) is skipped.
      const run = await syncVia(bench);
      emulator.faults.clear();
      expect(run.ok, name).toBe(true);
      expect(run.summary?.skippedPairs, name).toHaveLength(1);
      expect(run.summary?.skippedPairs[0]?.reason, name).toMatch(/(session_date|file|symbol|exchange)/);
      expect(run.summary?.warnings, name).toContainEqual(expect.stringMatching(/^coverage row .* skipped: /));
      // Only the warehouse file (and DuckDB's WAL) may have changed: no new file anywhere in the bench.
      expect((await listFiles(bench.dir)).filter(notWarehouse).sort(), name).toEqual(filesBefore);
      expect(await inspectWarehouse(bench.dbPath, bench.archive), name).toEqual(consistent(SYNCED_FILES));
    }
    // Nothing was paid for by the odd runs: the recovery pays exactly the new day's files.
    await expectRecovered(bench, { forcedCredits: 0, paidBefore: SYNCED_FILES });
  });
});

describe('oversized bodies', () => {
  it('a JSON manifest of hundreds of MB: streamed, refused at the cap, memory bounded', async () => {
    bench = await open();
    // The hostile API streams an endless manifest array; nothing in the test allocates it.
    const row = Buffer.from(`${JSON.stringify({ session_date: '2026-03-10', file: 'levels', rows: 1, bytes: 1, sha256: 'a'.repeat(64), schema_version: 1 })},`);
    const chunk = Buffer.concat(Array.from({ length: 512 }, () => row));
    const api = await hostileServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data":[');
      let sent = 0;
      const pump = () => {
        while (sent < 400 * 1024 * 1024 && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    const client = createApiClient({ baseUrl: api.url, apiKey: bench.emulator.keys.pro, retry: { maxAttempts: 1 } });
    const rssBefore = process.memoryUsage().rss;
    try {
      const error = await client.historyFiles('deribit', 'BTC').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiSchemaError);
      expect((error as Error).message).toMatch(/a manifest page \(at most 400 rows\) larger than 2097152 bytes/);
    } finally {
      await client.close();
    }
    // The server was cut off near the manifest cap (2 MiB), far from the 400 MB it would have sent.
    expect(api.bytesSent()).toBeLessThan(16 * 1024 * 1024);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(200 * 1024 * 1024);
  });

  it('a file body much bigger than the manifest says (no Content-Length): aborted at the manifest size, nothing archived', async () => {
    bench = await open();
    const { emulator } = bench;
    const storage = await hostileServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/gzip' }); // chunked: no length announced
      const block = Buffer.alloc(64 * 1024, 7);
      let sent = 0;
      const pump = () => {
        while (sent < 300 * 1024 * 1024 && !res.destroyed) {
          sent += block.length;
          if (!res.write(block)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    emulator.faults.add({ where: 'api', match: ONE_LINK, times: 1, action: { kind: 'redirect', location: `${storage.url}/big.csv.gz` } });
    const run = await syncVia(bench);
    expect(run.ok).toBe(false);
    expect(run.summary?.filesFailed[0]?.error).toMatch(/exceeds the \d+ bytes allowed/);
    expect(storage.bytesSent()).toBeLessThan(50 * 1024 * 1024);
    expect((await listFiles(bench.archive)).filter((f) => f.includes('2026-03-10_levels'))).toEqual([]);
    await expectRecovered(bench, { forcedCredits: 1 });
  });
});

void ONE_PAIR;
