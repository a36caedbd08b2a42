// One project wherever you stand: the nearest gexwh.config.json (the working folder's or a parent's)
// is the project's, its relative paths and the default ones resolve in its folder, a command that
// creates a warehouse says so with the absolute path, and doctor names the config and warehouse.
// In-process (src/cli/run.ts) with a working folder, against the in-process emulator.
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { runCliInProcess } from '../helpers/cli.js';

let emulator: Emulator;
let root: string;

beforeAll(async () => {
  emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 2, expirations: 2, strikes: 8, seed: 3, symbols: ['BTC'] });
  // realpath: the paths gexwh prints are resolved, and tmpdir may be a link.
  root = realpathSync(mkdtempSync(join(tmpdir(), 'gexwh-project-')));
});
afterAll(async () => {
  await emulator.close();
  rmSync(root, { recursive: true, force: true });
});

const env = () => ({ GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.pro });
const credits = () => emulator.counters.credits(emulator.keys.pro);

describe('the nearest config file is the project', () => {
  it('a sync from a subfolder uses the project warehouse: nothing paid twice, no second warehouse', async () => {
    const project = join(root, 'project');
    const deep = join(project, 'notebooks', 'week1');
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(project, 'gexwh.config.json'), JSON.stringify({ exchange: ['deribit'], symbol: ['BTC'], db: 'wh/gex.duckdb' }));

    const first = await runCliInProcess(['sync'], { env: env(), cwd: project });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`created a new warehouse at ${join(project, 'wh', 'gex.duckdb')}\n`);
    const paid = credits();
    expect(paid).toBeGreaterThan(0);

    const again = await runCliInProcess(['sync', '--json'], { env: env(), cwd: deep });
    expect(again.code, again.stderr).toBe(0);
    const summary = JSON.parse(again.stdout) as { credits_spent: number; warehouse_created?: string; plan: { already_loaded: number } };
    expect(summary.credits_spent).toBe(0);
    expect(summary.warehouse_created).toBeUndefined();
    expect(summary.plan.already_loaded).toBe(paid);
    expect(credits()).toBe(paid);
    // The default archive is the project's too, and nothing was made where the command stood.
    expect(existsSync(join(project, 'data', 'raw', 'deribit', 'BTC'))).toBe(true);
    expect(existsSync(join(deep, 'data'))).toBe(false);
    expect(existsSync(join(deep, 'wh'))).toBe(false);
  });

  it('--config from another folder: its relative paths resolve against the config file, not the working folder', async () => {
    const project = join(root, 'explicit');
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(project, { recursive: true });
    mkdirSync(elsewhere, { recursive: true });
    writeFileSync(
      join(project, 'settings.json'),
      JSON.stringify({ exchange: ['deribit'], symbol: ['BTC'], db: 'store/gex.duckdb', archive: 'store/raw', maxCredits: 0 }),
    );
    // A sync (one credit): a plan never creates a warehouse.
    const result = await runCliInProcess(['sync', '--config', '../explicit/settings.json', '--max-credits', '1', '--json'], { env: env(), cwd: elsewhere });
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { warehouse_created: string }).warehouse_created).toBe(join(project, 'store', 'gex.duckdb'));
    expect(existsSync(join(elsewhere, 'store'))).toBe(false);
  });

  it('with no config anywhere up the tree, a new warehouse in the working folder is announced with its absolute path', async () => {
    const home = join(root, 'home');
    mkdirSync(home, { recursive: true });
    const result = await runCliInProcess(['sync', '--exchange', 'deribit', '--symbol', 'BTC', '--max-credits', '1'], { env: env(), cwd: home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\n')[0]).toBe(`created a new warehouse at ${join(home, 'data', 'gex.duckdb')}`);
    const rerun = await runCliInProcess(['sync', '--exchange', 'deribit', '--symbol', 'BTC', '--max-credits', '1'], { env: env(), cwd: home });
    expect(rerun.stdout).not.toContain('created a new warehouse');
  });

  it('doctor says which config file and which warehouse it checked', async () => {
    const deep = join(root, 'project', 'notebooks', 'week1');
    const result = await runCliInProcess(['doctor', '--json'], { env: env(), cwd: deep });
    // Passed or not (the clock and disk are this machine's), the checks are in the JSON.
    type Checks = { name: string; detail: string }[];
    const parsed = JSON.parse(result.stdout) as { checks?: Checks; error?: { hint: { checks: Checks } } };
    const checks = parsed.checks ?? parsed.error!.hint.checks;
    const config = checks.find((check) => check.name === 'config')!;
    expect(config.detail).toContain(join(root, 'project', 'gexwh.config.json'));
    expect(config.detail).toContain(`warehouse ${join(root, 'project', 'wh', 'gex.duckdb')}, archive ${join(root, 'project', 'data', 'raw')}`);
  });
});
