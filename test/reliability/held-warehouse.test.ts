// A reader never costs the night: another process (a child node process, as a notebook or DBeaver
// would) holds the warehouse through a whole CLI sync against the in-process emulator. The sync still
// lists, downloads, verifies and archives what the budget allows, records it in the archive's journal,
// exits 5 (or loads once the reader lets go), and the next run or `gexwh load` loads it for 0 credits,
// ending with the tables of a clean sync.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { openWarehouse } from '../../src/warehouse/index.js';
import { runCli, runCliInProcess } from '../helpers/cli.js';
import { holdWarehouse, type Holder } from '../helpers/holder.js';
import { consistent, inspectWarehouse, tableChecksums } from '../helpers/invariants.js';
import { snapshotFolder, type FolderSnapshot } from '../helpers/snapshot.js';
import { ONE_PAIR_ARGS, workspaceIn } from '../helpers/workspace.js';
import { journalState } from '../helpers/journal-state.js';
import { readAttached as query } from '../helpers/attached-warehouse.js';

let emulator: Emulator;
let dir: string;
let reference: { tables: Record<string, string>; state: SyncState };

const DAY = 24 * 3600 * 1000;

/** A workspace the setup built once through the CLI; each test that starts from it restores it first. */
interface Prepared {
  ws: ReturnType<typeof workspace>;
  snapshot: FolderSnapshot;
}
// The scenarios of the first block start from a warehouse synced on day 1 (two sessions); then the
// clock moves a day, so their next sync has 3 new files to pay for. Others start from a warehouse a
// plan created (nothing loaded), or from the clean sync of day 2.
let dayOne: Prepared;
let planned: Prepared;
let clean: Prepared;

async function prepare(args: (ws: ReturnType<typeof workspace>) => string[], key: string, emptyWarehouseFirst = false): Promise<Prepared> {
  const ws = workspace();
  if (emptyWarehouseFirst) {
    // A plan never creates a warehouse: an empty one first, which the plan then records into.
    mkdirSync(ws.root, { recursive: true });
    (await openWarehouse(ws.db)).close();
  }
  const result = await runCliInProcess(args(ws), { env: env(key) });
  expect(result.code, result.stderr).toBe(0);
  return { ws, snapshot: snapshotFolder(ws.root) };
}

/** The prepared workspace, put back as the setup left it. */
function restored(prepared: Prepared): ReturnType<typeof workspace> {
  prepared.snapshot.restore();
  return prepared.ws;
}

