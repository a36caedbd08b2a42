// A sync without --exchange on a coverage where some coins have history on one single venue only (no
// combined), as an independent server may list them: each symbol bought once, and a symbol with
// several venues and no default one named with the flags that buy it, never dropped in silence.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { workspaceIn } from '../helpers/workspace.js';

let emulator: Emulator;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({
    now: '2026-03-11T14:07:00Z',
    days: 2,
    expirations: 2,
    strikes: 6,
    seed: 7,
    symbols: ['BTC', 'ETH', 'SPY'],
    symbolAliases: { '1000PEPE': 'SOL' },
    historyVenues: { BTC: ['bybit'], '1000PEPE': ['okx'], ETH: ['bybit', 'okx'] },
  });
  dir = mkdtempSync(join(tmpdir(), 'gexwh-default-venue-'));
});
afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.pro });

interface Summary {
  plan: { pairs: { exchange: string; symbol: string; to_download: number }[] };
  not_bought: { symbol: string; venues: string[]; buy_with: string[] }[];
  files_loaded: number;
}

describe('the default venue rule drops no symbol', () => {
  it('a plain sync buys BTC on bybit and 1000PEPE on okx (their only venues), SPY on tradfi, and names ETH', async () => {
    const ws = workspaceIn(dir);
    const result = await runCliInProcess(['sync', ...ws.local, '--json'], { env: env() });
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as Summary;
    const bought = summary.plan.pairs.filter((pair) => pair.to_download > 0).map((pair) => `${pair.exchange}/${pair.symbol}`);
    expect(bought, result.stdout).toEqual(['bybit/BTC', 'okx/1000PEPE', 'tradfi/SPY']);
    expect(summary.files_loaded).toBeGreaterThan(0);
    expect(summary.not_bought).toEqual([
      { symbol: 'ETH', venues: ['bybit', 'okx'], buy_with: ['--exchange bybit --symbol ETH', '--exchange okx --symbol ETH'] },
    ]);
  });

  it('plan says the same in text: each symbol once, ETH named with its venues and the flag', async () => {
    const ws = workspaceIn(dir);
    const result = await runCliInProcess(['plan', ...ws.local], { env: env() });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^bybit +BTC +\d+/m);
    expect(result.stdout).toMatch(/^okx +1000PEPE +\d+/m);
    expect(result.stdout).toMatch(/^tradfi +SPY +\d+/m);
    expect(result.stdout).not.toMatch(/^\w+ +ETH /m);
    expect(result.stdout).toContain(
      'note: ETH: not bought: history on bybit, okx and on no default venue (combined, tradfi); buy it with --exchange bybit --symbol ETH (or another of its venues) or --exchange all-venues',
    );
  });

  it('a symbol named without a venue is bought on its only venue; one with several venues and no default is exit 2 naming them', async () => {
    const ws = workspaceIn(dir);
    const one = await runCliInProcess(['plan', ...ws.local, '--symbol', 'btc', '--json'], { env: env() });
    expect(one.code, one.stderr).toBe(0);
    expect((JSON.parse(one.stdout) as Summary).plan.pairs.map((pair) => `${pair.exchange}/${pair.symbol}`)).toEqual(['bybit/BTC']);
    const several = await runCliInProcess(['plan', ...ws.local, '--symbol', 'eth'], { env: env() });
    expect(several.code).toBe(2);
    expect(several.stderr).toContain('ETH has history on bybit, okx: name one with --exchange');
  });
});
