// Failures a user can cause or meet, as they meet them through the CLI: each says what happened, names
// the path or host, and says what to do, with its own exit code (2: fix the input; 6: the API or
// storage is down, nothing was lost) instead of "unexpected failure" (exit 1). In this process (the
// code the binary runs): no case needs a child's lifetime. The client's retries wait no jitter here
// (its random draw is 0): the cases that exhaust them check what is said after 5 attempts, not how
// long they waited (test/api/ holds the backoff).
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { DEFAULT_RETRY_POLICY } from '../../src/api/retry.js';
import { runCliInProcess } from '../helpers/cli.js';
import { startBench, type Bench } from '../helpers/sync.js';

let bench: Bench;
let env: Record<string, string>;
let local: string[];
let noJitter: MockInstance<() => number>;
beforeAll(async () => {
  noJitter = vi.spyOn(DEFAULT_RETRY_POLICY, 'random').mockReturnValue(0);
  bench = await startBench({ days: 2 });
  await bench.sync({ exchange: 'deribit', symbol: 'BTC' });
  env = { GEX_BASE_URL: bench.emulator.baseUrl, GEX_API_KEY: bench.emulator.keys.pro };
  local = ['--db', bench.dbPath, '--archive', bench.archive];
});
afterAll(async () => {
  noJitter.mockRestore();
  await bench.close();
});

interface JsonError {
  error: { code: string; message: string; hint: Record<string, unknown> | null; exitCode: number };
}

describe('a path the user named, refused by the file system: exit 2 naming the path and the fix', () => {
  it('export --out onto an existing file', async () => {
    const file = join(bench.dir, 'not-a-folder');
    writeFileSync(file, 'mine');
    const run = await runCliInProcess(['export', ...local, '--out', file]);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`export: --out ${file} is a file; --out names a folder (made if missing)`);
    expect(readFileSync(file, 'utf8')).toBe('mine');
    expect(run.stderr).not.toMatch(/unexpected failure/);
  });

  it.each([
    ['chart', ['chart', 'profile', '--exchange', 'deribit', '--symbol', 'BTC'], 'profile.svg'],
    ['report', ['report'], 'report.html'],
  ])('%s --out onto a folder; no temp file left beside it', async (_name, args, name) => {
    const parent = join(bench.dir, `out-${name}`);
    const folder = join(parent, name);
    mkdirSync(folder, { recursive: true });
    const run = await runCliInProcess([...args, ...local, '--out', folder, '--json']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`${folder} is a folder where a file is expected; give a file path`);
    expect((JSON.parse(run.stdout) as JsonError).error).toMatchObject({ code: 'usage', exitCode: 2, hint: { path: folder, code: 'EISDIR' } });
    expect(readdirSync(parent)).toEqual([name]);
  });

  it.each([['status'], ['query', 'SELECT 1'], ['sync', '--exchange', 'deribit', '--symbol', 'BTC']])('--db naming a folder (%s)', async (...args) => {
    const folder = join(bench.dir, 'db-folder');
    mkdirSync(folder, { recursive: true });
    const run = await runCliInProcess([...args, '--db', folder, '--archive', bench.archive], { env });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`--db ${folder} is a folder; --db names the warehouse file, e.g. --db ${folder}/gex.duckdb`);
    expect(readdirSync(folder)).toEqual([]);
  });

  // DuckDB opens an existing JSON or CSV file as an in-memory database over its rows: a sync said "ok"
  // and kept nothing, a read failed "unexpected". A new .json warehouse would sit where configs are sought.
  it.each([
    ['status on a config file', ['status'], 'gexwh.config.json', '{ "symbol": "BTC" }\n'],
    ['query on a CSV file', ['query', 'SELECT 1'], 'trades.csv', 'ts,price\n1,2\n'],
    ['sync into a config file', ['sync', '--exchange', 'deribit', '--symbol', 'BTC'], 'gexwh.config.json', '{ "symbol": "BTC" }\n'],
    ['sync into a CSV file', ['sync', '--exchange', 'deribit', '--symbol', 'BTC'], 'trades.csv', 'ts,price\n1,2\n'],
    ['sync into a new .json file', ['sync', '--exchange', 'deribit', '--symbol', 'BTC'], 'gex.JSON', undefined],
  ])('--db naming a file that is not a warehouse (%s): exit 2, nothing bought, the file untouched', async (name, args, file, content) => {
    const dir = join(bench.dir, `foreign-db-${name.replaceAll(' ', '-')}`);
    mkdirSync(dir, { recursive: true });
    const db = join(dir, file);
    if (content !== undefined) writeFileSync(db, content);
    const archive = join(dir, 'raw');
    const run = await runCliInProcess([...args, '--db', db, '--archive', archive, '--json'], { env });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(
      content === undefined
        ? `--db ${db}: a warehouse is not named .json (gexwh's config files are); name it e.g. data/gex.duckdb`
        : `${db} is not a DuckDB database (it does not start with a DuckDB file header): check --db`,
    );
    expect((JSON.parse(run.stdout) as JsonError).error).toMatchObject({ code: 'not_a_warehouse', exitCode: 2 });
    expect(existsSync(archive)).toBe(false);
    if (content !== undefined) expect(readFileSync(db, 'utf8')).toBe(content);
    else expect(existsSync(db)).toBe(false);
  });

  it('GEXWH_MEMORY_LIMIT too small for DuckDB', async () => {
    const run = await runCliInProcess(['query', ...local, 'SELECT count(*) FROM levels'], { env: { GEXWH_MEMORY_LIMIT: '0B' } });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/GEXWH_MEMORY_LIMIT is 0B, below the 64MB .*; set 256MB or more, or unset it/);
  });
});

