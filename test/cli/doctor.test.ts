// `gexwh doctor` from the built CLI: every check passes on a ready machine (exit 0), and each check
// fails on purpose once, named in the JSON error's checks (exit 1).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { acquireSyncLock } from '../../src/warehouse/index.js';
import { runCli } from '../helpers/cli.js';

interface CheckRow {
  name: string;
  ok: boolean;
  detail: string;
  fix: string | null;
}

let live: Emulator; // real clock: the clock check passes
let frozen: Emulator; // clock frozen in March 2026: the clock check fails
let dir: string;
let db: string;
let archive: string;

beforeAll(async () => {
  live = await startEmulator({ days: 1, expirations: 1, strikes: 4, symbols: ['BTC'] });
  frozen = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 1, expirations: 1, strikes: 4, symbols: ['BTC'] });
  dir = mkdtempSync(join(tmpdir(), 'gexwh-doctor-'));
  db = join(dir, 'gex.duckdb');
  archive = join(dir, 'raw');
  const sync = await runCli(['sync', '--db', db, '--archive', archive, '--exchange', 'deribit', '--symbol', 'BTC'], { env: { GEX_BASE_URL: live.baseUrl, GEX_API_KEY: live.keys.pro } });
  expect(sync.code, sync.stderr).toBe(0);
});
afterAll(async () => {
  await Promise.all([live.close(), frozen.close()]);
  rmSync(dir, { recursive: true, force: true });
});

async function doctor(args: string[], env: Record<string, string | undefined>) {
  const result = await runCli(['doctor', '--json', '--db', db, '--archive', archive, ...args], { env, cwd: dir });
  const parsed = JSON.parse(result.stdout) as { ok?: boolean; checks?: CheckRow[]; error?: { code: string; exitCode: number; hint: { checks: CheckRow[] } } };
  return { code: result.code, checks: parsed.checks ?? parsed.error?.hint.checks ?? [], parsed, stderr: result.stderr };
}

const verdicts = (checks: CheckRow[]) => Object.fromEntries(checks.map((c) => [c.name, c.ok]));

describe('gexwh doctor', () => {
  it('passes every check on a ready machine and exits 0', async () => {
    const run = await doctor([], { GEX_BASE_URL: live.baseUrl, GEX_API_KEY: live.keys.pro });
    expect(run.code, run.stderr).toBe(0);
    expect(run.parsed.ok).toBe(true);
    expect(verdicts(run.checks)).toEqual({ config: true, key: true, plan: true, quota: true, clock: true, warehouse: true, lock: true, archive: true, disk: true });
    expect(run.checks.find((c) => c.name === 'warehouse')!.detail).toMatch(/schema \d+ .*DuckDB v\d/);
    expect(run.checks.find((c) => c.name === 'plan')!.detail).toMatch(/pro; markets crypto, tradfi/);
  });

  const failures: [string, () => Promise<Awaited<ReturnType<typeof doctor>>>][] = [
    ['config', async () => {
      writeFileSync(join(dir, 'bad.json'), JSON.stringify({ nope: 1 }));
      return doctor(['--config', join(dir, 'bad.json')], { GEX_BASE_URL: live.baseUrl, GEX_API_KEY: live.keys.pro });
    }],
    ['key', () => doctor([], { GEX_BASE_URL: live.baseUrl })],
    ['key (revoked)', () => doctor([], { GEX_BASE_URL: live.baseUrl, GEX_API_KEY: live.keys.revoked })],
    ['plan', () => doctor([], { GEX_BASE_URL: live.baseUrl, GEX_API_KEY: live.keys.premium })],
    ['quota', async () => {
      live.setQuota(live.keys.trial, { creditsUsed: 20 });
      return doctor([], { GEX_BASE_URL: live.baseUrl, GEX_API_KEY: live.keys.trial });
    }],
    ['clock', () => doctor([], { GEX_BASE_URL: frozen.baseUrl, GEX_API_KEY: frozen.keys.pro })],
    ['warehouse', () => doctor(['--db', join(dir, 'missing.duckdb')], { GEX_BASE_URL: live.baseUrl, GEX_API_KEY: live.keys.pro })],
    ['lock', async () => {
      const lock = await acquireSyncLock(db);
      try {
        return await doctor([], { GEX_BASE_URL: live.baseUrl, GEX_API_KEY: live.keys.pro });
      } finally {
        await lock.release();
      }
    }],
    ['archive', async () => {
      writeFileSync(join(dir, 'a-file'), 'not a folder');
      return doctor(['--archive', join(dir, 'a-file', 'raw')], { GEX_BASE_URL: live.baseUrl, GEX_API_KEY: live.keys.pro });
    }],
  ];

  for (const [label, run] of failures) {
    const name = label.split(' ')[0]!;
    it(`fails the ${label} check on purpose: exit 1, the check named with its fix`, async () => {
      const result = await run();
      expect(result.code).toBe(1);
      expect(result.parsed.error).toMatchObject({ code: 'checks_failed', exitCode: 1 });
      const check = result.checks.find((c) => c.name === name);
      expect(check, JSON.stringify(result.checks)).toMatchObject({ ok: false, fix: expect.any(String) });
      expect(result.stderr).toMatch(new RegExp(`checks failed: .*${name}`));
    });
  }

  it('prints a table of verdicts without --json', async () => {
    mkdirSync(join(dir, 'text'), { recursive: true });
    const result = await runCli(['doctor', '--db', join(dir, 'missing.duckdb'), '--archive', archive], { env: { GEX_BASE_URL: live.baseUrl, GEX_API_KEY: live.keys.pro }, cwd: join(dir, 'text') });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^check\s+verdict\s+detail\s+fix/);
    expect(result.stdout).toMatch(/warehouse\s+FAIL\s+no warehouse at/);
    expect(result.stdout).not.toContain(live.keys.pro);
  });
});
