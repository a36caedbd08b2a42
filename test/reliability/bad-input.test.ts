// Reliability matrix, bad input from the user: every command with a wrong option value exits 2 (or 3
// for the key) with a message naming the option and what is allowed, prints no stack, never echoes
// the key, and writes nothing. The sync cases of test/cli/sync.test.ts are not repeated here.
// Each case runs gexwh in-process (src/cli/run.ts, the code the binary runs) with the env and cwd a
// child would get; the cases marked `binary` spawn the built CLI, to prove the wiring of each kind of
// refusal (commander, an option's parser, the config file, the key, export's flags) in the real process.
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliInProcess } from '../helpers/cli.js';

let dir: string;
const KEY = 'gex_abcdefghijklmnopqrstuvwxyz012345';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gexwh-bad-input-'));
  writeFileSync(join(dir, 'unknown-key.json'), JSON.stringify({ symbol: ['BTC'], maxCredit: 5 }));
  writeFileSync(join(dir, 'not-json.json'), '{ "db": ');
  writeFileSync(join(dir, 'bad-order.json'), JSON.stringify({ order: 'sideways' }));
  writeFileSync(join(dir, 'key-in-config.json'), JSON.stringify({ apiKey: KEY }));
  writeFileSync(join(dir, 'empty.key'), '\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Case {
  command: string;
  args: string[];
  message: RegExp;
  code?: number;
  env?: Record<string, string | undefined>;
  /** Spawn the built CLI instead of running in-process. */
  binary?: true;
}

const CHART = ['--exchange', 'deribit', '--symbol', 'BTC', '--out', 'OUT.png'];

