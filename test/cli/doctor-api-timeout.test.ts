// doctor asks /me with the same bound on an unanswered API as every other command: --api-timeout
// (or GEXWH_API_TIMEOUT, or the config's apiTimeout), not the default 60 s.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { startServer, type TestServer } from '../api/server.js';

const KEY = `gex_${'t'.repeat(32)}`;
let server: TestServer | undefined;
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gexwh-doctor-timeout-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Checks = { error: { hint: { checks: { name: string; ok: boolean; detail: string }[] } } };

it.each([
  { how: '--api-timeout 1', args: ['--api-timeout', '1'], env: {}, config: {} },
  { how: 'GEXWH_API_TIMEOUT=1', args: [], env: { GEXWH_API_TIMEOUT: '1' }, config: {} },
  { how: 'the config apiTimeout 1', args: [], env: {}, config: { apiTimeout: 1 } },
])(
  '$how bounds doctor against an API that never answers',
  async ({ args, env, config }) => {
    server = await startServer(() => undefined); // accepts, never answers
    const configPath = join(dir, `config-${Object.keys(config).length}-${args.length}.json`);
    writeFileSync(configPath, JSON.stringify(config));
    const started = performance.now();
    const result = await runCliInProcess(['doctor', '--json', '--config', configPath, '--db', join(dir, 'none.duckdb'), ...args], {
      env: { GEX_BASE_URL: server.url, GEX_API_KEY: KEY, ...env },
      cwd: dir,
    });
    expect(performance.now() - started).toBeLessThan(1_000 + 5_000);
    expect(result.code).not.toBe(0);
    const api = (JSON.parse(result.stdout) as Checks).error.hint.checks.find((c) => c.name === 'api');
    expect(api).toMatchObject({ ok: false });
    expect(api!.detail).toMatch(/no answer within/);
  },
  20_000,
);
