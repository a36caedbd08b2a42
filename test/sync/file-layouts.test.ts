// A sync against an emulator that writes other layouts than ours, as a real server may: lean files,
// shuffled columns, unknown columns, another schema_version, and the freeze contract.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../emulator/index.js';
import { resolveLayout } from '../../emulator/market/layouts.js';
import { runCliInProcess } from '../helpers/cli.js';
import { migratedTemplate, seedWarehouse } from '../helpers/migrated-warehouse.js';
import { workspaceIn as emptyWorkspaceIn, ONE_PAIR_ARGS, type Workspace } from '../helpers/workspace.js';

const BASE: EmulatorOptions = { now: '2026-03-11T14:07:00Z', days: 2, expirations: 2, strikes: 6, seed: 5, symbols: ['BTC'] };

let dir: string;
const emulators: Emulator[] = [];

async function emulator(options: EmulatorOptions): Promise<Emulator> {
  const started = await startEmulator({ ...BASE, ...options });
  emulators.push(started);
  return started;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gexwh-layouts-'));
});
afterAll(async () => {
  await Promise.all(emulators.map((e) => e.close()));
  rmSync(dir, { recursive: true, force: true });
});

/** A workspace whose warehouse exists already (migrated, empty): what is checked here is the load, not its creation. */
async function workspaceIn(root: string): Promise<Workspace> {
  const ws = emptyWorkspaceIn(root);
  seedWarehouse(await migratedTemplate(), ws.db);
  return ws;
}

const env = (e: Emulator) => ({ GEX_BASE_URL: e.baseUrl, GEX_API_KEY: e.keys.pro });

interface Summary {
  files_loaded: number;
  files_failed: unknown[];
  credits_spent: number;
  warnings: string[];
}

async function sync(e: Emulator, local: string[], ...extra: string[]): Promise<{ code: number | null; summary: Summary; stderr: string }> {
  const result = await runCliInProcess(['sync', '--json', ...local, ...ONE_PAIR_ARGS, ...extra], { env: env(e) });
  return { code: result.code, summary: JSON.parse(result.stdout) as Summary, stderr: result.stderr };
}

