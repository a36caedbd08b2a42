// A migrated, empty warehouse built once per test file and copied to where a case's first sync would
// create its own: the migrations (~0.5-1 s of DuckDB work each time) then run once per file instead of
// once per case. Only for cases whose subject is not how a new warehouse is created. For CLI
// workspaces; a sync bench starts from the same state with snapshotBench(options, migrateOnly).
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openWarehouse } from '../../src/warehouse/index.js';

/** Builds the template in `dir` (a folder the test file owns and removes) and returns its path. */
export async function buildMigratedWarehouse(dir: string): Promise<string> {
  const path = join(dir, 'migrated-template.duckdb');
  const warehouse = await openWarehouse(path);
  try {
    // Everything in the one file: a copy must not depend on a write-ahead log beside it.
    await warehouse.connection.run('CHECKPOINT');
  } finally {
    warehouse.close();
  }
  return path;
}

/** Puts a copy of the template at `dbPath`, as if a run had just created and migrated it. */
export function seedWarehouse(template: string, dbPath: string): void {
  mkdirSync(dirname(dbPath), { recursive: true });
  copyFileSync(template, dbPath);
}

let template: Promise<string> | undefined;

/**
 * A template built once per worker process (vitest keeps a worker's modules between files), in a temp
 * folder removed when the worker exits: the migrations then run once per worker, not once per test.
 */
export function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gexwh-migrated-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    return buildMigratedWarehouse(dir);
  })();
  return template;
}
