// `gexwh doctor` through the CLI, run in this process (the really small disk: the built CLI in a mount
// namespace): every check passes on a ready machine (exit 0), and each check fails on purpose once,
// named in the JSON error's checks (exit 1); the disk check also against a real archive folder and a
// really small disk.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { acquireSyncLock, openWarehouse } from '../../src/warehouse/index.js';
import { formatBytes } from '../../src/core/sizes.js';
import { CLI_PATH, runCliInProcess } from '../helpers/cli.js';
import { toolOrSkip } from '../helpers/tool.js';

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
  const sync = await runCliInProcess(['sync', '--db', db, '--archive', archive, '--exchange', 'deribit', '--symbol', 'BTC'], {
    env: { GEX_BASE_URL: live.baseUrl, GEX_API_KEY: live.keys.pro },
  });
  expect(sync.code, sync.stderr).toBe(0);
});
afterAll(async () => {
  await Promise.all([live.close(), frozen.close()]);
  rmSync(dir, { recursive: true, force: true });
});

async function doctor(args: string[], env: Record<string, string | undefined>) {
  const result = await runCliInProcess(['doctor', '--json', '--db', db, '--archive', archive, ...args], { env, cwd: dir });
  const parsed = JSON.parse(result.stdout) as { ok?: boolean; checks?: CheckRow[]; error?: { code: string; exitCode: number; hint: { checks: CheckRow[] } } };
  return { code: result.code, checks: parsed.checks ?? parsed.error?.hint.checks ?? [], parsed, stderr: result.stderr };
}

const verdicts = (checks: CheckRow[]) => Object.fromEntries(checks.map((c) => [c.name, c.ok]));

