// A sync test bench: the emulator in-process on port 0 with small chains, a temp warehouse and
// archive, and runSync wired to a real API client (fast retries so fault tests stay quick).
import { existsSync, mkdirSync, mkdtempSync, promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createApiClient, type ApiClient } from '../../src/api/index.js';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../emulator/index.js';
import { syncApiFrom } from '../../src/sync/api-port.js';
import { runSync, type SyncOptions, type SyncSummary } from '../../src/sync/run.js';
import { parseSyncSelection, type RawSyncSelection } from '../../src/sync/selection.js';
import { openWarehouse } from '../../src/warehouse/index.js';
import { readAttached } from './attached-warehouse.js';
import { snapshotFolder, type FolderSnapshot } from './snapshot.js';

/** Wednesday 2026-03-11 14:07 UTC: New York regular hours, crypto mid-session. */
export const NOW = '2026-03-11T14:07:00Z';

export interface Bench {
  emulator: Emulator;
  dir: string;
  dbPath: string;
  archive: string;
  /** A client with instant retries; the key defaults to the pro key. */
  client(key?: string): ApiClient;
  sync(raw?: RawSyncSelection, extra?: Partial<SyncOptions> & { key?: string; signal?: AbortSignal }): Promise<SyncSummary>;
  query<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  close(): Promise<void>;
}

export interface BenchPlace {
  /** The bench's folder (created if missing) instead of a new temp folder; removed by close(). */
  dir?: string;
}

export async function startBench(options: EmulatorOptions = {}, place: BenchPlace = {}): Promise<Bench> {
  const emulator = await startEmulator({ now: NOW, days: 3, expirations: 3, strikes: 12, seed: 11, symbols: ['BTC', 'SPY'], ...options });
  const dir = place.dir ?? mkdtempSync(join(tmpdir(), 'gexwh-sync-'));
  mkdirSync(dir, { recursive: true });
  const dbPath = join(dir, 'gex.duckdb');
  const archive = join(dir, 'raw');
  const clients: ApiClient[] = [];
  const client = (key = emulator.keys.pro) => {
    // A long budget per call: the emulator builds a listed file to learn its sha256, and a first page
    // of a long history takes tens of seconds on a loaded test machine (a real server answers at once).
    const c = createApiClient({ baseUrl: emulator.baseUrl, apiKey: key, retry: { baseDelayMs: 1, maxDelayMs: 5 }, callBudgetMs: 600_000 });
    clients.push(c);
    return c;
  };
  return {
    emulator,
    dir,
    dbPath,
    archive,
    client,
    async sync(raw = {}, extra = {}) {
      const { key, signal, ...rest } = extra;
      const selection = parseSyncSelection(raw);
      const options: SyncOptions = {
        command: 'sync',
        dbPath,
        archiveRoot: archive,
        selection,
        dryRun: false,
        fullRescan: false,
        fillLevels: false,
        recordedOptions: { ...selection },
        ...rest,
      };
      return runSync(options, syncApiFrom(client(key)), signal ?? new AbortController().signal);
    },
    async query<T>(sql: string) {
      // A warehouse the product made is attached; one not there yet is created (and migrated) first.
      if (!existsSync(dbPath)) (await openWarehouse(dbPath)).close();
      return readAttached<T>(dbPath, sql, true);
    },
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await emulator.close();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A bench's folder (warehouse + archive) prepared once, then put back at the same path for each test
 * that starts from it (see snapshotFolder). Each start gets a fresh emulator with the same options
 * (the same files, the same sha256), whose counters start at 0: what `prepare` paid was charged to the
 * emulator it used.
 */
export interface BenchSnapshot {
  start(): Promise<Bench>;
  remove(): Promise<void>;
}

/** A snapshot's `prepare` for the commonest start: a migrated, empty warehouse. */
export async function migrateOnly(bench: Bench): Promise<void> {
  (await openWarehouse(bench.dbPath)).close();
}

export async function snapshotBench(options: EmulatorOptions, prepare: (bench: Bench) => Promise<void>): Promise<BenchSnapshot> {
  const root = mkdtempSync(join(tmpdir(), 'gexwh-bench-'));
  const dir = join(root, 'bench');
  const bench = await startBench(options, { dir });
  let folder: FolderSnapshot;
  try {
    await prepare(bench);
    folder = snapshotFolder(dir);
  } finally {
    await bench.close();
  }
  return {
    start() {
      folder.restore();
      return startBench(options, { dir });
    },
    async remove() {
      folder.remove();
      await fs.rm(root, { recursive: true, force: true });
    },
  };
}

/** Every file under a folder, recursively (to look for leftovers and leaks). */
export async function listFiles(root: string): Promise<string[]> {
  const entries = await fs.readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** Parses an emulator daily file into header + rows of strings. */
export function parseDailyFile(bytes: Buffer): { header: string[]; rows: string[][] } {
  const lines = gunzipSync(bytes).toString('utf8').trimEnd().split('\n');
  const header = lines[0]!.split(',');
  return { header, rows: lines.slice(1).map((line) => line.split(',')) };
}
