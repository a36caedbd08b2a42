// report and chart take the one selection as plan, sync, status and doctor do: flags, else the config
// file's exchange and symbol, else the default (report: every pair with levels; chart: the symbol's
// one venue held, as a sync without --exchange buys it).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { workspaceIn, type Workspace } from '../helpers/workspace.js';

let emulator: Emulator;
let dir: string;
let ws: Workspace;

beforeAll(async () => {
  emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 2, expirations: 2, strikes: 6, seed: 9, symbols: ['BTC', 'SPY'] });
  dir = mkdtempSync(join(tmpdir(), 'gexwh-report-chart-selection-'));
  ws = workspaceIn(dir);
  mkdirSync(ws.root, { recursive: true });
  const env = { GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.admin };
  const sync = await runCliInProcess(['sync', ...ws.local, '--symbol', 'BTC,SPY'], { env });
  expect(sync.code, sync.stderr).toBe(0);
}, 120_000);
afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

function config(name: string, values: object): string {
  const path = join(ws.root, `${name}.json`);
  writeFileSync(path, JSON.stringify(values), { mode: 0o600 });
  return path;
}

const run = (args: string[]) => runCliInProcess([...args, ...ws.local], { cwd: ws.root });

describe('report', () => {
  it("draws the config's symbols; a flag wins over the config; neither: every pair with levels", async () => {
    const spyOnly = config('spy', { symbol: ['SPY'] });
    const fromConfig = await run(['report', '--out', join(ws.root, 'a.html'), '--config', spyOnly, '--json']);
    expect(fromConfig.code, fromConfig.stderr).toBe(0);
    expect(JSON.parse(fromConfig.stdout)).toMatchObject({ pairs: 1 });
    const flag = await run(['report', '--out', join(ws.root, 'b.html'), '--config', spyOnly, '--symbol', 'BTC,SPY', '--json']);
    expect(JSON.parse(flag.stdout)).toMatchObject({ pairs: 2 });
    const neither = await run(['report', '--out', join(ws.root, 'c.html'), '--config', config('none', {}), '--json']);
    expect(JSON.parse(neither.stdout)).toMatchObject({ pairs: 2 });
  }, 60_000);
});

describe('chart', () => {
  it("draws the config's one symbol on its held venue; a flag wins", async () => {
    const spyOnly = config('spy', { symbol: ['SPY'] });
    const fromConfig = await run(['chart', 'levels', '--out', join(ws.root, 'a.svg'), '--config', spyOnly]);
    expect(fromConfig.code, fromConfig.stderr).toBe(0);
    expect(fromConfig.stdout).toContain('levels chart of tradfi SPY');
    const flag = await run(['chart', 'levels', '--out', join(ws.root, 'b.svg'), '--config', spyOnly, '--symbol', 'BTC']);
    expect(flag.code, flag.stderr).toBe(0);
    expect(flag.stdout).toContain('levels chart of combined BTC');
  }, 60_000);

  it('no symbol anywhere, or several in the config: exit 2 saying to give one', async () => {
    const none = await run(['chart', 'levels', '--out', join(ws.root, 'c.svg'), '--config', config('none', {})]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--symbol: a chart draws one pair; give one symbol/);
    const two = await run(['chart', 'levels', '--out', join(ws.root, 'd.svg'), '--config', config('two', { symbol: ['BTC', 'SPY'] })]);
    expect(two.code).toBe(2);
    expect(two.stderr).toMatch(/a chart draws one pair; give one symbol, got "BTC, SPY"/);
  }, 60_000);
});
