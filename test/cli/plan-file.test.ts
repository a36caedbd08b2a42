// `gexwh plan --out FILE` and `gexwh sync --plan FILE`, through the CLI against the emulator: the sync
// buys exactly the file's files (none outside it, whatever the budget now allows), and refuses with
// exit 2, buying nothing, when the manifest (a file the emulator rebuilt) or the archive (a copy
// removed) moved after the plan was written.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { startBench, type Bench } from '../helpers/sync.js';

let bench: Bench;
let planPath: string;
let env: Record<string, string>;
async function start(): Promise<void> {
  bench = await startBench({ days: 3, symbols: ['BTC', 'SPY'] });
  planPath = join(bench.dir, 'plan.json');
  env = { GEX_BASE_URL: bench.emulator.baseUrl, GEX_API_KEY: bench.emulator.keys.pro };
}

const places = () => ['--db', bench.dbPath, '--archive', bench.archive];
const SELECTION = ['--exchange', 'deribit,tradfi', '--symbol', 'BTC,SPY'];

interface PlanFileJson {
  format: string;
  version: number;
  credits: number;
  fingerprints: { manifest: string; archive: string };
  plan: {
    toDownload: { exchange: string; symbol: string; sessionDate: string; file: string }[];
    toReload: unknown[];
    deferred: unknown[];
    budget: { available: number | null };
  };
}

async function writePlan(...flags: string[]): Promise<PlanFileJson> {
  const planned = await runCliInProcess(['plan', ...places(), ...SELECTION, ...flags, '--out', planPath, '--json'], { env });
  expect(planned.code, planned.stderr).toBe(0);
  return JSON.parse(readFileSync(planPath, 'utf8')) as PlanFileJson;
}

/** The archived daily files as `exchange/symbol/date_kind`. */
function archived(): string[] {
  if (!existsSync(bench.archive)) return [];
  return ['deribit/BTC', 'tradfi/SPY']
    .flatMap((pair) => (existsSync(join(bench.archive, pair)) ? readdirSync(join(bench.archive, pair)).map((name) => `${pair}/${name}`) : []))
    .filter((name) => name.endsWith('.csv.gz'))
    .map((name) => name.replace(/\.csv\.gz$/, ''))
    .sort();
}

const keyOf = (f: { exchange: string; symbol: string; sessionDate: string; file: string }) => `${f.exchange}/${f.symbol}/${f.sessionDate}_${f.file}`;

