// The live suite: read-only checks of every endpoint gexwh uses, against the real API, through the
// same client and the same zod schemas as the CLI (a payload that no longer matches fails here
// first). Runs only with GEX_LIVE_TEST=1, GEX_API_KEY and GEX_BASE_URL:
//   GEX_LIVE_TEST=1 GEX_API_KEY=... GEX_BASE_URL=https://... npm run test:live
// Cost: the free endpoints, 5 quota requests, and no file credit unless GEX_LIVE_FILES=1 (then 1).
// Excluded from `npm test` (vitest.config.ts); vitest.live.config.ts runs it.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient, type ApiResponse, type CoverageResponse } from '../../src/api/index.js';

const env = process.env;
const missing = [
  env.GEX_LIVE_TEST === '1' ? undefined : 'GEX_LIVE_TEST=1',
  env.GEX_API_KEY ? undefined : 'GEX_API_KEY',
  env.GEX_BASE_URL ? undefined : 'GEX_BASE_URL',
].filter((name): name is string => name !== undefined);
const enabled = missing.length === 0;
const withFiles = env.GEX_LIVE_FILES === '1';

if (!enabled) {
  console.warn(`live API suite skipped: set ${missing.join(', ')} to run it against the real API`);
}

describe.skipIf(!enabled)('live API (read-only)', () => {
  let client: ApiClient;
  let coverage: CoverageResponse['data'];
  let pair: { exchange: string; symbol: string; files_last_date: string | null; last_ts: string };
  let manifest: ApiResponse<'historyFiles'>['data'];

  beforeAll(() => {
    client = createApiClient({ baseUrl: env.GEX_BASE_URL!, apiKey: env.GEX_API_KEY!, userAgent: 'gexwh-live-test' });
  });
  afterAll(() => client?.close());

  it('free: /me, /exchanges, /coins, /history/coverage match their schemas', async () => {
    const me = await client.me();
    expect(me.data.api_access).toBe(true);
    expect((await client.exchanges()).data.available.length).toBeGreaterThan(0);
    expect((await client.coins()).data.coins.length).toBeGreaterThan(0);
    coverage = (await client.coverage()).data;
    const crypto = coverage.find((row) => row.exchange !== 'tradfi' && row.files_last_date !== null);
    expect(crypto, 'a crypto pair with daily files in the coverage').toBeDefined();
    pair = crypto as typeof pair;
  });

  it('free: /expirations of the pair', async () => {
    const venue = pair.exchange === 'combined' ? 'all' : pair.exchange;
    expect((await client.expirations(venue, pair.symbol)).data.expirations.length).toBeGreaterThan(0);
  });

  it('1 request: a manifest page of the newest session', async () => {
    manifest = (await client.historyFiles(pair.exchange, pair.symbol, { start: pair.files_last_date! })).data;
    expect(manifest.length).toBeGreaterThan(0);
    expect(manifest.every((row) => row.session_date === pair.files_last_date)).toBe(true);
  });

  it('1 request: /history/levels at 15m over the last day (what --fill-levels asks)', async () => {
    const end = new Date(Date.parse(pair.last_ts) + 1000);
    const start = new Date(end.getTime() - 24 * 3600 * 1000);
    const page = await client.historyLevels(pair.exchange, pair.symbol, { granularity: '15m', start: start.toISOString(), end: end.toISOString() });
    expect(page.data.length).toBeGreaterThan(0);
  });

  it('3 requests: /levels, /gex/term-oi and /gex/by-strike-enhanced TOTAL (what capture asks)', async () => {
    const venue = pair.exchange === 'combined' ? 'all' : pair.exchange;
    const levels = await client.levels(venue, pair.symbol, { compare: '1d' });
    expect(typeof levels.data.spot === 'number' || levels.data.spot === null).toBe(true);
    expect((await client.termOi(venue, pair.symbol)).data).toBeDefined();
    expect((await client.gexByStrike(venue, pair.symbol, 'TOTAL')).data).toBeDefined();
  });

  it.skipIf(!withFiles)('1 file credit (GEX_LIVE_FILES=1): the smallest file of the page matches its manifest row', async () => {
    const row = [...manifest].sort((a, b) => a.bytes - b.bytes)[0]!;
    const dir = mkdtempSync(join(tmpdir(), 'gexwh-live-'));
    try {
      const path = join(dir, 'file.csv.gz.part');
      const link = await client.requestFileLink(pair.exchange, pair.symbol, row.session_date, row.file);
      const result = await client.downloadToFile(link, path, { expectedBytes: row.bytes });
      expect(result).toMatchObject({ bytes: row.bytes, sha256: row.sha256 });
      const bytes = readFileSync(path);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(row.sha256);
      const lines = gunzipSync(bytes).toString('utf8').trimEnd().split('\n');
      expect(lines.length - 1).toBe(row.rows);
      expect(lines[0]).toMatch(/timestamp_utc/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(enabled)('live API', () => {
  it(`skipped: set ${missing.join(', ') || 'nothing'} to run the live suite`, () => {
    expect(enabled).toBe(false);
  });
});
