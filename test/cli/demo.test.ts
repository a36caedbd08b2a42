// `gexwh demo` in a fresh folder: the first command of the README.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { camelKeysOf } from '../helpers/json-keys.js';

const cwd = mkdtempSync(join(tmpdir(), 'gexwh-demo-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe('gexwh demo', () => {
  it('syncs crypto and TradFi into data/demo.duckdb, reports, and a rerun spends nothing', async () => {
    const args = ['demo', '--now', '2026-03-11T14:07:00Z', '--days', '4'];
    const first = await runCli(args, { cwd });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^sync ok: 18 file\(s\) loaded/); // BTC 4 sessions + SPY 2 weekdays (7-8 March is a weekend), 3 files each
    expect(first.stdout).toMatch(/strikes_by_expiry\s+\d+/);
    expect(first.stdout).toMatch(/deribit\s+BTC\s+2026-03-10 23:45\s+close/);
    expect(first.stdout).toMatch(/pit_levels/);
    expect(existsSync(join(cwd, 'data', 'demo.duckdb'))).toBe(true);
    expect(existsSync(join(cwd, 'data', 'demo-raw', 'tradfi', 'SPY', '2026-03-10_levels.csv.gz'))).toBe(true);

    // The rerun under --json: one document, snake_case keys like every command's.
    const second = await runCli([...args, '--json'], { cwd });
    expect(second.code, second.stderr).toBe(0);
    const rerun = JSON.parse(second.stdout) as { summary: Record<string, unknown>; tables: unknown[]; levels: unknown[]; point_in_time: unknown[] };
    expect(rerun.summary).toMatchObject({ outcome: 'ok', files_loaded: 0, credits_spent: 0, requests_spent: 0 });
    expect(rerun.tables).toContainEqual({ table: 'sync.files (loaded)', rows: 18 });
    expect(rerun.levels).toHaveLength(2);
    expect(rerun.point_in_time.length).toBeGreaterThan(0);
    expect(camelKeysOf(rerun)).toEqual([]);
  });
});
