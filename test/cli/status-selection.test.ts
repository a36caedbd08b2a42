// status shows the pairs held and the pairs the selection buys (the config's, computed as sync does),
// not every remote pair; --all shows every pair of the coverage.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { workspaceIn } from '../helpers/workspace.js';

let emulator: Emulator;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 2, expirations: 2, strikes: 6, seed: 3, symbols: ['BTC', 'ETH', 'SPY', 'QQQ'] });
  dir = mkdtempSync(join(tmpdir(), 'gexwh-status-selection-'));
});
afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.pro });
type Pair = { exchange: string; symbol: string; in_selection: boolean; state: string };

describe('status and the selection', () => {
  it('shows the held pair and the configured ones, not the 9 other remote pairs; --all shows all 12', async () => {
    const ws = workspaceIn(dir);
    mkdirSync(ws.root, { recursive: true });
    const config = join(ws.root, 'gexwh.config.json');
    writeFileSync(config, JSON.stringify({ symbol: ['BTC', 'SPY'] }));
    const sync = await runCliInProcess(['sync', '--config', config, ...ws.local, '--symbol', 'QQQ'], { env: env() });
    expect(sync.code, sync.stderr).toBe(0);
    const status = await runCliInProcess(['status', '--config', config, ...ws.local, '--json'], { env: env() });
    expect(status.code, status.stderr).toBe(0);
    const result = JSON.parse(status.stdout) as { pairs: Pair[]; pairs_not_shown: number };
    expect(result.pairs.map((p) => `${p.exchange}/${p.symbol}:${p.in_selection}`)).toEqual(['combined/BTC:true', 'tradfi/QQQ:false', 'tradfi/SPY:true']);
    expect(result.pairs.find((p) => p.symbol === 'QQQ')!.state).toBe('up to date');
    // BTC and ETH on 4 single venues and combined, SPY and QQQ on tradfi.
    expect(result.pairs_not_shown).toBe(9);
    const text = await runCliInProcess(['status', '--config', config, ...ws.local], { env: env() });
    expect(text.stdout).toContain('9 more pairs of the remote coverage neither held nor in the selection: gexwh status --all lists them');
    const all = await runCliInProcess(['status', '--config', config, ...ws.local, '--all', '--json'], { env: env() });
    const every = JSON.parse(all.stdout) as { pairs: Pair[]; pairs_not_shown: number };
    expect(every.pairs).toHaveLength(12);
    expect(every.pairs_not_shown).toBe(0);
    expect(every.pairs.filter((p) => p.state === 'never synced')).toHaveLength(11);
  });

  it('with no config the selection is every symbol once, on its default venue; its help says what it shows', async () => {
    const ws = workspaceIn(dir);
    const sync = await runCliInProcess(['sync', ...ws.local, '--exchange', 'deribit', '--symbol', 'ETH', '--since', '2026-03-10'], { env: env() });
    expect(sync.code, sync.stderr).toBe(0);
    const status = await runCliInProcess(['status', ...ws.local, '--json'], { env: env(), cwd: ws.root });
    const result = JSON.parse(status.stdout) as { pairs: Pair[] };
    expect(result.pairs.map((p) => `${p.exchange}/${p.symbol}:${p.in_selection}`)).toEqual([
      'combined/BTC:true',
      'combined/ETH:true',
      'deribit/ETH:false',
      'tradfi/QQQ:true',
      'tradfi/SPY:true',
    ]);
    const help = await runCliInProcess(['status', '--help']);
    expect(help.stdout).toContain('every pair held or in the selection');
    expect(help.stdout).toContain('--all');
  });
});
