// `gexwh emulate` as a user starts it: the built CLI in a child process, with its file-building
// workers, 60 days of history synced end to end, then stopped by a signal. The sync is the CLI's code
// in this process (only its output and exit code are checked), of the levels files alone: what is
// checked here is every session of a long history (the listing builds all three files of each, for
// their sha256); every file kind at the default chain sizes is test/emulator/sixty-day-sync.test.ts's.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openWarehouse } from '../../src/warehouse/index.js';
import { CLI_PATH, runCliInProcess } from '../helpers/cli.js';
import { camelKeysOf } from '../helpers/json-keys.js';

interface Started {
  child: ChildProcessWithoutNullStreams;
  info: { base_url: string; keys: Record<string, string> };
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

/**
 * Starts `gexwh emulate --json` and resolves once its JSON (base URL and keys) is on stdout. Its
 * facts cache goes to `cache` (never the user's own), or is off.
 */
function startCliEmulator(args: readonly string[], cache = 'off'): Promise<Started> {
  const env = { ...process.env, GEXWH_EMULATOR_CACHE: cache };
  const child = spawn(process.execPath, [CLI_PATH, 'emulate', '--json', ...args], { stdio: 'pipe', env });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stderr })),
  );
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      try {
        resolve({ child, info: JSON.parse(stdout) as Started['info'], exited });
      } catch {
        // not the whole object yet
      }
    });
    void exited.then(({ code }) => reject(new Error(`emulate exited ${code} before printing its URL: ${stderr}`)));
  });
}

let dir: string | undefined;
let running: Started | undefined;
afterEach(() => {
  running?.child.kill('SIGKILL');
  running = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('gexwh emulate', () => {
  it('serves 60 days that a sync takes end to end, and stops cleanly on SIGTERM', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gexwh-emulate-'));
    const cache = join(dir, 'cache');
    running = await startCliEmulator(['--days', '60', '--now', '2026-06-17T12:00:00Z', '--symbols', 'BTC,SPY', '--expirations', '1', '--strikes', '4'], cache);
    const db = join(dir, 'gex.duckdb');
    // Its --json: the URLs and the keys by account, snake_case like every command's (crypto_only).
    expect(Object.keys(running.info.keys).sort()).toEqual(['admin', 'crypto_only', 'premium', 'pro', 'revoked', 'trial']);
    expect(camelKeysOf(running.info)).toEqual([]);
    const env = { GEX_BASE_URL: running.info.base_url, GEX_API_KEY: running.info.keys.admin };
    const sync = await runCliInProcess(
      ['sync', '--json', '--db', db, '--archive', join(dir, 'raw'), '--exchange', 'deribit,tradfi', '--symbol', 'BTC,SPY', '--files', 'levels'],
      { env },
    );
    expect(sync.stderr).toBe('');
    expect(sync.code).toBe(0);
    expect(JSON.parse(sync.stdout)).toMatchObject({ files_loaded: 60 + 41 });
    const warehouse = await openWarehouse(db, { readOnly: true });
    try {
      const reader = await warehouse.connection.runAndReadAll(
        `SELECT exchange, count(DISTINCT session_date)::INT AS sessions, min(session_date)::VARCHAR AS first,
                count(*) FILTER (WHERE session_date = DATE '2026-05-25')::INT AS on_memorial_day
           FROM levels GROUP BY exchange ORDER BY exchange`,
      );
      const rows = reader.getRowObjects();
      // 60 UTC days of crypto sessions; SPY: the 42 weekdays from 04-20 to 06-16 but Memorial Day.
      expect(rows).toEqual([
        { exchange: 'deribit', sessions: 60, first: '2026-04-18', on_memorial_day: expect.any(Number) },
        { exchange: 'tradfi', sessions: 41, first: '2026-04-20', on_memorial_day: 0 },
      ]);
    } finally {
      warehouse.close();
    }
    running.child.kill('SIGTERM');
    const exit = await running.exited;
    expect(exit).toMatchObject({ code: 0, signal: null });
    // The CLI keeps the manifest facts of what it built (at least the 60 + 41 sessions listed).
    const [cacheFile, ...others] = readdirSync(cache);
    expect(others).toEqual([]);
    expect(readFileSync(join(cache, cacheFile!), 'utf8').trimEnd().split('\n').length).toBeGreaterThanOrEqual(3 * (60 + 41));
  }, 180_000); // its own: a child emulator and its workers building 303 files, and a sync of 101, share 2 cores

  it('--manifest-page-rows and --rate-limit-headers named: one-row manifest pages, no X-RateLimit-Remaining; out of range is exit 2', async () => {
    running = await startCliEmulator([
      '--days',
      '3',
      '--now',
      '2026-06-17T12:00:00Z',
      '--symbols',
      'BTC',
      '--expirations',
      '1',
      '--strikes',
      '4',
      '--manifest-page-rows',
      '1',
      '--rate-limit-headers',
      'named',
    ]);
    const headers = { 'X-API-Key': running.info.keys.pro! };
    const coverage = (await (await fetch(`${running.info.base_url}/api/v1/history/coverage`, { headers })).json()) as { data: Array<{ exchange: string }> };
    const answer = await fetch(`${running.info.base_url}/api/v1/history/files/${coverage.data[0]!.exchange}/BTC`, { headers });
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { data: unknown[]; meta: { rate_limit: { remaining: number } } };
    expect(body.data).toHaveLength(1);
    expect(answer.headers.get('x-ratelimit-limit')).toBe('500');
    expect(answer.headers.get('x-ratelimit-reset')).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(answer.headers.get('x-ratelimit-remaining')).toBeNull();
    expect(body.meta.rate_limit.remaining).toBe(499);
    for (const rows of ['0', '401']) {
      const refused = await runCliInProcess(['emulate', '--manifest-page-rows', rows]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('expected a whole number from 1 to 400');
    }
  });

  it('stops cleanly on SIGINT too, closing its servers and workers', async () => {
    running = await startCliEmulator(['--days', '30', '--symbols', 'BTC', '--expirations', '2', '--strikes', '8']);
    const answer = await fetch(`${running.info.base_url}/api/v1/me`, { headers: { 'X-API-Key': running.info.keys.pro! } });
    expect(answer.status).toBe(200);
    running.child.kill('SIGINT');
    expect(await running.exited).toMatchObject({ code: 0, signal: null });
  });
});
