// A sync bench whose warehouse is already created and migrated, as a first sync would leave it before
// its first download: a copy of the worker's migrated template (migratedTemplate). Only for tests whose
// subject is not how a new warehouse is created.
import type { EmulatorOptions } from '../../emulator/index.js';
import { migratedTemplate, seedWarehouse } from './migrated-warehouse.js';
import { startBench, type Bench } from './sync.js';

export async function startMigratedBench(options: EmulatorOptions = {}): Promise<Bench> {
  const path = await migratedTemplate();
  const bench = await startBench(options);
  seedWarehouse(path, bench.dbPath);
  return bench;
}