describe('plan --out, then sync --plan', () => {
  // Each case changes the emulator (quota, a rebuilt file) or the warehouse: a bench of its own.
  beforeEach(start);
  afterEach(() => bench.close());
  it('writes a versioned plan file and the sync buys exactly its files, even when the quota now allows more', async () => {
    const pro = bench.emulator.keys.pro;
    bench.emulator.setQuota(pro, { creditsUsed: 197 }); // 3 credits left of the day's 200 when the plan is made
    const file = await writePlan();
    bench.emulator.setQuota(pro, { creditsUsed: 0 }); // the quota reset before the sync: it could buy every file
    expect(file.format).toBe('gexwh-plan');
    expect(file.version).toBe(1);
    expect(file.credits).toBe(3);
    expect(file.plan.toDownload).toHaveLength(3);
    expect(file.plan.deferred.length).toBeGreaterThan(0);
    expect(file.fingerprints.manifest).toMatch(/^[0-9a-f]{64}$/);
    expect(bench.emulator.counters.credits(bench.emulator.keys.pro)).toBe(0);

    const synced = await runCliInProcess(['sync', ...places(), '--plan', planPath, '--json'], { env });
    expect(synced.code, synced.stderr).toBe(0);
    const summary = JSON.parse(synced.stdout) as { credits_spent: number; files_loaded: number };
    expect(summary.credits_spent).toBe(3);
    expect(bench.emulator.counters.credits(bench.emulator.keys.pro)).toBe(3);
    expect(archived()).toEqual(file.plan.toDownload.map(keyOf).sort());
    expect(summary.files_loaded).toBe(3);
  });

  it('refuses with exit 2, naming the file, when the emulator rebuilt a planned file after the plan was written; nothing is bought', async () => {
    const file = await writePlan();
    const target = file.plan.toDownload.find((f) => f.exchange === 'deribit')!;
    bench.emulator.rebuildFile(target.exchange, target.symbol, target.sessionDate, target.file as 'levels');

    const synced = await runCliInProcess(['sync', ...places(), '--plan', planPath], { env });
    expect(synced.code, synced.stderr).toBe(2);
    expect(synced.stderr).toContain('the manifest or the warehouse changed since the plan was written');
    expect(synced.stderr).toContain(`${target.exchange}/${target.symbol} ${target.sessionDate} ${target.file} is now sha256`);
    expect(bench.emulator.counters.credits(bench.emulator.keys.pro)).toBe(0);
    expect(archived()).toEqual([]);
  });

  it('refuses with exit 2 when an archived copy the plan reloads for free was removed since', async () => {
    const first = await runCliInProcess(['sync', ...places(), ...SELECTION, '--max-credits', '2'], { env });
    expect(first.code, first.stderr).toBe(0);
    rmSync(bench.dbPath); // a lost warehouse: the plan reloads the archived copies for 0 credits
    const file = await writePlan();
    expect(file.plan.toReload).toHaveLength(2);
    const [gone] = archived();
    rmSync(join(bench.archive, `${gone}.csv.gz`));
    const spent = bench.emulator.counters.credits(bench.emulator.keys.pro);

    const synced = await runCliInProcess(['sync', ...places(), '--plan', planPath], { env });
    expect(synced.code, synced.stderr).toBe(2);
    expect(synced.stderr).toContain('the archive changed since the plan was written');
    expect(synced.stderr).toContain('no longer intact in the archive');
    expect(bench.emulator.counters.credits(bench.emulator.keys.pro)).toBe(spent);
  });
});

describe('sync --plan refuses a file it cannot trust, exit 2 saying what is wrong', () => {
  // One bench and one valid plan for every case: each refused sync buys and writes nothing (the
  // credit count checked after each stays 0), and each case writes its own plan file from the valid one.
  let valid: string;
  beforeAll(async () => {
    await start();
    valid = JSON.stringify(await writePlan('--max-credits', '1'), null, 2);
  });
  afterAll(() => bench.close());
  const cases: { name: string; text: (valid: string) => string; says: string }[] = [
    { name: 'not JSON', text: () => '{ half', says: 'not JSON' },
    { name: 'a foreign JSON file', text: () => JSON.stringify({ name: 'package' }), says: 'not a gexwh plan file' },
    { name: 'another format version', text: (valid) => JSON.stringify({ ...JSON.parse(valid), version: 2 }), says: 'plan file format version 2' },
    {
      name: 'a file edited by hand (a bad sha256)',
      text: (valid) => valid.replace(/"sha256": "[0-9a-f]{64}"/, '"sha256": "nothex"'),
      says: 'plan.toDownload.0.sha256',
    },
    {
      name: 'credits that disagree with the files',
      text: (valid) => JSON.stringify({ ...JSON.parse(valid), credits: 999 }),
      says: 'credits says 999',
    },
  ];
  it.each(cases)('$name', async ({ name, text, says }) => {
    const tampered = join(bench.dir, `${name.replaceAll(/\W+/g, '-')}.json`);
    writeFileSync(tampered, text(valid));
    const synced = await runCliInProcess(['sync', ...places(), '--plan', tampered], { env });
    expect(synced.code, synced.stderr).toBe(2);
    expect(synced.stderr).toContain(says);
    expect(bench.emulator.counters.credits(bench.emulator.keys.pro)).toBe(0);
  });

  it('a missing file, and selection flags beside --plan', async () => {
    const missing = await runCliInProcess(['sync', ...places(), '--plan', join(bench.dir, 'none.json')], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read it (ENOENT)');
    writeFileSync(planPath, valid);
    const mixed = await runCliInProcess(['sync', ...places(), '--plan', planPath, '--symbol', 'BTC'], { env });
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('drop --symbol');
    expect(bench.emulator.counters.credits(bench.emulator.keys.pro)).toBe(0);
  });
});