describe("the API down or failing: exit 6, the host, the last status and the server's words, nothing lost", () => {
  it('503 on every attempt, with Retry-After: says when to rerun; --json carries the facts', async () => {
    const db = join(bench.dir, 'outage.duckdb');
    bench.emulator.faults.add({
      match: /^\/api\/v1\/me$/,
      times: Infinity,
      action: { kind: 'status', status: 503, message: 'Maintenance until 03:00 UTC.', retryAfter: '600' },
    });
    try {
      const run = await runCliInProcess(['sync', '--exchange', 'deribit', '--symbol', 'BTC', '--db', db, '--archive', bench.archive, '--json'], { env });
      expect(run.code, run.stderr).toBe(6);
      const host = new URL(bench.emulator.baseUrl).host;
      expect(run.stderr).toContain(`the API at ${host} kept failing (HTTP 503: /me: Maintenance until 03:00 UTC.) after 5 attempt(s)`);
      expect(run.stderr).toContain('Nothing was lost');
      expect(run.stderr).toContain('run the same command again in 600 s or more');
      const { error } = JSON.parse(run.stdout) as JsonError;
      expect(error).toMatchObject({ code: 'market_unavailable', exitCode: 6 });
      expect(error.hint).toMatchObject({ host, attempts: 5, last_status: 503, last_error: '/me: Maintenance until 03:00 UTC.', retry_after_seconds: 600 });
      expect(run.stdout + run.stderr).not.toContain(bench.emulator.keys.pro);
    } finally {
      bench.emulator.faults.clear();
    }
  });

  it('nothing listening: could not be reached, check the base URL', async () => {
    const closed = await closedPort();
    const run = await runCliInProcess(['me', '--json'], { env: { ...env, GEX_BASE_URL: `http://127.0.0.1:${closed}` } });
    expect(run.code, run.stderr).toBe(6);
    expect(run.stderr).toContain(`the API at 127.0.0.1:${closed} could not be reached (/me: ECONNREFUSED`);
    expect(run.stderr).toContain('check the base URL and the network');
    expect((JSON.parse(run.stdout) as JsonError).error).toMatchObject({ code: 'network', exitCode: 6, hint: { host: `127.0.0.1:${closed}`, attempts: 5 } });
  });

  it('only a command that pays for files says every file paid so far is kept: sync does, me and plan do not', async () => {
    const closed = await closedPort();
    const down = { ...env, GEX_BASE_URL: `http://127.0.0.1:${closed}` };
    for (const args of [['me'], ['plan', ...local]]) {
      const run = await runCliInProcess(args, { env: down });
      expect(run.code, run.stderr).toBe(6);
      expect(run.stderr).not.toMatch(/paid|Nothing was lost/);
    }
    const sync = await runCliInProcess(['sync', ...local, '--exchange', 'deribit', '--symbol', 'BTC', '--json'], { env: down });
    expect(sync.code, sync.stderr).toBe(6);
    expect(sync.stderr).toMatch(/check the base URL and the network\. Nothing was lost: every file paid so far is archived and recorded\n/);
    expect((JSON.parse(sync.stdout) as JsonError).error.message).toContain('Nothing was lost');
  });
});

