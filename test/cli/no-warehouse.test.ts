// Read-only commands never create a warehouse: `plan` in a folder with no warehouse plans from an
// empty state and leaves the folder as it was (no data/, no lock, no journal). A read-only command
// that finds no warehouse says where it looked: the absolute path, what chose it, and the config
// file search (found, or not found and from which folder up). In-process against the emulator.
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { runCliInProcess } from '../helpers/cli.js';

let emulator: Emulator;
let root: string;

beforeAll(async () => {
  emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 2, expirations: 2, strikes: 6, seed: 5, symbols: ['BTC'] });
  root = realpathSync(mkdtempSync(join(tmpdir(), 'gexwh-nowh-')));
});
afterAll(async () => {
  await emulator.close();
  rmSync(root, { recursive: true, force: true });
});

const env = () => ({ GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.pro });

function folder(name: string): string {
  const path = join(root, name);
  mkdirSync(path, { recursive: true });
  return path;
}

describe('plan beside no warehouse', () => {
  it('plans the whole history and creates nothing: no warehouse, no data folder, no lock, no journal', async () => {
    const cwd = folder('plan-empty');
    const result = await runCliInProcess(['plan', '--exchange', 'deribit', '--symbol', 'BTC', '--json'], { env: env(), cwd });
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as { plan: { to_download: number }; warehouse_created?: string; warnings: string[] };
    expect(summary.plan.to_download).toBeGreaterThan(0);
    expect(summary.warehouse_created).toBeUndefined();
    expect(summary.warnings).toContainEqual(expect.stringContaining(`no warehouse at ${join(cwd, 'data', 'gex.duckdb')} yet: planned from an empty state`));
    expect(readdirSync(cwd)).toEqual([]);
    expect(emulator.counters.credits(emulator.keys.pro)).toBe(0);
  });
});

describe('a read-only command that finds no warehouse', () => {
  it.each([['query', 'SELECT 1'], ['status'], ['export', '--out', 'x'], ['verify'], ['report', '--out', 'r.html'], ['levels'], ['alerts']])(
    '%s: exit 2 with the absolute path and the config search; nothing created',
    async (...args) => {
      const cwd = folder(`missing-${args[0]}`);
      const result = await runCliInProcess(args, { env: env(), cwd });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`no warehouse at ${join(cwd, 'data', 'gex.duckdb')}`);
      expect(result.stderr).toContain(`from: the default data/gex.duckdb, in the working folder ${cwd}`);
      expect(result.stderr).toContain(`config: none found (looked for gexwh.config.json in ${cwd} and every folder above it, up to /)`);
      expect(readdirSync(cwd)).toEqual([]);
    },
  );

  it('names the config file found upward and its db key; --json carries the same hints', async () => {
    const project = folder('project');
    writeFileSync(join(project, 'gexwh.config.json'), JSON.stringify({ db: 'wh/gex.duckdb' }));
    const cwd = join(project, 'notebooks');
    mkdirSync(cwd);
    const result = await runCliInProcess(['query', 'SELECT 1', '--json'], { env: env(), cwd });
    expect(result.code).toBe(2);
    const { error } = JSON.parse(result.stdout) as { error: { message: string; hint: Record<string, string> } };
    expect(error.message).toBe(`query: no warehouse at ${join(project, 'wh', 'gex.duckdb')} (run gexwh sync first, or pass --db)`);
    expect(error.hint).toEqual({
      db: join(project, 'wh', 'gex.duckdb'),
      from: `"db" in ${join(project, 'gexwh.config.json')} (relative to its folder)`,
      config: `found ${join(project, 'gexwh.config.json')}`,
    });
  });

  it('--db and GEXWH_DB are named as the source of the path', async () => {
    const cwd = folder('flags');
    const flag = await runCliInProcess(['status', '--db', 'elsewhere.duckdb'], { env: env(), cwd });
    expect(flag.stderr).toContain(`no warehouse at ${join(cwd, 'elsewhere.duckdb')}`);
    expect(flag.stderr).toContain(`from: --db elsewhere.duckdb (relative to the working folder ${cwd})`);
    const fromEnv = await runCliInProcess(['status'], { env: { ...env(), GEXWH_DB: 'env.duckdb' }, cwd });
    expect(fromEnv.stderr).toContain(`from: GEXWH_DB=env.duckdb (relative to the working folder ${cwd})`);
  });
});
