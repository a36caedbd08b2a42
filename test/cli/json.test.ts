// --json across commands: results with snake_case keys (like the API and the SQL), and a failure as
// one JSON object {"error": {"code", "message", "hint", "exitCode"}} on stdout with the text on stderr.
// demo's and emulate's --json are checked by their own tests (test/cli/demo.test.ts, emulate.test.ts),
// which already run them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { camelKeysOf, keysOf } from '../helpers/json-keys.js';

let emulator: Emulator;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 2, expirations: 2, strikes: 6, seed: 9, symbols: ['BTC', 'SPY'] });
  dir = mkdtempSync(join(tmpdir(), 'gexwh-json-'));
});
afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('--json', () => {
  it('every command prints one JSON document whose keys are snake_case', async () => {
    const db = join(dir, 'gex.duckdb');
    const archive = join(dir, 'raw');
    const out = join(dir, 'out');
    const env = { GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.pro };
    const sel = ['--exchange', 'deribit', '--symbol', 'BTC'];
    const commands: string[][] = [
      ['me'],
      ['coverage'],
      ['plan', ...sel],
      ['sync', ...sel, '--fill-levels'],
      ['status'],
      ['verify'],
      ['rebuild'],
      ['export', '--out', out],
      ['capture', '--symbol', 'BTC'],
    ];
    for (const args of commands) {
      const result = await runCliInProcess([...args, '--json', '--db', db, '--archive', archive], { env });
      expect(result.code, `${args[0]}: ${result.stderr}`).toBe(0);
      const parsed = JSON.parse(result.stdout) as unknown;
      const keys = keysOf(parsed);
      expect(keys.length, args[0]).toBeGreaterThan(0);
      expect(camelKeysOf(parsed), args[0]).toEqual([]);
    }
  }, 180_000); // its own: nine CLI runs (a sync, a rebuild, an export among them) took 60 s at load 15

  it('a failure is one JSON object on stdout, the text on stderr, with the exit code', async () => {
    const db = join(dir, 'errors.duckdb');
    const badDate = await runCliInProcess(['plan', '--json', '--db', db, '--since', '2026-13-01'], {
      env: { GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.pro },
    });
    expect(badDate.code).toBe(2);
    const usage = JSON.parse(badDate.stdout) as { error: { code: string; message: string; hint: unknown; exitCode: number } };
    expect(usage.error).toMatchObject({ code: 'usage', exitCode: 2 });
    expect(usage.error.message).toMatch(/--since/);
    expect(badDate.stderr).toMatch(/^error: .*--since/);

    const revoked = await runCliInProcess(['me', '--json'], { env: { GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.revoked } });
    expect(revoked.code).toBe(3);
    const auth = JSON.parse(revoked.stdout) as { error: { code: string; exitCode: number } };
    expect(auth.error.exitCode).toBe(3);
    expect(auth.error.code).not.toBe('unexpected');
    expect(revoked.stdout).not.toContain(emulator.keys.revoked);

    const unknownExchange = await runCliInProcess(['plan', '--json', '--db', db, '--exchange', 'kraken'], {
      env: { GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.pro },
    });
    expect(unknownExchange.code).toBe(2);
    expect(JSON.parse(unknownExchange.stdout)).toMatchObject({ error: { code: 'usage', exitCode: 2 } });

    const unknownOption = await runCliInProcess(['status', '--json', '--no-such-option']);
    expect(unknownOption.code).toBe(2);
    expect(JSON.parse(unknownOption.stdout)).toEqual({ error: { code: 'usage', message: expect.stringMatching(/no-such-option/), hint: null, exitCode: 2 } });

    // A sync that ends partial prints its summary (outcome partial): still one JSON document.
    emulator.faults.add({ where: 'storage', match: /strikes_total/, times: Infinity, action: { kind: 'corrupt' } });
    try {
      const partial = await runCliInProcess(
        ['sync', '--json', '--db', join(dir, 'partial.duckdb'), '--archive', join(dir, 'partial-raw'), '--exchange', 'deribit', '--symbol', 'BTC'],
        {
          env: { GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.pro },
        },
      );
      expect(partial.code).toBe(4);
      expect(JSON.parse(partial.stdout)).toMatchObject({
        outcome: 'partial',
        files_failed: expect.arrayContaining([expect.objectContaining({ status: 'failed_verify', file: 'strikes_total' })]),
      });
      expect(partial.stderr).toMatch(/error: .*failed verification/);
    } finally {
      emulator.faults.clear();
    }

    const withoutJson = await runCliInProcess(['status', '--no-such-option']);
    expect(withoutJson.stdout).toBe('');
  });
});
