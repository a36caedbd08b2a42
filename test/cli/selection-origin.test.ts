// The selection's dates against the coverage, and every message naming where a value came from (the
// flag, or the config file's key and path), through the CLI in-process against the emulator.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { workspaceIn, type Workspace } from '../helpers/workspace.js';

let emulator: Emulator;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 3, expirations: 2, strikes: 6, seed: 5, symbols: ['BTC', 'SPY'] });
  dir = mkdtempSync(join(tmpdir(), 'gexwh-origin-'));
});
afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.pro });
const credits = () => emulator.counters.credits(emulator.keys.pro);

function withConfig(ws: Workspace, values: object): string {
  mkdirSync(ws.root, { recursive: true });
  const path = join(ws.root, 'gexwh.config.json');
  writeFileSync(path, JSON.stringify(values));
  return path;
}

describe('--since/--until outside the coverage', () => {
  it('sync --since a year ahead: exit 2 naming the first and last session of the coverage; nothing spent', async () => {
    const ws = workspaceIn(dir);
    const before = credits();
    const result = await runCliInProcess(['sync', ...ws.local, '--symbol', 'BTC', '--since', '2027-01-15'], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /--since 2027-01-15: outside the coverage of the selection \(first session 2026-03-0\d, last session 2026-03-10\); nothing would be synced/,
    );
    expect(credits()).toBe(before);
    const json = await runCliInProcess(['plan', ...ws.local, '--until', '2020-01-01', '--json'], { env: env() });
    expect(json.code).toBe(2);
    const error = (JSON.parse(json.stdout) as { error: { message: string; hint: Record<string, string>; exitCode: number } }).error;
    expect(error.message).toContain('--until 2020-01-01: outside the coverage');
    expect(error.exitCode).toBe(2);
  });

  it('a window that meets the coverage still syncs; from the config, the key and the file are named', async () => {
    const ws = workspaceIn(dir);
    const inside = await runCliInProcess(['plan', ...ws.local, '--symbol', 'SPY', '--since', '2026-03-10', '--until', '2030-01-01'], { env: env() });
    expect(inside.code, inside.stderr).toBe(0);
    const config = withConfig(ws, { since: '2027-01-15', symbol: ['BTC'] });
    const fromConfig = await runCliInProcess(['sync', '--config', config, ...ws.local], { env: env() });
    expect(fromConfig.code).toBe(2);
    expect(fromConfig.stderr).toContain(`"since" in config file ${config} 2027-01-15: outside the coverage of the selection`);
  });
});

describe('config values are blamed on the config, not on flags', () => {
  it('an unknown symbol from the config: checked against the coverage, named as the config key', async () => {
    const ws = workspaceIn(dir);
    const config = withConfig(ws, { symbol: ['ETC'] });
    const result = await runCliInProcess(['sync', '--config', config, ...ws.local], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('ETC: no history in the coverage; did you mean BTC?');
    expect(result.stderr).toContain(`checked: "symbol" in config file ${config} against the coverage`);
    expect(result.stderr).not.toContain('checked: --symbol');
    // A flag given on the command line is named as the flag.
    const flag = await runCliInProcess(['sync', '--config', config, ...ws.local, '--symbol', 'ETX'], { env: env() });
    expect(flag.stderr).toContain('checked: --symbol against the coverage');
  });

  it('a bad date or venue from the config names the key and the file', async () => {
    const ws = workspaceIn(dir);
    const config = withConfig(ws, { until: '2026-02-30', exchange: ['deribt'] });
    const result = await runCliInProcess(['plan', '--config', config, ...ws.local, '--exchange', 'deribit'], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`"until" in config file ${config}: "2026-02-30" is not a real date YYYY-MM-DD in 2020–2100`);
    const venue = await runCliInProcess(['plan', '--config', config, ...ws.local, '--until', '2026-03-10'], { env: env() });
    expect(venue.code).toBe(2);
    expect(venue.stderr).toContain(`"exchange" in config file ${config}: unknown history venue "deribt"`);
  });
});
