// The sync as cron runs it: the built CLI in a child process against the in-process emulator, for the
// first run, the lock's holder, kill -9 during a load and what the binary itself refuses; the runs
// that only check an exit code, output or JSON run the same code in this process. Exit codes, the
// lock, kill -9, bad input, and the key never printed. Another process holding the DuckDB file is
// test/reliability/process.test.ts's.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { readAttached } from '../helpers/attached-warehouse.js';
import { runCli, runCliInProcess } from '../helpers/cli.js';
import { gate } from '../helpers/gate.js';
import { buildMigratedWarehouse, seedWarehouse } from '../helpers/migrated-warehouse.js';

let emulator: Emulator;
let dir: string;
let template: string;

beforeAll(async () => {
  emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 3, expirations: 3, strikes: 12, seed: 5, symbols: ['BTC', 'SPY'] });
  dir = mkdtempSync(join(tmpdir(), 'gexwh-cli-'));
  template = await buildMigratedWarehouse(dir);
});
afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

let counter = 0;
function workspace() {
  const root = join(dir, `ws${++counter}`);
  return { db: join(root, 'gex.duckdb'), archive: join(root, 'raw'), root };
}

/** A workspace whose warehouse is already created and migrated, for the cases not about creating one. */
function migratedWorkspace() {
  const ws = workspace();
  seedWarehouse(template, ws.db);
  return ws;
}

function env(key = emulator.keys.pro) {
  return { GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: key };
}

async function count(db: string, sql: string): Promise<number> {
  const [row] = await readAttached<Record<string, unknown>>(db, sql);
  return Number(Object.values(row ?? {})[0]);
}

describe('gexwh sync (CLI)', () => {
  it('exits 0 with a one-paragraph summary, the same as JSON with --json, and never prints the key', async () => {
    const ws = workspace();
    const first = await runCli(['sync', '--db', ws.db, '--archive', ws.archive, '--exchange', 'deribit', '--symbol', 'BTC'], { env: env() });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^created a new warehouse at .*gex\.duckdb\nsync ok: 9 file\(s\) loaded/);
    const second = await runCliInProcess(['sync', '--json', '--db', ws.db, '--archive', ws.archive, '--exchange', 'deribit', '--symbol', 'BTC'], {
      env: env(),
    });
    expect(second.code).toBe(0);
    const summary = JSON.parse(second.stdout) as { credits_spent: number; requests_spent: number; files_loaded: number };
    expect(summary).toMatchObject({ credits_spent: 0, requests_spent: 0, files_loaded: 0 });
    for (const output of [first.stdout, first.stderr, second.stdout, second.stderr]) expect(output).not.toContain(emulator.keys.pro);
  });

  it('plan spends no credit and lists the files', async () => {
    const ws = workspace();
    const before = emulator.counters.credits(emulator.keys.admin);
    const result = await runCliInProcess(['plan', '--db', ws.db, '--archive', ws.archive, '--exchange', 'tradfi'], { env: env(emulator.keys.admin) });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/tradfi\s+SPY\s+6\s+0\s+6\s/); // 2026-03-08 is a Sunday: 2 sessions × 3 files
    expect(result.stdout).toMatch(/credits available: unlimited/);
    expect(emulator.counters.credits(emulator.keys.admin)).toBe(before);
  });

  it('a second sync while one holds the lock exits 5 naming the holder', async () => {
    const ws = migratedWorkspace();
    const args = ['sync', '--db', ws.db, '--archive', ws.archive, '--exchange', 'deribit', '--symbol', 'BTC'];
    // Hold the lock the way a running sync does: a lock file with a live pid (this process).
    mkdirSync(dirname(ws.db), { recursive: true });
    writeFileSync(`${ws.db}.lock`, JSON.stringify({ pid: process.pid, started_at: new Date().toISOString(), host: (await import('node:os')).hostname() }));
    const blocked = await runCli([...args, '--wait-lock', '0'], { env: env() });
    expect(blocked.code).toBe(5);
    expect(blocked.stderr).toContain(String(process.pid));
    rmSync(`${ws.db}.lock`);
    const after = await runCliInProcess(args, { env: env() });
    expect(after.code, after.stderr).toBe(0);
  });

  it('a sync started while another runs exits 5; the first completes', async () => {
    const ws = migratedWorkspace();
    const args = ['sync', '--db', ws.db, '--archive', ws.archive, '--exchange', 'deribit', '--symbol', 'BTC'];
    // The first sync (a child: the lock names its pid) holds its lock while its first downloads (as
    // many as it runs at once) are held until the second has ended; the second starts only once the
    // lock file exists, so the outcome does not hang on which process Node starts first. A second run
    // let past the lock downloads freely and ends with exit 0.
    const release = gate();
    emulator.faults.add({ where: 'storage', times: 4, action: { kind: 'hold', until: release.until } });
    try {
      const first = runCli(args, { env: env() });
      await waitFor(() => existsSync(`${ws.db}.lock`), 30_000);
      const second = await runCliInProcess(args, { env: env() });
      release.open();
      expect(second.code, second.stderr).toBe(5);
      const done = await first;
      expect(done.code, done.stderr).toBe(0);
    } finally {
      release.open();
      emulator.faults.clear();
    }
  });

  it('kill -9 during the load: the next run completes with no duplicate rows and no paid file fetched twice', async () => {
    const ws = migratedWorkspace();
    const args = ['sync', '--db', ws.db, '--archive', ws.archive, '--exchange', 'deribit', '--symbol', 'BTC'];
    const creditsBefore = emulator.counters.credits(emulator.keys.trial);
    // Kill -9 the moment the sync says it starts loading (--verbose prints its phases on stderr).
    // Wherever the kill lands (mid-transaction or just after), the checks below must hold.
    const killed = await runCli([...args, '--verbose'], {
      env: env(emulator.keys.trial),
      onSpawn(child) {
        child.stderr?.on('data', (chunk: Buffer) => {
          if (/^load/m.test(chunk.toString())) child.kill('SIGKILL');
        });
      },
    });
    expect(killed.signal).toBe('SIGKILL');
    const next = await runCliInProcess(args, { env: env(emulator.keys.trial) });
    expect(next.code, next.stderr).toBe(0);
    expect(emulator.counters.credits(emulator.keys.trial) - creditsBefore).toBe(9);
    expect(await count(ws.db, `SELECT count(*) FROM sync.files WHERE status = 'loaded'`)).toBe(9);
    expect(await count(ws.db, `SELECT count(*) FROM (SELECT 1 FROM levels GROUP BY exchange, symbol, timestamp_utc, expiration HAVING count(*) > 1)`)).toBe(0);
    expect(
      await count(
        ws.db,
        `SELECT count(*) FROM (SELECT 1 FROM strikes_by_expiry GROUP BY exchange, symbol, timestamp_utc, expiration_date, strike HAVING count(*) > 1)`,
      ),
    ).toBe(0);
    expect(await count(ws.db, `SELECT count(*) FROM strikes_total`)).toBe(await count(ws.db, `SELECT sum(rows) FROM sync.files WHERE file = 'strikes_total'`));
  });
});

