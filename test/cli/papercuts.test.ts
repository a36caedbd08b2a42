// The small things a newcomer trips over in the first week, each as the user sees it: config fields
// that name the key or a near miss, a key file others can read or given beside GEX_API_KEY, an empty
// query, timestamps in a table, a chart of a pair not held, the report's gaps, the emulator's keys,
// and progress when stderr is a pipe (one line per long stage). In-process wherever a run only
// prints; a child only for the emulator's banner (it runs until a signal).
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeAccount, startEmulator, type Emulator } from '../../emulator/index.js';
import { dateRanges, summarizeDates } from '../../src/charts/date-ranges.js';
import { runCli, runCliInProcess } from '../helpers/cli.js';
import { buildMigratedWarehouse, seedWarehouse } from '../helpers/migrated-warehouse.js';

let emulator: Emulator;
let root: string;
let template: string;

beforeAll(async () => {
  emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 2, expirations: 2, strikes: 6, seed: 7, symbols: ['BTC', 'ETH'] });
  root = realpathSync(mkdtempSync(join(tmpdir(), 'gexwh-papercuts-')));
  template = await buildMigratedWarehouse(root);
});
afterAll(async () => {
  await emulator.close();
  rmSync(root, { recursive: true, force: true });
});

const env = (extra: Record<string, string> = {}) => ({ GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.pro, ...extra });

function folder(name: string): string {
  const path = join(root, name);
  mkdirSync(path, { recursive: true });
  return path;
}

function emptyWarehouse(name: string): string[] {
  const db = join(folder(name), 'gex.duckdb');
  seedWarehouse(template, db);
  return ['--db', db, '--archive', join(root, name, 'raw')];
}