beforeAll(async () => {
  emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 3, expirations: 1, strikes: 4, seed: 11, symbols: ['BTC'] });
  dir = mkdtempSync(join(tmpdir(), 'gexwh-held-'));
  dayOne = await prepare((ws) => ws.args, emulator.keys.trial);
  emulator.clock.advance(DAY);
  // The truth: a clean sync of the same selection on the same clock, with nobody holding anything.
  clean = await prepare((ws) => ws.args, emulator.keys.admin);
  reference = { tables: await tableChecksums(clean.ws.db), state: await syncState(clean.ws.db) };
  planned = await prepare((ws) => ['plan', ...ws.args.slice(1)], emulator.keys.admin, true); // the warehouse exists, nothing loaded
}, 180_000);
afterAll(async () => {
  for (const prepared of [dayOne, planned, clean]) prepared?.snapshot.remove();
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

function workspace() {
  const ws = workspaceIn(dir);
  return { ...ws, args: ['sync', ...ws.local, ...ONE_PAIR_ARGS] };
}

const env = (key: string) => ({ GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: key });

interface SyncState {
  manifest: string[];
  files: string[];
  listings: string[];
}

/** The sync tables without the columns that differ between two honest runs (times, paths). */
async function syncState(db: string): Promise<SyncState> {
  const keys = async (sql: string) => (await query<{ k: string }>(db, sql)).map((r) => r.k);
  return {
    manifest: await keys(`SELECT concat_ws('/', exchange, symbol, session_date, file, rows, bytes, sha256) k FROM sync.manifest ORDER BY k`),
    files: await keys(`SELECT concat_ws('/', exchange, symbol, session_date, file, sha256, rows, status) k FROM sync.files ORDER BY k`),
    listings: await keys(`SELECT concat_ws('/', exchange, symbol, coalesce(complete_from::VARCHAR, 'all')) k FROM sync.listings ORDER BY k`),
  };
}

interface ManifestFile {
  session_date: string;
  file: string;
  sha256: string;
}

/** Storage GETs of each file of the manifest, by `date/file`. */
function storageHits(files: ManifestFile[]): Map<string, number> {
  return new Map(
    files.map((f) => [`${f.session_date}/${f.file}`, emulator.counters.hits(new RegExp(`^/files/deribit/BTC/${f.session_date}/${f.file}\\.csv\\.gz\\?`))]),
  );
}

function sha256Of(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

describe('another process holds the warehouse through a whole sync', () => {
  it.each([
    { mode: 'read_only' as const, key: 'pro' as const, how: 'a READ_ONLY reader: planned on a copy of the state' },
    { mode: 'read_write' as const, key: 'trial' as const, how: 'a read-write holder: planned from the archive alone' },
  ])(
    '$how; exit 5, each new file served once and archived with its sha256; released, the next run loads them for 0 credits',
    async ({ mode, key: tier }) => {
      const ws = restored(dayOne);
      const key = emulator.keys[tier];
      const before = await query<ManifestFile>(ws.db, `SELECT session_date::VARCHAR session_date, file, sha256 FROM sync.manifest`);
      const newFiles = reference.state.manifest.length - before.length;
      expect(newFiles).toBe(3);
      const everyFile = reference.state.manifest.map((k) => {
        const [, , session_date, file, , , sha256] = k.split('/') as string[];
        return { session_date: session_date!, file: file!, sha256: sha256! };
      });
      const hitsBefore = storageHits(everyFile);
      const creditsBefore = emulator.counters.credits(key);

      let holder: Holder | undefined = await holdWarehouse(ws.db, mode);
      try {
        // In-process (src/cli/run.ts, the code the binary runs): the holder is another process, and
        // DuckDB's lock is per process. No wait: the sync that waits is the next block's.
        const held = await runCliInProcess([...ws.args, '--wait-lock', '0'], { env: env(key) });
        expect(held.code, held.stderr).toBe(5);
        expect(held.stderr).toContain(`process ${holder.pid}`);
        expect(held.stderr).toContain('3 file(s) paid by this run are verified and archived');
        expect(held.stderr).toMatch(/gexwh load \(no network\), loads them for 0 credits/);
        expect(emulator.counters.credits(key) - creditsBefore).toBe(3);

        // The storage served each new file exactly once and no old one again; the archive holds them intact.
        const journal = await journalState(ws.archive);
        const paid = journal.files.filter((f) => !before.some((b) => b.session_date === f.sessionDate && b.file === f.file));
        expect(paid).toHaveLength(3);
        const hitsAfter = storageHits(everyFile);
        const served = (date: string, file: string) => hitsAfter.get(`${date}/${file}`)! - hitsBefore.get(`${date}/${file}`)!;
        for (const f of before) expect(served(f.session_date, f.file), `${f.session_date} ${f.file}`).toBe(0);
        for (const f of paid) {
          expect(served(f.sessionDate, f.file), `${f.sessionDate} ${f.file}`).toBe(1);
          // Recorded relative to the archive root, never to the folder the sync ran in.
          expect(f.archivePath).toBe(`deribit/BTC/${f.sessionDate}_${f.file}.csv.gz`);
          expect(sha256Of(join(ws.archive, f.archivePath))).toBe(f.sha256);
          expect(reference.state.manifest).toContainEqual(expect.stringContaining(`${f.sessionDate}/${f.file}/`));
          expect(reference.state.manifest.some((k) => k.endsWith(`/${f.sha256}`))).toBe(true);
        }
        // The run record is complete, in the journal until the warehouse can take it.
        expect(journal.runs).toEqual([expect.objectContaining({ outcome: 'locked', creditsSpent: 3 })]);

        // status answers while the warehouse is held, from the journal.
        const status = await runCliInProcess(['status', ...ws.local, '--json'], { env: env(key) });
        expect(status.code, status.stderr).toBe(0);
        expect(JSON.parse(status.stdout).waiting_to_load).toMatchObject({ files: journal.files.length, runs: 1 });

        await holder.release();
        holder = undefined;
      } finally {
        holder?.kill();
      }

      const next = await runCliInProcess([...ws.args, '--json'], { env: env(key) });
      expect(next.code, next.stderr).toBe(0);
      expect(JSON.parse(next.stdout)).toMatchObject({ credits_spent: 0, loaded_from_journal: 3 });
      expect(emulator.counters.credits(key) - creditsBefore).toBe(3); // nothing paid twice
      expect(await tableChecksums(ws.db)).toEqual(reference.tables);
      expect(await syncState(ws.db)).toEqual(reference.state);
      expect(await inspectWarehouse(ws.db, ws.archive)).toEqual(consistent(reference.state.manifest.length));
      const runs = await query<{ outcome: string; credits: number }>(
        ws.db,
        `SELECT outcome, credits_spent::INT credits FROM sync.runs WHERE command = 'sync' ORDER BY started_at`,
      );
      expect(runs.slice(-2)).toEqual([
        { outcome: 'locked', credits: 3 },
        { outcome: 'ok', credits: 0 },
      ]);
      expect((await journalState(ws.archive)).files).toEqual([]);
    },
    120_000,
  );
});

describe('a reader that lets go while the sync waits', () => {
  it('the sync loads as soon as the reader closes: exit 0, each file paid once, the tables of a clean sync', async () => {
    const ws = restored(planned);
    const key = emulator.keys.admin;
    const creditsBefore = emulator.counters.credits(key);
    let holder: Holder | undefined = await holdWarehouse(ws.db, 'read_only');
    try {
      const reader = holder;
      // The sync announces its load phase on stderr (--verbose); the reader lets go only then, while it waits.
      const result = await runCli([...ws.args, '--wait-lock', '120', '--verbose', '--json'], {
        env: env(key),
        onSpawn(child) {
          let released = false;
          child.stderr?.on('data', (chunk: Buffer) => {
            if (released || !/^load/m.test(chunk.toString())) return;
            released = true;
            void reader.release();
          });
        },
      });
      holder = undefined;
      expect(result.code, result.stderr).toBe(0);
      const files = reference.state.manifest.length;
      expect(JSON.parse(result.stdout)).toMatchObject({ outcome: 'ok', files_loaded: files });
      expect(emulator.counters.credits(key) - creditsBefore).toBe(files);
    } finally {
      holder?.kill();
    }
    expect(await tableChecksums(ws.db)).toEqual(reference.tables);
    expect(await syncState(ws.db)).toEqual(reference.state);
  }, 120_000);
});

describe('gexwh load and rebuild beside a holder', () => {
  it("gexwh load: exit 5 while held (naming the holder); with no key the journal's listing waits unchecked; with one, one listing request and no credit load the files", async () => {
    const ws = restored(planned);
    const key = emulator.keys.admin;
    const creditsBefore = emulator.counters.credits(key);
    let holder: Holder | undefined = await holdWarehouse(ws.db, 'read_write');
    try {
      const held = await runCliInProcess([...ws.args, '--wait-lock', '0'], { env: env(key) });
      expect(held.code, held.stderr).toBe(5);
      const files = reference.state.manifest.length;
      expect(emulator.counters.credits(key) - creditsBefore).toBe(files);
      // No API settings at all: load must not need the network.
      const blocked = await runCliInProcess(['load', ...ws.local, '--wait-lock', '0'], { env: {} });
      expect(blocked.code, blocked.stderr).toBe(5);
      expect(blocked.stderr).toContain(`process ${holder.pid}`);
      expect(blocked.stderr).toContain(`${files} file(s) wait in`);
      await holder.release();
      holder = undefined;
    } finally {
      holder?.kill();
    }
    // No key: the journal's listing (a claim) cannot be checked, so nothing it lists loads; no network.
    const apiHits = emulator.counters.apiHits;
    const unchecked = await runCliInProcess(['load', ...ws.local, '--json'], { env: {} });
    expect(unchecked.code, unchecked.stderr).toBe(0);
    // The run record is checked against its spend record, not the API: it is stored at once.
    expect(JSON.parse(unchecked.stdout)).toMatchObject({ files_loaded: 0, manifests_stored: 0, runs_recorded: 1 });
    expect(emulator.counters.apiHits).toBe(apiHits);
    const creditsBeforeLoad = emulator.counters.credits(key);
    const loaded = await runCliInProcess(['load', ...ws.local, '--json'], { env: env(key) });
    expect(loaded.code, loaded.stderr).toBe(0);
    expect(JSON.parse(loaded.stdout)).toMatchObject({ files_loaded: reference.state.manifest.length, credits_spent: 0, runs_recorded: 0, manifests_stored: 1 });
    expect(emulator.counters.apiHits).toBe(apiHits + 1);
    expect(emulator.counters.credits(key)).toBe(creditsBeforeLoad);
    expect(await tableChecksums(ws.db)).toEqual(reference.tables);
    expect(await syncState(ws.db)).toEqual(reference.state);
    const runs = await query<{ command: string; outcome: string }>(ws.db, `SELECT command, outcome FROM sync.runs WHERE command <> 'plan' ORDER BY started_at`);
    expect(runs).toEqual([
      { command: 'sync', outcome: 'locked' },
      { command: 'load', outcome: 'ok' },
      { command: 'load', outcome: 'ok' },
    ]);
    // Nothing left to load: a second load does nothing.
    const again = await runCliInProcess(['load', ...ws.local, '--json'], { env: {} });
    expect(JSON.parse(again.stdout)).toMatchObject({ files_loaded: 0 });
  }, 120_000);

  it('rebuild beside a reader: waits --wait-lock, then exit 5 saying nothing changed; the tables are as before', async () => {
    const ws = restored(clean);
    const before = await tableChecksums(ws.db);
    const holder = await holdWarehouse(ws.db, 'read_only');
    try {
      const result = await runCliInProcess(['rebuild', ...ws.local, '--wait-lock', '1'], { env: {} });
      expect(result.code, result.stderr).toBe(5);
      expect(result.stderr).toContain(`process ${holder.pid}`);
      expect(result.stderr).toMatch(/waited 1 s\): rebuild changed nothing/);
    } finally {
      await holder.release();
    }
    expect(await tableChecksums(ws.db)).toEqual(before);
    const rebuilt = await runCliInProcess(['rebuild', ...ws.local], { env: {} });
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
  }, 120_000);
});
