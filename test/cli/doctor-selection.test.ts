// doctor's plan line counts what `gexwh plan` counts (the config's selection through the same planner),
// and an API that cannot be reached is said as such, not as a refused key.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { openWarehouse } from '../../src/warehouse/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { workspaceIn } from '../helpers/workspace.js';

let emulator: Emulator;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 3, expirations: 2, strikes: 6, seed: 9, symbols: ['BTC', 'SPY'] });
  dir = mkdtempSync(join(tmpdir(), 'gexwh-doctor-selection-'));
});
afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

interface CheckRow {
  name: string;
  ok: boolean;
  detail: string;
  fix: string | null;
}
const env = () => ({ GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.trial });
function checksOf(stdout: string): CheckRow[] {
  const parsed = JSON.parse(stdout) as { checks?: CheckRow[]; error?: { hint: { checks: CheckRow[] } } };
  return parsed.checks ?? parsed.error?.hint.checks ?? [];
}

describe('doctor and the selection', () => {
  it("doctor's plan line equals plan's totals under the config's selection", async () => {
    const ws = workspaceIn(dir);
    mkdirSync(ws.root, { recursive: true });
    // A plan never creates a warehouse: an empty one first, which the plans record their listings into.
    (await openWarehouse(ws.db)).close();
    const config = join(ws.root, 'gexwh.config.json');
    writeFileSync(config, JSON.stringify({ symbol: ['SPY'] }));
    // BTC's manifest listed too (pending, never downloaded): the config's selection leaves it out.
    const other = await runCliInProcess(['plan', '--config', config, ...ws.local, '--exchange', 'deribit', '--symbol', 'BTC'], { env: env() });
    expect(other.code, other.stderr).toBe(0);
    const plan = await runCliInProcess(['plan', '--config', config, ...ws.local, '--json'], { env: env() });
    expect(plan.code, plan.stderr).toBe(0);
    const totals = (JSON.parse(plan.stdout) as { plan: { to_download: number; to_reload: number; deferred: number; already_loaded: number } }).plan;
    expect(totals.to_download).toBeGreaterThan(0);
    const doctor = await runCliInProcess(['doctor', '--config', config, ...ws.local, '--json'], { env: env() });
    const disk = checksOf(doctor.stdout).find((c) => c.name === 'disk')!;
    expect(disk.detail).toMatch(new RegExp(`the next sync plans ${totals.to_download} file\\(s\\), (?:\\d+ B|[\\d.]+ [KMGT]B)`));
    expect(disk.detail).toContain(`; ${totals.to_reload} to load from the archive, ${totals.deferred} deferred, ${totals.already_loaded} already loaded`);
  });

  it('an API that does not answer: the api check fails naming the host; the key is not called refused', async () => {
    const ws = workspaceIn(dir);
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const down = `http://127.0.0.1:${port}`;
    const doctor = await runCliInProcess(['doctor', ...ws.local, '--json'], { env: { GEX_BASE_URL: down, GEX_API_KEY: emulator.keys.pro } });
    expect(doctor.code).toBe(1);
    const checks = checksOf(doctor.stdout);
    expect(checks.find((c) => c.name === 'api')).toMatchObject({ ok: false, detail: expect.stringContaining(`${down} not reachable`) });
    expect(checks.find((c) => c.name === 'key')).toBeUndefined();
    const up = await runCliInProcess(['doctor', ...ws.local, '--json'], { env: env() });
    const upChecks = checksOf(up.stdout);
    expect(upChecks.find((c) => c.name === 'api')).toMatchObject({ ok: true });
    expect(upChecks.find((c) => c.name === 'key')).toMatchObject({ ok: true, detail: expect.stringContaining('accepted') });
  }, 60_000);
});
