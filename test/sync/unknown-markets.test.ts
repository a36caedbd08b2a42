// A market the API adds after this version (a third name in /me's markets) is set aside where
// markets are used, said once, and does not fail /me or the sync that asks it.
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/index.js';
import { syncApiFrom } from '../../src/sync/api-port.js';
import { clone, KEY, VALID_BODIES } from '../api/fixtures.js';
import { sendJson, startServer, type TestServer } from '../api/server.js';
import { migrateOnly, startBench, type Bench } from '../helpers/sync.js';

let server: TestServer | undefined;
let bench: Bench | undefined;
afterEach(async () => {
  await server?.close();
  await bench?.close();
  server = bench = undefined;
});

describe('/me lists a market this version does not know', () => {
  it('the client accepts it and the sync port keeps only crypto/tradfi, naming the other', async () => {
    const body = clone(VALID_BODIES.me);
    (body.data as { markets: unknown }).markets = ['crypto', 'fx\u0007', 'tradfi'];
    server = await startServer((_req, res) => sendJson(res, 200, body));
    const client = createApiClient({ baseUrl: server.url, apiKey: KEY, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
    try {
      expect((await client.me()).data.markets).toEqual(['crypto', 'fx\u0007', 'tradfi']);
      const me = await syncApiFrom(client).me();
      expect(me.markets).toEqual(['crypto', 'tradfi']);
      expect(me.unknownMarkets).toEqual(['fx?']);
    } finally {
      await client.close();
    }
  });

  it('a sync says so once, as a warning, and runs on the known markets', async () => {
    bench = await startBench();
    await migrateOnly(bench);
    const api = syncApiFrom(bench.client());
    const me = api.me.bind(api);
    api.me = async () => ({ ...(await me()), unknownMarkets: ['fx'] });
    const { runSync } = await import('../../src/sync/run.js');
    const { parseSyncSelection } = await import('../../src/sync/selection.js');
    const selection = parseSyncSelection({});
    const summary = await runSync(
      {
        command: 'sync',
        dbPath: bench.dbPath,
        archiveRoot: bench.archive,
        selection,
        dryRun: true,
        fullRescan: false,
        fillLevels: false,
        recordedOptions: { ...selection },
      },
      api,
      new AbortController().signal,
    );
    const told = summary.warnings.filter((w) => w.includes('fx'));
    expect(told).toEqual(['/me lists market(s) this version does not know (fx): ignored']);
  });
});