const CASES: Case[] = [
  // sync and plan (beyond test/cli/sync.test.ts)
  { command: 'sync', args: ['--order', 'sideways'], message: /--order.*allowed: newest, oldest/ },
  { command: 'sync', args: ['--reserve-credits', '-3'], message: /--reserve-credits.*0 or more/ },
  { command: 'sync', args: ['--max-requests', 'x'], message: /--max-requests.*whole number/ },
  { command: 'sync', args: ['--concurrency', '0'], message: /--concurrency.*1 to 32/, binary: true },
  { command: 'sync', args: ['--concurrency', '33'], message: /--concurrency.*1 to 32/ },
  { command: 'sync', args: ['--symbol', 'BT/C'], message: /--symbol.*"BT\/C".*A-Z 0-9/ },
  { command: 'sync', args: ['--symbol', "BTC';DROP TABLE levels;--"], message: /--symbol: bad symbol/ },
  {
    command: 'sync',
    args: ['--since', '2019-12-31'],
    message: /--since: 2019-12-31 is outside the years the API accepts \(2020–2100\); give a date YYYY-MM-DD from 2020-01-01/,
  },
  { command: 'plan', args: ['--until', '2101-01-01'], message: /--until: 2101-01-01 is outside the years the API accepts \(2020–2100\)/ },
  { command: 'sync', args: ['--wait-lock', '-1'], message: /--wait-lock.*0 to 86400/ },
  { command: 'sync', args: ['--base-url', 'ftp://example.com'], message: /--base-url.*https/ },
  { command: 'sync', args: ['--base-url', 'not a url'], message: /--base-url: not a URL/ },
  { command: 'sync', args: ['--config', 'CONFIG:unknown-key.json'], message: /config file.*unknown field.*"maxCredit".*allowed:.*maxCredits/, binary: true },
  { command: 'sync', args: ['--config', 'CONFIG:not-json.json'], message: /config file.*not valid JSON/ },
  { command: 'sync', args: ['--config', 'CONFIG:bad-order.json'], message: /config file.*"order"/ },
  { command: 'sync', args: ['--config', 'CONFIG:key-in-config.json'], message: /config file.*unknown field.*"apiKey"/ },
  { command: 'sync', args: ['--config', 'CONFIG:missing.json'], message: /--config: file not found/ },
  { command: 'sync', args: ['--api-key-file', 'CONFIG:empty.key'], env: { GEX_API_KEY: undefined }, code: 3, message: /--api-key-file.*empty/ },
  { command: 'plan', args: ['--since', '2026-13-01'], message: /--since.*YYYY-MM-DD/ },
  { command: 'plan', args: ['--until', '2100-12-32'], message: /--until/ },
  { command: 'plan', args: ['--files', 'nope'], message: /--files.*allowed: levels, strikes_total, strikes_by_expiry/ },
  { command: 'plan', args: ['--exchange', 'deribit+okx'], message: /--exchange.*bybit/ },
  { command: 'plan', args: [], env: { GEX_API_KEY: 'gex short' }, code: 3, message: /cannot be sent.*whitespace/, binary: true },
  // status
  { command: 'status', args: ['--config', 'CONFIG:not-json.json'], message: /config file.*not valid JSON/ },
  { command: 'status', args: ['--base-url', 'file:///etc'], message: /--base-url.*scheme/ },
  // export
  { command: 'export', args: ['--out', 'OUT', '--format', 'xml'], message: /unknown format "xml"; allowed: parquet, csv/ },
  { command: 'export', args: ['--out', 'OUT', '--table', 'quotes'], message: /unknown table "quotes"; allowed: levels, strikes_total, strikes_by_expiry/ },
  { command: 'export', args: ['--out', 'OUT', '--exchange', 'binance'], message: /unknown exchange "binance"; allowed: bybit/ },
  {
    command: 'export',
    args: ['--out', 'OUT', '--since', '2026-03-10', '--until', '2026-03-01'],
    message: /--since 2026-03-10 is after --until 2026-03-01/,
    binary: true,
  },
  { command: 'export', args: [], message: /--out/ },
  { command: 'export', args: ['--out', 'OUT', '--since', 'notadate'], message: /--since: "notadate" is not a real date YYYY-MM-DD/ },
  { command: 'export', args: ['--out', 'OUT', '--since', '2026-02-30'], message: /--since: "2026-02-30" is not a real date YYYY-MM-DD/ },
  { command: 'export', args: ['--out', 'OUT', '--until', ''], message: /--until: "" is not a real date YYYY-MM-DD/ },
  // query
  { command: 'query', args: [], message: /missing required argument 'sql'/ },
  { command: 'query', args: ['--format', 'yaml', 'SELECT 1'], message: /--format.*allowed: table, csv, json/ },
  // verify, rebuild
  { command: 'verify', args: ['--wait-lock', 'abc'], message: /--wait-lock.*whole number/ },
  { command: 'verify', args: ['--frobnicate'], message: /unknown option '--frobnicate'/, binary: true },
  { command: 'rebuild', args: ['--wait-lock', '-5'], message: /--wait-lock.*0 to 86400/ },
  // api, me, coverage
  { command: 'api', args: ['me'], message: /API path must start with a single "\/"/ },
  { command: 'api', args: ['/me', '-q', 'novalue'], message: /--query: expected key=value/ },
  { command: 'api', args: ['/history/files/deribit/BTC/2026-03-10/levels'], message: /file downloads are not done through `gexwh api`/ },
  { command: 'api', args: ['/me'], env: { GEX_API_KEY: 'sk_live_0123\t456789abcdef' }, code: 3, message: /cannot be sent.*control character/ },
  { command: 'me', args: ['--api-key-file', '/nonexistent/key'], env: { GEX_API_KEY: undefined }, message: /--api-key-file: cannot read/ },
  { command: 'coverage', args: [], env: { GEX_API_KEY: undefined }, code: 3, message: /GEX_API_KEY/ },
  // emulate
  { command: 'emulate', args: ['--port', '70000'], message: /--port.*0 to 65535/ },
  { command: 'emulate', args: ['--seed', '-1'], message: /--seed.*whole number/ },
  { command: 'emulate', args: ['--days', '0'], message: /--days.*1 to 3650/ },
  { command: 'emulate', args: ['--now', 'notadate'], message: /--now: not an ISO 8601 instant/ },
  {
    command: 'emulate',
    args: ['--now', '2026-11-31T14:00:00Z'],
    message: /--now: not an ISO 8601 instant: "2026-11-31T14:00:00Z"; expected a real date and time/,
  },
  { command: 'emulate', args: ['--strikes', '2'], message: /--strikes.*3 to 1000/ },
  // capture
  { command: 'capture', args: ['--symbol', 'BTC', '--exchange', 'foo'], message: /--exchange.*foo/ },
  { command: 'capture', args: ['--symbol', 'BTC', '--max-requests', '-1'], message: /--max-requests/ },
  { command: 'capture', args: ['--symbol', 'B TC'], message: /--symbol: bad symbol "B TC"/ },
  { command: 'capture', args: ['--symbol', 'BTC', '--wait-lock', 'soon'], message: /--wait-lock.*whole number/ },
  // demo
  { command: 'demo', args: ['--days', 'abc'], message: /--days.*whole number from 1 to 60/ },
  { command: 'demo', args: ['--now', '2026-02-30'], message: /--now: not an ISO 8601 instant: "2026-02-30"/ },
  // chart (refused before any warehouse is looked for): impossible dates are not rolled into the next month
  {
    command: 'chart',
    args: ['profile', ...CHART, '--at', '2026-11-31T14:00:00Z'],
    message: /--at: "2026-11-31T14:00:00Z" is not an ISO 8601 instant with a time zone and a real date/,
    binary: true,
  },
  { command: 'chart', args: ['profile', ...CHART, '--at', '2026-02-30'], message: /--at: "2026-02-30" is not an ISO 8601 instant/ },
  { command: 'chart', args: ['term', ...CHART, '--at', '2026-11-20T24:00:00Z'], message: /--at: "2026-11-20T24:00:00Z"/ },
  { command: 'chart', args: ['levels', ...CHART, '--from', '2026-02-30'], message: /--from: "2026-02-30" is not a real date YYYY-MM-DD/ },
  { command: 'chart', args: ['walls', ...CHART, '--to', '2026-02-29'], message: /--to: "2026-02-29" is not a real date YYYY-MM-DD/ },
];

let counter = 0;

describe('every command rejects bad option values: exit 2 (3 for the key), the option named, nothing written', () => {
  it.each(CASES.map((c) => ({ binary: false, ...c })))('$command $args (binary: $binary)', async ({ command, args, message, code = 2, env: extra, binary }) => {
    const root = join(dir, `ws${++counter}`);
    const local = ['status', 'export', 'query', 'verify', 'rebuild', 'sync', 'plan', 'capture', 'demo', 'chart'].includes(command)
      ? ['--db', join(root, 'gex.duckdb'), '--archive', join(root, 'raw')]
      : [];
    const resolved = args.map((a) => (/^OUT(\.\w+)?$/.test(a) ? join(root, `out${a.slice(3)}`) : a.startsWith('CONFIG:') ? join(dir, a.slice(7)) : a));
    // A base URL that refuses connections: a case that wrongly gets past validation fails fast.
    const env = { GEX_BASE_URL: 'http://127.0.0.1:9', GEX_API_KEY: KEY, ...extra };
    const before = readdirSync(dir).length;
    const result = await (binary ? runCli : runCliInProcess)([command, ...local, ...resolved], { env, cwd: dir });
    expect(result.code, result.stderr).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    for (const key of [KEY, env.GEX_API_KEY]) if (key) expect(result.stderr + result.stdout).not.toContain(key);
    expect(existsSync(root)).toBe(false);
    expect(readdirSync(dir).length).toBe(before);
  });
});
