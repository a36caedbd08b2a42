// A sync bench whose warehouse is already created and migrated, as a first sync would leave it before
// its first download: a copy of one template built once per worker process (vitest keeps a worker's
// modules between files), so the migrations run once per worker instead of once per bench. Only for
// tests whose subject is not how a new warehouse is created.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EmulatorOptions } from '../../emulator/index.js';
import { buildMigratedWarehouse, seedWarehouse } from './migrated-warehouse.js';
import { startBench, type Bench } from './sync.js';

let template: Promise<string> | undefined;

/** The path of the migrated template (built on first call in this worker; removed when it exits). */
export function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gexwh-migrated-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    return buildMigratedWarehouse(dir);
  })();
  return template;
}

export async function startMigratedBench(options: EmulatorOptions = {}): Promise<Bench> {
  const path = await migratedTemplate();
  const bench = await startBench(options);
  seedWarehouse(path, bench.dbPath);
  return bench;
}