describe('config fields', () => {
  it('the key in the config file: refused, saying the key never goes there and where it does go', async () => {
    const cwd = folder('cfg-key');
    writeFileSync(join(cwd, 'gexwh.config.json'), JSON.stringify({ apiKey: 'gex_x' }));
    const result = await runCliInProcess(['me'], { env: env(), cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown field "apiKey": the API key never goes in the config file; set GEX_API_KEY or pass --api-key-file PATH/);
  });

  it('a near miss (symbols, maxCredit): did you mean the field it is close to', async () => {
    const cwd = folder('cfg-near');
    writeFileSync(join(cwd, 'gexwh.config.json'), JSON.stringify({ symbols: ['BTC'], maxCredit: 3 }));
    const result = await runCliInProcess(['plan'], { env: env(), cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown field "symbols": did you mean "symbol"/);
    expect(result.stderr).toMatch(/unknown field "maxCredit": did you mean "maxCredits"/);
  });
});

describe('the key file', () => {
  it('a key file others can read is used with a warning naming chmod 600; a private one without', async () => {
    const cwd = folder('keyfile');
    const file = join(cwd, 'key');
    writeFileSync(file, `${emulator.keys.pro}\n`);
    chmodSync(file, 0o644);
    const open = await runCliInProcess(['me', '--api-key-file', file], { env: env({ GEX_API_KEY: '' }), cwd });
    expect(open.code, open.stderr).toBe(0);
    expect(open.stderr).toContain(`warning: the key file ${file} can be read by others (mode 0644): chmod 600 ${file}`);
    chmodSync(file, 0o600);
    const closed = await runCliInProcess(['me', '--api-key-file', file], { env: env({ GEX_API_KEY: '' }), cwd });
    expect(closed.code, closed.stderr).toBe(0);
    expect(closed.stderr).not.toMatch(/warning/);
  });

  it('a folder as the key file: exit 2 saying it is a folder where a key file is expected, no chmod advice', async () => {
    const cwd = folder('keydir');
    const dir = folder('keydir/open');
    chmodSync(dir, 0o777);
    const result = await runCliInProcess(['me', '--api-key-file', dir], { env: env({ GEX_API_KEY: '' }), cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`--api-key-file: ${dir} is a folder where a key file is expected`);
    expect(result.stderr).not.toMatch(/chmod|can be read by others|EISDIR/);
  });

  it('--api-key-file beside GEX_API_KEY: says which one is used', async () => {
    const cwd = folder('keyboth');
    const file = join(cwd, 'key');
    writeFileSync(file, emulator.keys.pro, { mode: 0o600 });
    const result = await runCliInProcess(['me', '--api-key-file', file], { env: env({ GEX_API_KEY: emulator.keys.trial }), cwd });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`using the key in --api-key-file ${file}; GEX_API_KEY is set too and is not used`);
    expect(result.stderr).not.toContain(emulator.keys.trial);
    expect(result.stderr).not.toContain(emulator.keys.pro);
  });
});

describe('query tables', () => {
  it('an empty result says "(0 rows)" under its header', async () => {
    const result = await runCliInProcess(['query', ...emptyWarehouse('q-empty'), 'SELECT exchange, symbol FROM levels']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('exchange  symbol\n--------  ------\n(0 rows)\n');
  });

  it('timestamps read as "2026-03-10 23:45:00Z" in a table; CSV keeps the ISO form', async () => {
    const local = emptyWarehouse('q-ts');
    const sql = "SELECT TIMESTAMPTZ '2026-03-10 23:45:00+00' AS t, TIMESTAMPTZ '2026-03-10 23:45:00.250+00' AS ms";
    const table = await runCliInProcess(['query', ...local, sql]);
    expect(table.stdout).toContain('2026-03-10 23:45:00Z  2026-03-10 23:45:00.250Z');
    expect(table.stdout).not.toContain('T23:45');
    const csv = await runCliInProcess(['query', ...local, '--format', 'csv', sql]);
    expect(csv.stdout).toBe('t,ms\n2026-03-10T23:45:00.000Z,2026-03-10T23:45:00.250Z\n');
  });
});

describe('chart of a pair the warehouse does not hold', () => {
  it('says the pair is not held, with no empty first_capture line', async () => {
    // deribit/BTC and okx/ETH held: deribit and ETH are both known names, the pair deribit/ETH is not held.
    const local = emptyWarehouse('chart-wh');
    for (const [exchange, symbol] of [
      ['deribit', 'BTC'],
      ['okx', 'ETH'],
    ]) {
      const synced = await runCliInProcess(['sync', ...local, '--exchange', exchange!, '--symbol', symbol!, '--files', 'levels,strikes_total', '--quiet'], {
        env: env(),
      });
      expect(synced.code, synced.stderr).toBe(0);
    }
    const out = join(folder('chart'), 'p.svg');
    const result = await runCliInProcess(['chart', 'profile', ...local, '--exchange', 'deribit', '--symbol', 'ETH', '--out', out]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the warehouse holds no strikes of deribit ETH at all: sync it first');
    expect(result.stderr).not.toMatch(/first_capture:\s*$/m);
  });
});

describe("the report's gaps", () => {
  it('runs of consecutive sessions become ranges; TradFi runs go on across weekends, crypto runs do not', () => {
    // 2026-01-02 is a Friday; 01-05 the Monday after.
    expect(dateRanges(['2026-01-05', '2026-01-02', '2026-01-06', '2026-01-09'], true)).toEqual([
      { first: '2026-01-02', last: '2026-01-06', count: 3 },
      { first: '2026-01-09', last: '2026-01-09', count: 1 },
    ]);
    expect(dateRanges(['2026-01-02', '2026-01-05'], false)).toHaveLength(2);
    expect(dateRanges(['2026-01-02', '2026-01-03', '2026-01-04'], false)).toEqual([{ first: '2026-01-02', last: '2026-01-04', count: 3 }]);
  });

  it('41 missing dates read as a count and a few ranges, never 41 dates inline', () => {
    const days = Array.from({ length: 40 }, (_, i) => new Date(Date.UTC(2026, 0, 1 + i)).toISOString().slice(0, 10));
    const text = summarizeDates([...days, '2026-03-01'], false);
    expect(text).toBe('41 session(s): 2026-01-01 – 2026-02-09 (40), 2026-03-01');
    const scattered = ['2026-01-01', '2026-01-03', '2026-01-05', '2026-01-07', '2026-01-09'];
    expect(summarizeDates(scattered, false)).toBe('5 session(s): 2026-01-01, 2026-01-03, 2026-01-05, +2 more range(s)');
    expect(summarizeDates([], false)).toBe('none');
  });
});

describe("the emulator's keys", () => {
  it('each key says whether it has API access, and its limits', () => {
    expect(describeAccount('premium')).toMatch(/^premium: no API access/);
    expect(describeAccount('revoked')).toMatch(/^revoked/);
    expect(describeAccount('trial')).toBe('API access: 50 requests/day, 20 file credits/day');
    expect(describeAccount('admin')).toBe('API access: unlimited requests, unlimited file credits');
    expect(describeAccount('cryptoOnly')).toMatch(/crypto only$/);
  });

  it('the banner of gexwh emulate shows it beside each key', async () => {
    const result = await runCli(['emulate', '--days', '1', '--symbols', 'BTC', '--expirations', '1', '--strikes', '4'], {
      onSpawn(child) {
        let seen = '';
        child.stdout?.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          if (/revoked/.test(seen)) child.kill('SIGINT');
        });
      },
    });
    expect(result.stdout).toMatch(/premium\s+gex_\S+\s+premium: no API access/);
    expect(result.stdout).toMatch(/pro\s+gex_\S+\s+API access: 500 requests\/day, 200 file credits\/day/);
  });
});

describe('progress on a pipe', () => {
  it('plan writes one line per stage that lasted past the threshold (listing included), ended by a newline; none with --quiet or --json', async () => {
    const cwd = folder('piped');
    const args = ['plan', '--exchange', 'deribit', '--symbol', 'BTC'];
    const piped = await runCliInProcess(args, { env: env({ GEXWH_PROGRESS_AFTER_MS: '0' }), cwd });
    expect(piped.code, piped.stderr).toBe(0);
    const lines = piped.stderr.split('\n');
    expect(lines).toContainEqual(expect.stringMatching(/^reading coverage {2}elapsed \d+s$/));
    expect(lines).toContainEqual(expect.stringMatching(/^listing manifests {2}\d+\/~\d+ files .*elapsed \d+s$/));
    expect(piped.stderr).not.toContain('\r');
    expect(piped.stderr.endsWith('\n')).toBe(true);
    const quiet = await runCliInProcess([...args, '--quiet'], { env: env({ GEXWH_PROGRESS_AFTER_MS: '0' }), cwd });
    expect(quiet.stderr).not.toMatch(/listing manifests/);
    const json = await runCliInProcess([...args, '--json'], { env: env({ GEXWH_PROGRESS_AFTER_MS: '0' }), cwd });
    expect(json.stderr).not.toMatch(/listing manifests/);
  });
});
