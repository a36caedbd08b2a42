// Odd answers get the exit code of what they mean, from the one table in core/errors.ts: something
// on the way answering instead of the API (an HTML page, a redirect) is 6, a used-up daily quota on
// a call a command cannot do without is 3, a --db no warehouse can be is 2. And an API that accepts
// and never answers holds a call no longer than its time budget.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/api/client.js';
import { exitCodeOf, NetworkError } from '../../src/core/errors.js';
import { runCliInProcess } from '../helpers/cli.js';
import { sendJson, startServer, type Handler, type TestServer } from './server.js';

const KEY = `gex_${'k'.repeat(32)}`;
const RESET = '2026-03-12T00:00:00.000Z';

const servers: TestServer[] = [];
afterEach(async () => {
  while (servers.length > 0) await servers.pop()!.close();
});

async function serve(handler: Handler): Promise<TestServer> {
  const server = await startServer(handler);
  servers.push(server);
  return server;
}

function cli(args: string[], server: TestServer, env: Record<string, string> = {}) {
  return runCliInProcess([...args, '--json'], { env: { GEX_BASE_URL: server.url, GEX_API_KEY: KEY, ...env } });
}

function jsonError(stdout: string): { code: string; message: string; exitCode: number; hint: Record<string, unknown> | null } {
  return (JSON.parse(stdout) as { error: { code: string; message: string; exitCode: number; hint: Record<string, unknown> | null } }).error;
}

describe('something else answers instead of the API', () => {
  it('a 200 text/html page (a captive portal) on coverage: exit 6 naming the host and the HTML, not "unexpected failure"', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<html><body>Please log in to the hotel Wi-Fi</body></html>');
    });
    const result = await cli(['coverage'], server);
    expect(result.code).toBe(6);
    const error = jsonError(result.stdout);
    expect(error).toMatchObject({ code: 'network', exitCode: 6 });
    expect(error.message).toContain('an HTML page (text/html)');
    expect(error.message).toContain(new URL(server.url).host);
    expect(error.hint).toMatchObject({ last_status: 200 });
  });

  it('a 302 on /me: exit 6, the redirect not followed, only its host named', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(302, { location: 'http://portal.example/login?token=abc123' });
      res.end();
    });
    const result = await cli(['me'], server);
    expect(result.code).toBe(6);
    const error = jsonError(result.stdout);
    expect(error.message).toContain('a redirect to portal.example, not followed');
    expect(result.stdout + result.stderr).not.toContain('abc123');
    expect(server.requests).toHaveLength(1);
  });

  it('a JSON answer the spec does not know is still the API: not taken for a portal', async () => {
    const server = await serve((_req, res) => sendJson(res, 200, { data: 'odd', meta: {} }));
    const result = await cli(['me'], server);
    expect(jsonError(result.stdout).code).toBe('api_schema');
  });
});

describe('a daily quota used up where the command cannot go on', () => {
  it('429 on coverage: exit 3 (the plan limit), the slug and when it resets', async () => {
    const server = await serve((_req, res) =>
      sendJson(
        res,
        429,
        { error: 'rate_limit_exceeded', message: 'Daily request quota used up.', rate_limit: { limit: 50, remaining: 0, reset: RESET } },
        { 'x-ratelimit-limit': '50', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': RESET },
      ),
    );
    const result = await cli(['coverage'], server);
    expect(result.code).toBe(3);
    const error = jsonError(result.stdout);
    expect(error).toMatchObject({ code: 'rate_limit_exceeded', exitCode: 3 });
    expect(error.message).toContain(`it resets at ${RESET}`);
    expect(server.requests).toHaveLength(1); // a 429 is never retried
  });
});

describe('a --db no warehouse can be', () => {
  it('/proc/self/mem: exit 2 naming it, for a reader and a writer', async () => {
    for (const args of [['query', 'SELECT 1'], ['status'], ['load']]) {
      const result = await runCliInProcess([...args, '--db', '/proc/self/mem', '--json']);
      expect(result.code, `${args[0]}: ${result.stderr}`).toBe(2);
      expect(jsonError(result.stdout).message).toContain('--db /proc/self/mem is not a file gexwh can use');
    }
  });

  it('a path holding NUL, from the flag or the config file: exit 2', async () => {
    const flag = await runCliInProcess(['query', 'SELECT 1', '--db', 'data/a\0b.duckdb', '--json']);
    expect(flag.code).toBe(2);
    expect(jsonError(flag.stdout).message).toContain('--db: the path holds a NUL character');
    const dir = mkdtempSync(join(tmpdir(), 'gexwh-nul-'));
    try {
      writeFileSync(join(dir, 'gexwh.config.json'), JSON.stringify({ db: 'a\0b.duckdb' }), { mode: 0o600 });
      const fromConfig = await runCliInProcess(['load', '--json'], { cwd: dir });
      expect(fromConfig.code).toBe(2);
      expect(jsonError(fromConfig.stdout).message).toContain('NUL character');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('an API that accepts and never answers', () => {
  /** Accepts each request and never answers it; the test's close() ends the sockets. */
  const silent: Handler = () => {};

  it('holds one call no longer than its budget, each retry waiting less than the one before', async () => {
    const server = await serve(silent);
    const sleeps: number[] = [];
    const client = createApiClient({
      baseUrl: server.url,
      apiKey: KEY,
      callBudgetMs: 1_600,
      retry: { maxAttempts: 5, random: () => 0, sleep: async (ms) => void sleeps.push(ms) },
    });
    const started = performance.now();
    let thrown: unknown;
    try {
      await client.coverage();
    } catch (error) {
      thrown = error;
    } finally {
      await client.close();
    }
    const elapsed = performance.now() - started;
    expect(thrown).toBeInstanceOf(NetworkError);
    expect(exitCodeOf(thrown)).toBe(6);
    expect((thrown as Error).message).toMatch(/no answer within [\d.]+ s/);
    expect(elapsed).toBeLessThan(1_600 + 1_500);
    // Several attempts fit: the first did not take the whole budget.
    expect(server.requests.length).toBeGreaterThanOrEqual(3);
    expect(sleeps.every((ms) => ms === 0)).toBe(true);
  });

  it('through the CLI, GEXWH_API_TIMEOUT bounds `gexwh coverage` (exit 6, naming the option)', async () => {
    const server = await serve(silent);
    const started = performance.now();
    const result = await cli(['coverage'], server, { GEXWH_API_TIMEOUT: '1' });
    expect(result.code).toBe(6);
    expect(performance.now() - started).toBeLessThan(1_000 + 4_000);
    expect(jsonError(result.stdout).message).toContain('--api-timeout');
  });

  it('a bad GEXWH_API_TIMEOUT is exit 2 naming it', async () => {
    const server = await serve(silent);
    const result = await cli(['coverage'], server, { GEXWH_API_TIMEOUT: '0' });
    expect(result.code).toBe(2);
    expect(jsonError(result.stdout).message).toContain('GEXWH_API_TIMEOUT');
    expect(server.requests).toHaveLength(0);
  });
});
