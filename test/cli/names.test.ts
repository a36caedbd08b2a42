// Mistyped names through the CLI (run in this process), as a user meets them: sync, plan, a config
// file, status and export name the unknown value and the closest known names, exit 2, and spend nothing.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { runCliInProcess } from '../helpers/cli.js';

let emulator: Emulator;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 3, expirations: 3, strikes: 12, seed: 5, symbols: ['BTC', 'SPY'] });
  dir = mkdtempSync(join(tmpdir(), 'gexwh-names-'));
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
const env = () => ({ GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.pro });
const credits = () => emulator.counters.credits(emulator.keys.pro);

describe('a mistyped name is an error, not a quiet success', () => {
  it('sync --symbol NOPE: exit 2 naming it and the known symbols; nothing spent, no warehouse created', async () => {
    const ws = workspace();
    const before = credits();
    const result = await runCliInProcess(['sync', '--db', ws.db, '--archive', ws.archive, '--symbol', 'NOPE'], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('NOPE: no history in the coverage; known symbols: BTC, SPY');
    const near = await runCliInProcess(['sync', '--db', ws.db, '--archive', ws.archive, '--symbol', 'btx'], { env: env() });
    expect(near.code).toBe(2);
    expect(near.stderr).toContain('BTX: no history in the coverage; did you mean BTC?');
    expect(credits()).toBe(before);
    expect(existsSync(ws.db)).toBe(false);
  });

  it('a pair with no history names the venues that hold the symbol; the same from a config file', async () => {
    const ws = workspace();
    const pair = await runCliInProcess(['plan', '--db', ws.db, '--archive', ws.archive, '--symbol', 'spy', '--exchange', 'deribit'], { env: env() });
    expect(pair.code).toBe(2);
    expect(pair.stderr).toContain('SPY on deribit: no history; SPY has history on tradfi');
    const config = join(ws.root, 'gexwh.config.json');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(ws.root, { recursive: true });
    writeFileSync(config, JSON.stringify({ symbol: ['ETC'] }));
    const fromConfig = await runCliInProcess(['sync', '--config', config, '--db', ws.db, '--archive', ws.archive], { env: env() });
    expect(fromConfig.code).toBe(2);
    expect(fromConfig.stderr).toContain('ETC: no history in the coverage; did you mean BTC?');
  });

  it('plan and sync say when a symbol costs credits on several venues, per venue; one venue by default, so no note', async () => {
    const ws = workspace();
    const wide = await runCliInProcess(['plan', '--db', ws.db, '--archive', ws.archive, '--symbol', 'btc', '--exchange', 'all-venues'], { env: env() });
    expect(wide.code).toBe(0);
    const note =
      'note: BTC: 5 venues would each cost credits: bybit 9, combined 9, deribit 9, derive 9, okx 9; pick one with --exchange (combined is the sum of the single venues)';
    expect(wide.stdout).toContain(note);
    const scoped = await runCliInProcess(['plan', '--db', ws.db, '--archive', ws.archive, '--symbol', 'btc'], { env: env() });
    expect(scoped.code).toBe(0);
    expect(scoped.stdout).toMatch(/^combined +BTC +9 /m);
    expect(scoped.stdout).not.toContain('venues would each cost credits');
    const before = credits();
    const bought = await runCliInProcess(
      ['sync', '--db', ws.db, '--archive', ws.archive, '--symbol', 'btc', '--exchange', 'deribit,okx', '--max-credits', '2'],
      {
        env: env(),
      },
    );
    expect(bought.code, bought.stderr).toBe(0);
    expect(bought.stdout).toContain('note: BTC: 2 venues would each cost credits: deribit 9, okx 9; pick one with --exchange');
    expect(credits() - before).toBe(2);
  });

  it('status and export check their filters against the warehouse, offline too', async () => {
    const ws = workspace();
    expect((await runCliInProcess(['sync', '--db', ws.db, '--archive', ws.archive, '--symbol', 'SPY', '--exchange', 'tradfi'], { env: env() })).code).toBe(0);
    const offline = { GEX_BASE_URL: 'http://127.0.0.1:9' }; // no key: status works from local state
    const typo = await runCliInProcess(['status', '--db', ws.db, '--archive', ws.archive, '--symbol', 'SPX'], { env: offline });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('SPX: no history in the warehouse (loaded files and the coverage last seen); did you mean SPY?');
    const filtered = await runCliInProcess(['status', '--json', '--db', ws.db, '--archive', ws.archive, '--symbol', 'spy'], { env: offline });
    expect(filtered.code).toBe(0);
    const rows = (JSON.parse(filtered.stdout) as { pairs: { exchange: string; symbol: string; files_loaded: number }[] }).pairs;
    expect(rows).toEqual([expect.objectContaining({ exchange: 'tradfi', symbol: 'SPY', files_loaded: 6 })]);
    const out = join(ws.root, 'export');
    const exported = await runCliInProcess(['export', '--db', ws.db, '--out', out, '--symbol', 'NOPE'], {});
    expect(exported.code).toBe(2);
    expect(exported.stderr).toContain('NOPE: no history in the warehouse (loaded files and the coverage last seen); known symbols: BTC, SPY');
    const pair = await runCliInProcess(['export', '--db', ws.db, '--out', out, '--symbol', 'SPY', '--exchange', 'deribit'], {});
    expect(pair.code).toBe(2);
    expect(pair.stderr).toContain('SPY on deribit: no history; SPY has history on tradfi');
    expect(existsSync(out)).toBe(false);
  });
});
