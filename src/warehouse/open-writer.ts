// The writers (sync, load, capture, rebuild, verify --repair) open the warehouse through the same
// sandbox as the readers, writable: a warehouse from elsewhere may hold views and macros that read
// files of this machine, and the writers read its tables too. DuckDB may read the archive (the
// loader reads archived files through it) and nothing else outside the warehouse.
import type { DuckDBConnection } from '@duckdb/node-api';
import { resolve } from 'node:path';
import { openWarehouse, type OpenOptions, type Warehouse } from './open.js';
import { realpathOfExisting, withSeparator } from './real-paths.js';

export type WriterOptions = Pick<OpenOptions, 'waitSeconds' | 'pollMs' | 'onLocked' | 'migrations'>;

/**
 * Opens `path` for writing, sandboxed, with `archiveRoot` readable. DuckDB resolves a link before
 * it checks a path against its allowed folders (a pinned file's /proc/self/fd/N is its real path in
 * the archive), so the archive's real path is the one folder to allow.
 */
export async function openWriter(path: string, archiveRoot: string | undefined, options: WriterOptions = {}): Promise<Warehouse> {
  const readDirectories = archiveRoot === undefined ? [] : [withSeparator(realpathOfExisting(resolve(archiveRoot)))];
  return openWarehouse(path, { ...options, sandbox: { writable: true, readDirectories, prepare: writerSettings } });
}

/**
 * What the writers set once the warehouse is open, set before the configuration is locked: the
 * loader measures a statement's progress only with DuckDB's progress bar on (never printed). A
 * session setting (DuckDB has no global one): the loader runs on the warehouse's first connection.
 */
async function writerSettings(connection: DuckDBConnection): Promise<void> {
  await connection.run('SET enable_progress_bar = true');
  await connection.run('SET enable_progress_bar_print = false');
  await connection.run('SET progress_bar_time = 0');
}
