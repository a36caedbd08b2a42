// Reliability matrix, a damaged or lost DuckDB file (issue 6), through the CLI's code in this process
// (every check is an exit code, output or the files left; no signal or lock): status says clearly what happened and that the archive is intact; `gexwh rebuild` keeps the damaged
// file aside and recreates the same tables from the archive alone; the next sync spends no credit.
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { runCliInProcess as runCli } from '../helpers/cli.js';
import { consistent, inspectWarehouse, tableChecksums } from '../helpers/invariants.js';
import { snapshotFolder, type FolderSnapshot } from '../helpers/snapshot.js';
import { listFiles } from '../helpers/sync.js';
import { ONE_PAIR_ARGS, workspaceIn } from '../helpers/workspace.js';

let emulator: Emulator;
let dir: string;
// One CLI sync, run once; each test starts from its copy, put back at the same path.
let synced: { ws: ReturnType<typeof workspace>; snapshot: FolderSnapshot; before: Record<string, string>; archived: string[] };

beforeAll(async () => {
  emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 2, expirations: 1, strikes: 4, seed: 9, symbols: ['BTC'] });
  dir = mkdtempSync(join(tmpdir(), 'gexwh-damaged-'));
  const ws = workspace();
  const first = await runCli(ws.sync, { env: env(emulator.keys.trial) });
  expect(first.code, first.stderr).toBe(0);
  const archived = await listFiles(ws.archive);
  expect(archived).toHaveLength(6);
  synced = { ws, snapshot: snapshotFolder(ws.root), before: await tableChecksums(ws.db), archived };
}, 120_000);
afterAll(async () => {
  synced?.snapshot.remove();
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

function workspace() {
  const ws = workspaceIn(dir);
  return { ...ws, paths: ws.local, sync: ['sync', ...ws.local, ...ONE_PAIR_ARGS] };
}

// Credits are compared before and after within one test; tests run one after another.
const env = (key: string) => ({ GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: key });

/** A synced workspace and what it held: the reference the rebuild must reproduce. */
function syncedWorkspace(key: string) {
  synced.snapshot.restore();
  const { ws, before, archived } = synced;
  return { ws, before, archived, credits: emulator.counters.credits(key) };
}

/** The next sync finds every file loaded: exit 0, no credit, the same tables. */
async function expectFreeSync(ws: ReturnType<typeof workspace>, key: string, credits: number, before: Record<string, string>): Promise<void> {
  const next = await runCli([...ws.sync, '--json'], { env: env(key) });
  expect(next.code, next.stderr).toBe(0);
  expect(emulator.counters.credits(key)).toBe(credits);
  expect(JSON.parse(next.stdout)).toMatchObject({ credits_spent: 0, files_loaded: 0 });
  expect(await tableChecksums(ws.db)).toEqual(before);
}

const CORRUPTIONS = [
  { name: 'garbage over the file header', offset: 0 },
  { name: 'a database header overwritten (fails its checksum)', offset: 4096 },
];

describe('a damaged DuckDB file', () => {
  it.each(CORRUPTIONS)(
    '$name: status explains, rebuild keeps the damaged copy and restores the same tables, the next sync is free',
    async ({ offset }) => {
      const key = emulator.keys.admin;
      const { ws, before, archived, credits } = syncedWorkspace(key);
      const bytes = readFileSync(ws.db);
      bytes.fill(0x5a, offset, offset + 4096);
      writeFileSync(ws.db, bytes);

      const status = await runCli(['status', ...ws.paths], { env: env(key) });
      expect(status.code).toBe(1);
      expect(status.stderr).toMatch(/not a valid DuckDB file.*raw archive is untouched: run gexwh rebuild/);
      expect(status.stderr).not.toMatch(/\n\s+at /);

      const rebuilt = await runCli(['rebuild', ...ws.paths], { env: env(key) });
      expect(rebuilt.code, rebuilt.stderr).toBe(0);
      const kept = /kept as (\S+\.damaged-\d{8}T\d{6}Z);/.exec(rebuilt.stdout)?.[1];
      expect(kept, rebuilt.stdout).toBeDefined();
      expect(readFileSync(kept!).equals(bytes)).toBe(true);
      expect(rebuilt.stdout).toContain(`${archived.length} file(s) loaded from ${ws.archive}`);
      expect(await listFiles(ws.archive)).toEqual(archived);
      expect(await tableChecksums(ws.db)).toEqual(before);
      expect(await inspectWarehouse(ws.db, ws.archive)).toEqual(consistent(archived.length));

      expect((await runCli(['status', ...ws.paths], { env: env(key) })).code).toBe(0);
      await expectFreeSync(ws, key, credits, before);
    },
    180_000,
  ); // its own: 5 CLI runs on a damaged file (52-60 s at load 10-15 as child processes)
});

describe('a lost DuckDB file', () => {
  it('rebuild creates the warehouse from the archive alone (--json), and the next sync is free', async () => {
    const key = emulator.keys.pro;
    const { ws, before, archived, credits } = syncedWorkspace(key);
    renameSync(ws.db, `${ws.db}.elsewhere`);

    const rebuilt = await runCli(['rebuild', ...ws.paths, '--json'], { env: {} }); // no key needed
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(JSON.parse(rebuilt.stdout)).toMatchObject({ source: 'archive', files_reloaded: archived.length, problems: [], damaged_copies: [], skipped: [] });
    expect(await tableChecksums(ws.db)).toEqual(before);
    await expectFreeSync(ws, key, credits, before);
  }, 180_000); // its own: timed out at 60 s at load 10-15 (as child processes)

  it('a broken archived file: exit 4 naming it; every other file is loaded', async () => {
    const key = emulator.keys.cryptoOnly;
    const { ws, archived } = syncedWorkspace(key);
    const broken = archived.find((f) => f.endsWith('_levels.csv.gz'))!;
    writeFileSync(broken, readFileSync(broken).subarray(0, 20));
    rmSync(ws.db);

    const rebuilt = await runCli(['rebuild', ...ws.paths], { env: {} });
    expect(rebuilt.code).toBe(4);
    expect(rebuilt.stdout).toContain(`${archived.length - 1} file(s) loaded`);
    expect(rebuilt.stdout).toMatch(new RegExp(`load_failed: deribit/BTC \\S+ levels: ${broken.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: cannot be read`));
    expect(rebuilt.stderr).toMatch(/1 archived file\(s\) could not be rebuilt; they are not in the warehouse/);
    expect(existsSync(ws.db)).toBe(true);
  });
});