async function query(local: string[], sql: string): Promise<Array<Record<string, unknown>>> {
  const result = await runCliInProcess(['query', '--json', ...local, sql]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Array<Record<string, unknown>>;
}

describe('sync against other file layouts', () => {
  it('lean files at schema_version 2 load (every file), the version and unknown columns are named once, queryable, in status', async () => {
    const e = await emulator({ layout: 'lean', schemaVersion: 2 });
    const ws = await workspaceIn(dir);
    const { code, summary, stderr } = await sync(e, ws.local);
    expect(code, stderr).toBe(0);
    expect(summary.files_failed).toEqual([]);
    expect(summary.files_loaded).toBe(6);
    const notes = summary.warnings.join('\n');
    expect(notes).toMatch(/schema_version 2 first seen in deribit\/BTC\/2026-03-\d\d (levels|strikes_total|strikes_by_expiry): loaded by column name/);
    expect(summary.warnings.filter((w) => w.includes('schema_version 2'))).toHaveLength(1);
    expect(notes).toContain('levels files carry a new column "gamma_tilt": kept as DOUBLE column levels."gamma_tilt"');
    expect(notes).toContain('levels files carry a new column "venue_set": kept as VARCHAR column levels."venue_set"');
    const rows = await query(
      ws.local,
      'SELECT count(*)::INTEGER AS n, count(gamma_tilt)::INTEGER AS tilts, min(venue_set) AS first, count(dte)::INTEGER AS dtes, count(DISTINCT schema_version)::INTEGER AS versions FROM levels',
    );
    expect(rows[0]).toMatchObject({ tilts: rows[0]?.n, first: 't0', dtes: 0, versions: 1 });
    expect(await query(ws.local, 'SELECT DISTINCT schema_version FROM sync.files')).toEqual([{ schema_version: 2 }]);
    expect(await query(ws.local, 'SELECT count(*)::INTEGER AS closes FROM levels_close')).toEqual([{ closes: 2 }]);
    const status = await runCliInProcess(['status', ...ws.local], { env: env(e) });
    expect(status.stdout).toMatch(/file layouts loaded \(sync\.layouts\):\n {2}\S+ schema_version 2/);
    expect(status.stdout).toContain('columns added: gamma_tilt DOUBLE, venue_set VARCHAR');
    const doctor = await runCliInProcess(['doctor', '--json', ...ws.local], { env: env(e) });
    expect(doctor.stdout).toContain('file layout(s) loaded (sync.layouts)');
    // A second sync pays for nothing and says nothing new.
    const again = await sync(e, ws.local);
    expect(again.summary).toMatchObject({ credits_spent: 0, files_loaded: 0 });
    expect(again.summary.warnings.filter((w) => /first seen|new column/.test(w))).toEqual([]);
  });

  it('views and charts answer over lean files (NULL columns, never an error)', async () => {
    const e = await emulator({ layout: 'lean' });
    const ws = await workspaceIn(dir);
    expect((await sync(e, ws.local)).code).toBe(0);
    for (const kind of ['profile', 'oi', 'levels', 'walls', 'netgex']) {
      const chart = await runCliInProcess(['chart', kind, ...ws.local, ...ONE_PAIR_ARGS, '--out', join(ws.root, `${kind}.svg`)]);
      expect(chart.code, `${kind}: ${chart.stderr}`).toBe(0);
    }
    const report = await runCliInProcess(['report', ...ws.local, '--out', join(ws.root, 'report.html')]);
    expect(report.code, report.stderr).toBe(0);
    for (const view of ['levels_total', 'levels_close', 'levels_expiry', 'strikes', 'strikes_expiry']) {
      expect((await query(ws.local, `SELECT count(*)::INTEGER AS n FROM ${view}`))[0]?.n).toBeGreaterThan(0);
    }
  });

  // The spec names columns, never their order or their case: both readings load the design's values.
  it.each<[string, EmulatorOptions['layout']]>([
    ['shuffled columns', 'shuffled'],
    ['shuffled columns with upper-case header names', { ...resolveLayout('shuffled')!, upperCaseHeader: true }],
  ])('%s load to the same values as the design layout', async (_name, layout) => {
    const design = await emulator({});
    const other = await emulator({ layout });
    const a = await workspaceIn(dir);
    const b = await workspaceIn(dir);
    expect((await sync(design, a.local)).code).toBe(0);
    const run = await sync(other, b.local);
    expect(run.summary.files_failed).toEqual([]);
    expect(run.summary.files_loaded).toBe(6);
    expect(run.summary.warnings.filter((w) => /new column/.test(w))).toEqual([]);
    const digest = `SELECT (SELECT sum(spot) + sum(flip_count) + sum(max_pain) + count(regime) + count(oi_date) FROM levels) AS l,
                           (SELECT sum(strike * 3 + call_gex - put_gex + net_gex + call_oi + put_oi) FROM strikes_total) AS t,
                           (SELECT sum(net_gex + call_oi) + count(DISTINCT expiration_date) FROM strikes_by_expiry) AS e`;
    // Sums of doubles depend on the order DuckDB adds them in: equal to a relative 1e-12.
    const [got, want] = [(await query(b.local, digest))[0]!, (await query(a.local, digest))[0]!];
    for (const part of ['l', 't', 'e']) expect(Math.abs(Number(got[part]) - Number(want[part]))).toBeLessThanOrEqual(1e-12 * Math.abs(Number(want[part])));
  });

  it('freeze archives and holds wide files (listed as waiting, never paid twice); load --accept-layout loads them', async () => {
    const e = await emulator({ layout: 'wide' });
    const ws = await workspaceIn(dir);
    const frozen = await sync(e, ws.local, '--schema-contract', 'freeze');
    expect(frozen.code, frozen.stderr).toBe(0);
    expect(frozen.summary.files_loaded).toBe(0);
    expect(frozen.summary.credits_spent).toBe(6);
    expect(frozen.summary.warnings.join('\n')).toMatch(
      /new column\(s\) "gamma_tilt", "venue_set": held by schemaContract freeze; gexwh load --accept-layout loads it/,
    );
    const status = await runCliInProcess(['status', '--json', ...ws.local], { env: env(e) });
    expect((JSON.parse(status.stdout) as { waiting_to_load: { files: number } }).waiting_to_load.files).toBe(6);
    // Held again by the next frozen sync and by a plain load, for no credit.
    const again = await sync(e, ws.local, '--schema-contract', 'freeze');
    expect(again.summary).toMatchObject({ credits_spent: 0, files_loaded: 0 });
    const plainLoad = await runCliInProcess(['load', ...ws.local, '--schema-contract', 'freeze']);
    expect(plainLoad.stdout).toMatch(/6 held \(a new layout; gexwh load --accept-layout loads them\)/);
    const accepted = await runCliInProcess(['load', '--json', ...ws.local, '--accept-layout']);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(JSON.parse(accepted.stdout)).toMatchObject({ files_loaded: 6, files_held: [] });
    expect(await query(ws.local, 'SELECT count(gamma_tilt)::INTEGER AS n FROM strikes_by_expiry')).not.toEqual([{ n: 0 }]);
    // Accepted once: the same layout now loads under freeze, and nothing waits.
    const after = await runCliInProcess(['status', '--json', ...ws.local], { env: env(e) });
    expect((JSON.parse(after.stdout) as { waiting_to_load: { files: number } }).waiting_to_load.files).toBe(0);
  });
});