describe('gexwh doctor', () => {
  it('passes every check on a ready machine and exits 0', async () => {
    const run = await doctor([], { GEX_BASE_URL: live.baseUrl, GEX_API_KEY: live.keys.pro });
    expect(run.code, run.stderr).toBe(0);
    expect(run.parsed.ok).toBe(true);
    expect(verdicts(run.checks)).toEqual({
      config: true,
      api: true,
      key: true,
      plan: true,
      quota: true,
      clock: true,
      warehouse: true,
      lock: true,
      archive: true,
      disk: true,
      layouts: true,
    });
    expect(run.checks.find((c) => c.name === 'warehouse')!.detail).toMatch(/schema \d+ .*DuckDB v\d/);
    expect(run.checks.find((c) => c.name === 'plan')!.detail).toMatch(/pro; markets crypto, tradfi/);
    // The reference lists each check doctor prints, in the order it prints them.
    const row = readFileSync(new URL('../../docs/reference.md', import.meta.url), 'utf8')
      .split('\n')
      .find((line) => line.startsWith('| `gexwh doctor` |'))!;
    const documented = [...row.matchAll(/`([a-z]+)` \(/g)].map((m) => m[1]);
    expect(documented).toEqual(run.checks.map((c) => c.name));
  });

  const failures: [string, () => Promise<Awaited<ReturnType<typeof doctor>>>][] = [
    [
      'config',
      async () => {
        writeFileSync(join(dir, 'bad.json'), JSON.stringify({ nope: 1 }));
        return doctor(['--config', join(dir, 'bad.json')], { GEX_BASE_URL: live.baseUrl, GEX_API_KEY: live.keys.pro });
      },
    ],
    ['key', () => doctor([], { GEX_BASE_URL: live.baseUrl })],
    ['key (revoked)', () => doctor([], { GEX_BASE_URL: live.baseUrl, GEX_API_KEY: live.keys.revoked })],
    ['plan', () => doctor([], { GEX_BASE_URL: live.baseUrl, GEX_API_KEY: live.keys.premium })],
    [
      'quota',
      async () => {
        live.setQuota(live.keys.trial, { creditsUsed: 20 });
        return doctor([], { GEX_BASE_URL: live.baseUrl, GEX_API_KEY: live.keys.trial });
      },
    ],
    ['clock', () => doctor([], { GEX_BASE_URL: frozen.baseUrl, GEX_API_KEY: frozen.keys.pro })],
    ['warehouse', () => doctor(['--db', join(dir, 'missing.duckdb')], { GEX_BASE_URL: live.baseUrl, GEX_API_KEY: live.keys.pro })],
    [
      'lock',
      async () => {
        const lock = await acquireSyncLock(db);
        try {
          return await doctor([], { GEX_BASE_URL: live.baseUrl, GEX_API_KEY: live.keys.pro });
        } finally {
          await lock.release();
        }
      },
    ],
    [
      'archive',
      async () => {
        writeFileSync(join(dir, 'a-file'), 'not a folder');
        return doctor(['--archive', join(dir, 'a-file', 'raw')], { GEX_BASE_URL: live.baseUrl, GEX_API_KEY: live.keys.pro });
      },
    ],
  ];

  for (const [label, run] of failures) {
    const name = label.split(' ')[0]!;
    it(`fails the ${label} check on purpose: exit 1, the check named with its fix`, async () => {
      const result = await run();
      expect(result.code, result.stderr).toBe(1);
      expect(result.parsed.error).toMatchObject({ code: 'checks_failed', exitCode: 1 });
      const check = result.checks.find((c) => c.name === name);
      expect(check, JSON.stringify(result.checks)).toMatchObject({ ok: false, fix: expect.any(String) });
      expect(result.stderr).toMatch(new RegExp(`checks failed: .*${name}`));
    });
  }

  it('prints a table of verdicts without --json', async () => {
    mkdirSync(join(dir, 'text'), { recursive: true });
    const result = await runCliInProcess(['doctor', '--db', join(dir, 'missing.duckdb'), '--archive', archive], {
      env: { GEX_BASE_URL: live.baseUrl, GEX_API_KEY: live.keys.pro },
      cwd: join(dir, 'text'),
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^check\s+verdict\s+detail\s+fix/);
    expect(result.stdout).toMatch(/warehouse\s+FAIL\s+no warehouse at/);
    expect(result.stdout).not.toContain(live.keys.pro);
  });
});

// The disk check against a real archive folder: free space from the file system, planned bytes from
// the warehouse's pending manifest rows, newest first, up to one day's file credits.
describe('gexwh doctor: free disk against the next night', () => {
  let em: Emulator;
  let listed: string; // a warehouse whose manifest is listed (plan), nothing downloaded
  let manifest: { session_date: string; bytes: number }[];

  beforeAll(async () => {
    em = await startEmulator({ days: 8, expirations: 6, strikes: 40, symbols: ['BTC'] });
    listed = join(dir, 'listed.duckdb');
    // A plan never creates a warehouse: an empty one first, which the plan then records the listing into.
    (await openWarehouse(listed)).close();
    const plan = await runCliInProcess(['plan', '--db', listed, '--archive', join(dir, 'listed-raw'), '--exchange', 'deribit', '--symbol', 'BTC'], {
      env: { GEX_BASE_URL: em.baseUrl, GEX_API_KEY: em.keys.pro },
    });
    expect(plan.code, plan.stderr).toBe(0);
    const warehouse = await openWarehouse(listed, { readOnly: true });
    try {
      const reader = await warehouse.connection.runAndReadAll(
        `SELECT session_date::VARCHAR session_date, bytes::INTEGER bytes FROM sync.manifest ORDER BY session_date DESC, bytes`,
      );
      manifest = reader.getRowObjectsJson() as typeof manifest;
    } finally {
      warehouse.close();
    }
    expect(manifest.length).toBeGreaterThan(20); // more than a trial key's 20 credits a day
  });
  afterAll(() => em.close());

  const sum = (rows: { bytes: number }[]) => rows.reduce((total, row) => total + row.bytes, 0);
  const UNIT: Record<string, number> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 };
  /** `712.3 KB` → its bytes, and the half step its one decimal may have rounded away. */
  const sizeOf = (text: string) => {
    const [value, unit] = text.split(' ') as [string, string];
    return { bytes: Number(value) * UNIT[unit]!, slack: unit === 'B' ? 0 : UNIT[unit]! * 0.05 };
  };
  const diskOf = (checks: CheckRow[]) => {
    const check = checks.find((c) => c.name === 'disk')!;
    const [, free, files, planned] = /^([\d.]+ [KMGT]?B) free; the next sync plans (\d+) file\(s\), ([\d.]+ [KMGT]?B)(;|$)/.exec(check.detail) ?? [];
    expect(files, check.detail).toBeDefined();
    return { ok: check.ok, fix: check.fix, freeMb: sizeOf(free!).bytes / 1024 ** 2, files: Number(files), planned: planned!, plannedSize: sizeOf(planned!) };
  };

  it("reports the archive disk free and every pending file (pro: 200 credits a day), or a trial key's 20 newest", async () => {
    const archive = join(dir, 'listed-raw');
    // The selection the plan above listed, as a config file: doctor plans the config's selection.
    const config = join(dir, 'listed.config.json');
    writeFileSync(config, JSON.stringify({ exchange: ['deribit'], symbol: ['BTC'] }));
    const pro = await runCliInProcess(['doctor', '--json', '--config', config, '--db', listed, '--archive', archive], {
      env: { GEX_BASE_URL: em.baseUrl, GEX_API_KEY: em.keys.pro },
    });
    expect(pro.code, pro.stderr).toBe(0);
    const disk = diskOf((JSON.parse(pro.stdout) as { checks: CheckRow[] }).checks);
    expect(disk).toMatchObject({ ok: true, files: manifest.length, planned: formatBytes(sum(manifest)) });
    // The archive does not exist yet: its nearest folder's file system (another process may write
    // to it meanwhile, hence the margin).
    const stats = statfsSync(dir);
    expect(Math.abs(disk.freeMb - (stats.bavail * stats.bsize) / 1024 / 1024)).toBeLessThan(2048);

    const trial = await runCliInProcess(['doctor', '--json', '--config', config, '--db', listed, '--archive', archive], {
      env: { GEX_BASE_URL: em.baseUrl, GEX_API_KEY: em.keys.trial },
    });
    const trialDisk = diskOf((JSON.parse(trial.stdout) as { checks: CheckRow[] }).checks);
    expect(trialDisk.files).toBe(20);
    // The 20 newest: whole sessions, then some files of the next one (which ones is not ordered).
    const whole = manifest.slice(0, 18);
    const next = manifest
      .filter((row) => row.session_date === manifest[18]!.session_date)
      .map((row) => row.bytes)
      .sort((a, b) => a - b);
    const { bytes: planned, slack } = trialDisk.plannedSize;
    expect(planned).toBeGreaterThanOrEqual(sum(whole) + next[0]! + next[1]! - slack);
    expect(planned).toBeLessThanOrEqual(sum(whole) + next.at(-1)! + next.at(-2)! + slack);
  });

  // A really small disk: the archive on a 1 MB tmpfs mounted in a user and mount namespace.
  const canMountTmpfs = toolOrSkip(
    process.platform === 'linux' && spawnSync('unshare', ['-rm', 'sh', '-c', 'd=$(mktemp -d) && mount -t tmpfs -o size=1m tmpfs "$d"']).status === 0,
    'a 1 MB tmpfs in a user namespace (unshare -rm)',
    'util-linux unshare and unprivileged user namespaces',
  );

  it.skipIf(!canMountTmpfs)("fails when the archive's disk has less room than the planned bytes: exit 1, the sizes named, a fix", async () => {
    const archive = join(dir, 'small-disk');
    mkdirSync(archive);
    expect(sum(manifest)).toBeGreaterThan(1.1 * 1024 * 1024); // more than the tmpfs holds
    const script = 'a=$1; shift; mount -t tmpfs -o size=1m tmpfs "$a" && exec "$@"';
    const args = ['doctor', '--json', '--config', join(dir, 'listed.config.json'), '--db', listed, '--archive', archive];
    // Asynchronous: the emulator the child asks lives in this process and must keep serving.
    const child = spawn('unshare', ['-rm', 'sh', '-c', script, 'sh', archive, process.execPath, CLI_PATH, ...args], {
      env: { ...process.env, GEX_BASE_URL: em.baseUrl, GEX_API_KEY: em.keys.pro },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const result = { status, stdout, stderr };
    expect(result.status, result.stderr).toBe(1);
    const parsed = JSON.parse(result.stdout) as { error: { hint: { checks: CheckRow[] } } };
    const disk = diskOf(parsed.error.hint.checks);
    expect(disk).toMatchObject({
      ok: false,
      freeMb: 1,
      files: manifest.length,
      planned: formatBytes(sum(manifest)),
      fix: expect.stringMatching(/free disk space/),
    });
    expect(verdicts(parsed.error.hint.checks)).toMatchObject({ archive: true, warehouse: true, key: true });
  });
});
