// me, coverage, api and status through the CLI (run in this process) against the in-process emulator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { startBench, type Bench } from '../helpers/sync.js';

let bench: Bench;
let env: Record<string, string>;
beforeAll(async () => {
  bench = await startBench();
  env = { GEX_BASE_URL: bench.emulator.baseUrl, GEX_API_KEY: bench.emulator.keys.trial };
});
afterAll(() => bench.close());

describe('remote commands', () => {
  it('me prints the plan and both quotas, free of charge', async () => {
    const result = await runCliInProcess(['me'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/tier: trial/);
    expect(result.stdout).toMatch(/requests\s+50\s+0\s+50/);
    expect(result.stdout).toMatch(/history_files\s+20\s+0\s+20/);
    expect(bench.emulator.counters.requests(bench.emulator.keys.trial)).toBe(0);
  });

  it('me, status and doctor print the quota reset as people read it; JSON keeps the ISO form', async () => {
    await bench.sync({ exchange: 'deribit', symbol: 'BTC' });
    const local = ['--db', bench.dbPath, '--archive', bench.archive];
    const me = await runCliInProcess(['me'], { env });
    const status = await runCliInProcess(['status', ...local], { env });
    const doctor = await runCliInProcess(['doctor', ...local], { env });
    const readable = /reset\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/;
    expect(me.stdout).toMatch(/history_files\s+20\s+\d+\s+\d+\s+\d{4}-\d\d-\d\d 00:00:00Z$/m);
    expect(status.stdout).toMatch(readable);
    expect(doctor.stdout).toMatch(readable);
    for (const run of [me, status, doctor]) expect(run.stdout).not.toMatch(/\dT\d\d:\d\d/);
    const json = JSON.parse((await runCliInProcess(['me', '--json'], { env })).stdout) as { quota: { requests: { reset: string } } };
    expect(json.quota.requests.reset).toMatch(/^\d{4}-\d\d-\d\dT00:00:00(\.000)?Z$/);
  });

  it('coverage lists every (exchange, symbol), as JSON too', async () => {
    const result = await runCliInProcess(['coverage', '--json'], { env });
    const rows = JSON.parse(result.stdout) as { exchange: string; symbol: string }[];
    expect(rows.map((r) => `${r.exchange}/${r.symbol}`)).toEqual(expect.arrayContaining(['deribit/BTC', 'combined/BTC', 'tradfi/SPY']));
  });

  it('api prints the JSON of one GET and shows error slugs with their hints', async () => {
    const ok = await runCliInProcess(['api', '/levels/deribit/BTC', '-q', 'compare=1d'], { env });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ meta: { exchange: 'deribit', exchange_resolved: 'deribit' } });
    const bad = await runCliInProcess(['api', '/levels/nasdaq/BTC'], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/invalid_exchange/);
    expect(bad.stderr).toMatch(/valid_exchanges: .*deribit/);
    const download = await runCliInProcess(['api', '/history/files/deribit/BTC/2026-03-10/levels'], { env });
    expect(download.code).toBe(2);
    expect(download.stderr).toMatch(/credit/);
  });

  it('status compares the warehouse with the coverage, and works offline with a note', async () => {
    await bench.sync({ exchange: 'deribit', symbol: 'BTC' });
    await bench.sync({ exchange: 'tradfi', symbol: 'SPY', since: '2026-03-10' });
    const online = await runCliInProcess(['status', '--db', bench.dbPath, '--archive', bench.archive, '--json'], { env });
    expect(online.code).toBe(0);
    type PairStatus = { exchange: string; symbol: string; manifest_from: string | null; sessions_held: number; files_loaded: number; files_missing: number };
    const status = JSON.parse(online.stdout) as { pairs: PairStatus[]; quota: unknown };
    const pairOf = (exchange: string, symbol: string) => status.pairs.find((p) => p.exchange === exchange && p.symbol === symbol);
    expect(pairOf('deribit', 'BTC')).toMatchObject({ manifest_from: '2026-03-08', sessions_held: 3, files_loaded: 9, files_missing: 0 });
    // Listed from --since only: the older sessions are neither listed nor counted missing.
    expect(pairOf('tradfi', 'SPY')).toMatchObject({ manifest_from: '2026-03-10', sessions_held: 1, files_loaded: 3, files_missing: 0 });
    expect(pairOf('combined', 'BTC')).toMatchObject({ manifest_from: null, sessions_held: 0 });
    expect(status.quota).not.toBeNull();
    const offline = await runCliInProcess(['status', '--db', bench.dbPath, '--archive', bench.archive]);
    expect(offline.code).toBe(0);
    expect(offline.stdout).toMatch(/note: offline/);
    expect(offline.stdout).toMatch(/deribit\s+BTC/);
    expect(offline.stdout).toMatch(/last run: sync ok/);

    // A capture after the sync: status shows it, and still shows the nightly sync's outcome.
    // Its times read as every other command's (2026-03-11 14:07:00.123Z), the dry run's too; never the raw ISO form.
    const dry = await runCliInProcess(['capture', '--db', bench.dbPath, '--symbol', 'BTC', '--exchange', 'deribit', '--dry-run'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^capture dry run at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{3})?Z: up to /);
    const capture = await runCliInProcess(['capture', '--db', bench.dbPath, '--symbol', 'BTC', '--exchange', 'deribit'], { env });
    expect(capture.code, capture.stderr).toBe(0);
    expect(capture.stdout).toMatch(/^capture at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d{3})?Z: /);
    expect(capture.stdout).toMatch(/captured {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/);
    expect(dry.stdout + capture.stdout).not.toMatch(/\dT\d\d:/);
    const after = await runCliInProcess(['status', '--db', bench.dbPath, '--archive', bench.archive, '--json'], { env });
    const both = JSON.parse(after.stdout) as {
      last_run: { command: string; outcome: string; rows_loaded: number };
      last_sync: { command: string; outcome: string };
    };
    expect(both.last_run).toMatchObject({ command: 'capture', outcome: 'ok' });
    expect(both.last_run.rows_loaded).toBeGreaterThan(0);
    expect(both.last_sync).toMatchObject({ command: 'sync', outcome: 'ok' });
    const text = await runCliInProcess(['status', '--db', bench.dbPath, '--archive', bench.archive]);
    expect(text.stdout).toMatch(/last run: capture ok .* live rows added/);
    expect(text.stdout).toMatch(/last sync: sync ok/);
  });
});
