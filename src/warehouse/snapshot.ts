// A private in-memory copy of the warehouse's sync state (manifest, ledger, listings), for a sync that
// cannot open the warehouse for writing because another process holds it. DuckDB lets any number of
// processes open a file READ_ONLY together, but a read-write open is refused while any other process
// has it, and every open is refused while another process has it read-write. So: ATTACH the file
// READ_ONLY for the few milliseconds the copy takes, DETACH, then plan on the copy. The copy carries
// the real schema (migrations applied), so the planner's SQL and the manifest upserts run unchanged.
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { resolve } from 'node:path';
import { duckdb } from './duckdb.js';
import { duckdbLimitsFromEnv } from './duckdb-limits.js';
import { errorMessage, LockError } from '../core/errors.js';
import { migrate } from './migrations.js';
import { parseLockHolderPid, refusalOf } from './open.js';

export interface StateCopy {
  readonly connection: DuckDBConnection;
  /** Idempotent. */
  close(): void;
}

/** The sync tables a plan reads; data tables are not copied. */
const COPIED = ['sync.manifest', 'sync.files', 'sync.listings'] as const;

/** An in-memory database with the warehouse schema and no rows (nothing could be read). */
export async function emptyStateCopy(): Promise<StateCopy> {
  const instance = await duckdb.DuckDBInstance.create(':memory:', duckdbLimitsFromEnv());
  return wrap(instance, await prepare(instance));
}

/**
 * Copies the sync state of `dbPath` through a READ_ONLY attach. Throws LockError (naming the holder's
 * pid when DuckDB gives it) when another process holds the file read-write.
 */
export async function copySyncState(dbPath: string): Promise<StateCopy> {
  const instance = await duckdb.DuckDBInstance.create(':memory:', duckdbLimitsFromEnv());
  const connection = await prepare(instance);
  const copy = wrap(instance, connection);
  try {
    try {
      await connection.run(`ATTACH ${duckdb.quotedString(resolve(dbPath))} AS held (READ_ONLY)`);
    } catch (error) {
      const message = errorMessage(error);
      if (!/Could not set lock on file/i.test(message)) throw error;
      const pid = parseLockHolderPid(message);
      throw new LockError(
        `the warehouse ${resolve(dbPath)} is held read-write by ${pid === undefined ? 'another process' : `process ${pid}`}`,
        { db: dbPath, pid },
        { cause: error },
      );
    }
    // The file may come from elsewhere, its sync tables views that read files of this machine: once
    // it is attached, DuckDB reads nothing outside it (views cannot SET it back).
    await connection.run('SET enable_external_access = false');
    try {
      for (const table of COPIED) {
        // Fixed table names; BY NAME copes with a warehouse whose columns were added in another order.
        await connection.run(`INSERT INTO ${table} BY NAME SELECT * FROM held.${table}`);
      }
    } catch (error) {
      throw refusalOf(error, dbPath) ?? error;
    } finally {
      await connection.run('DETACH held');
    }
    return copy;
  } catch (error) {
    copy.close();
    throw error;
  }
}

async function prepare(instance: DuckDBInstance): Promise<DuckDBConnection> {
  const connection = await instance.connect();
  await connection.run("SET TimeZone = 'UTC'");
  await migrate(connection);
  return connection;
}

function wrap(instance: DuckDBInstance, connection: DuckDBConnection): StateCopy {
  let closed = false;
  return {
    connection,
    close() {
      if (closed) return;
      closed = true;
      connection.closeSync();
      instance.closeSync();
    },
  };
}