// In-process through src/cli/run.ts (the code the binary runs); the `binary` ones spawn the built CLI.
describe('bad input (exit 2 or 3, nothing written)', () => {
  const cases: { name: string; args: string[]; env?: Record<string, string | undefined>; code: number; message: RegExp; binary?: boolean }[] = [
    { name: 'bad date', args: ['--since', '2026-02-30'], code: 2, message: /--since/ },
    { name: 'year out of range', args: ['--until', '2101-01-01'], code: 2, message: /--until.*2020/ },
    { name: 'since after until', args: ['--since', '2026-03-10', '--until', '2026-03-01'], code: 2, message: /--since.*--until|after/ },
    {
      name: 'unknown file kind',
      args: ['--files', 'levels,quotes'],
      code: 2,
      message: /--files: unknown file kind "quotes"; allowed: levels, strikes_total, strikes_by_expiry/,
    },
    { name: 'unknown exchange', args: ['--exchange', 'binance'], code: 2, message: /--exchange.*bybit/ },
    { name: 'negative budget', args: ['--max-credits', '-1'], code: 2, message: /--max-credits/ },
    { name: 'non-numeric concurrency', args: ['--concurrency', 'many'], code: 2, message: /--concurrency/ },
    { name: 'unknown option', args: ['--frobnicate'], code: 2, message: /unknown option/, binary: true },
    { name: 'no key', args: [], env: { GEX_API_KEY: undefined }, code: 3, message: /GEX_API_KEY/ },
    // Any key a header can carry is sent, whatever its prefix: the server decides.
    { name: 'a key the server does not know', args: [], env: { GEX_API_KEY: 'sk_live_not_ours' }, code: 3, message: /unauthorized: Invalid API key/ },
    { name: 'a key no header can carry', args: [], env: { GEX_API_KEY: 'gex key' }, code: 3, message: /cannot be sent.*whitespace/ },
    { name: 'revoked key', args: [], env: { GEX_API_KEY: 'revoked' }, code: 3, message: /unauthorized/, binary: true },
    { name: 'unreadable key file', args: ['--api-key-file', '/nonexistent/key'], env: { GEX_API_KEY: undefined }, code: 2, message: /--api-key-file/ },
    { name: 'bad config file', args: ['--config', 'CONFIG'], code: 2, message: /config file.*"maxCredits"/ },
  ];

  it.each(cases)('$name', async ({ args, env: extra, code, message, binary }) => {
    const ws = workspace();
    const config = join(dir, `bad-config-${counter}.json`);
    writeFileSync(config, JSON.stringify({ maxCredits: 'lots' }));
    const e = { ...env(), ...extra };
    if (e.GEX_API_KEY === 'revoked') e.GEX_API_KEY = emulator.keys.revoked;
    const result = await (binary ? runCli : runCliInProcess)(
      ['sync', '--db', ws.db, '--archive', ws.archive, ...args.map((a) => (a === 'CONFIG' ? config : a))],
      { env: e },
    );
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack
    expect(existsSync(ws.root)).toBe(false);
    if (e.GEX_API_KEY) expect(result.stderr).not.toContain(e.GEX_API_KEY);
  });
});

describe('the key file', () => {
  it('is read from --api-key-file and works like the env', async () => {
    const ws = workspace();
    const keyFile = join(dir, 'key.txt');
    writeFileSync(keyFile, `${emulator.keys.pro}\n`, { mode: 0o600 });
    const result = await runCliInProcess(['me', '--api-key-file', keyFile, '--json'], { env: { GEX_BASE_URL: emulator.baseUrl } });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ tier: 'pro' });
    expect(readFileSync(keyFile, 'utf8')).toContain('gex_');
    expect(existsSync(ws.root)).toBe(false);
  });
});

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