describe('the base URL', () => {
  it('a pasted /api/v1 root is taken off, with a note, and the command works', async () => {
    const run = await runCliInProcess(['me'], { env: { ...env, GEX_BASE_URL: `${bench.emulator.baseUrl}/api/v1/` } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      `note: the base URL is the API root that holds /api/v1: using ${bench.emulator.baseUrl} (given ${bench.emulator.baseUrl}/api/v1/)`,
    );
    expect(existsSync(join(bench.dir, 'data'))).toBe(false);
  });
});

describe('doctor and status speak of what the user has', () => {
  it("doctor with no warehouse at --db names the warehouses beside it (the demo's) and how to check one", async () => {
    const project = join(bench.dir, 'after-demo');
    mkdirSync(join(project, 'data'), { recursive: true });
    writeFileSync(join(project, 'data', 'demo.duckdb'), '');
    const run = await runCliInProcess(['doctor', '--json'], { cwd: project });
    const { error } = JSON.parse(run.stdout) as JsonError;
    const checks = error.hint?.checks as { name: string; detail: string; fix: string }[];
    const warehouse = checks.find((c) => c.name === 'warehouse')!;
    expect(warehouse.detail).toBe('no warehouse at data/gex.duckdb; this folder holds data/demo.duckdb');
    expect(warehouse.fix).toBe('pass --db data/demo.duckdb to check that one, or run gexwh sync to create data/gex.duckdb');
  });

  it('status marks the pairs never synced as such, not as missing 0 files', async () => {
    // --all: a remote pair neither held nor in the selection is shown only on request.
    const run = await runCliInProcess(['status', ...local, '--json', '--all'], { env });
    expect(run.code, run.stderr).toBe(0);
    const pairs = (JSON.parse(run.stdout) as { pairs: { exchange: string; symbol: string; files_missing: number | null; state: string }[] }).pairs;
    expect(pairs.find((p) => p.exchange === 'deribit' && p.symbol === 'BTC')).toMatchObject({ files_missing: 0, state: 'up to date' });
    const bybit = pairs.find((p) => p.exchange === 'bybit' && p.symbol === 'BTC');
    expect(bybit).toMatchObject({ files_missing: null, state: 'never synced' });
    const text = await runCliInProcess(['status', ...local, '--all'], { env });
    expect(text.stdout).toMatch(/^bybit\s+BTC\s.*never synced\b/m);
  });
});

describe('verify says what to do about each problem', () => {
  it('a changed archive copy: verify --repair cannot fix it, and says the rows are intact and the copy comes from a backup', async () => {
    // A copy of the synced warehouse and archive (paths in the ledger are relative to the archive).
    const copy = join(bench.dir, 'verify-copy');
    cpSync(bench.archive, join(copy, 'raw'), { recursive: true });
    cpSync(bench.dbPath, join(copy, 'gex.duckdb'));
    const folder = join(copy, 'raw', 'deribit', 'BTC');
    const levels = readdirSync(folder).find((name) => name.endsWith('_levels.csv.gz'))!;
    const bytes = readFileSync(join(folder, levels));
    bytes[bytes.length - 10]! ^= 0xff;
    writeFileSync(join(folder, levels), bytes);
    const run = await runCliInProcess(['verify', '--repair', '--json', '--db', join(copy, 'gex.duckdb'), '--archive', join(copy, 'raw')]);
    expect(run.code, run.stderr).toBe(4);
    const report = JSON.parse(run.stdout) as { problems: { kind: string; next: string }[] };
    expect(report.problems.map((p) => p.kind)).toContain('hash_mismatch');
    expect(report.problems.find((p) => p.kind === 'hash_mismatch')!.next).toMatch(
      /rows of this file are intact, but gexwh rebuild could not restore them from this copy: restore the file from a backup/,
    );
    expect(run.stderr).toMatch(/that the archive could not repair; each says what to do next/);
  });

  it('a wrong --archive: every copy missing is said as such', async () => {
    const run = await runCliInProcess(['verify', '--db', bench.dbPath, '--archive', join(bench.dir, 'not-the-archive')]);
    expect(run.code, run.stderr).toBe(4);
    expect(run.stdout).toMatch(/missing_archive: .*\n {4}next: check that --archive is the folder the syncs wrote to/);
    expect(run.stderr).toContain(`every archived file is missing from ${join(bench.dir, 'not-the-archive')}: is --archive the folder the syncs wrote to?`);
  });
});

describe('deferred files say what deferred them', () => {
  it('--max-credits, --reserve-credits: named with what to expect, in the text and as deferred_by', async () => {
    const fresh = ['--db', join(bench.dir, 'deferred.duckdb'), '--archive', join(bench.dir, 'deferred-raw'), '--exchange', 'deribit', '--symbol', 'BTC'];
    const capped = await runCliInProcess(['sync', ...fresh, '--max-credits', '1'], { env });
    expect(capped.code, capped.stderr).toBe(0);
    expect(capped.stdout).toMatch(/1 file\(s\) loaded .*, 0 failed, 5 deferred by --max-credits \(1 credit\(s\) this run\); the next run goes on;/);
    expect(capped.stdout).not.toMatch(/until the credits reset/);

    const me = JSON.parse((await runCliInProcess(['me', '--json'], { env })).stdout) as { quota: { history_files: { remaining: number } } };
    const reserve = String(me.quota.history_files.remaining - 2);
    const reserved = await runCliInProcess(['sync', ...fresh, '--reserve-credits', reserve, '--json'], { env });
    expect(reserved.code, reserved.stderr).toBe(0);
    const summary = JSON.parse(reserved.stdout) as { files_deferred: number; deferred_by: string[]; plan: { limited_by: string } };
    expect(summary).toMatchObject({ files_deferred: 3, deferred_by: ['reserve-credits'], plan: { limited_by: 'reserve-credits' } });
    const text = await runCliInProcess(['plan', ...fresh, '--reserve-credits', reserve], { env });
    expect(text.stdout).toMatch(/3 deferred by --reserve-credits \(the credits it keeps stay unspent until the reset at \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ\)/);
  });
});

/** A loopback port nobody listens on: bound, then closed, so the kernel refuses connections to it. */
async function closedPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
