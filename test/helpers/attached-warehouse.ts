// A test that only reads or pokes at a warehouse file the product wrote attaches it to one DuckDB the
// worker keeps (ATTACH, then DETACH), instead of opening a DuckDB of its own: an instance builds and
// tears down DuckDB's whole function catalog, ~33 ms of CPU against ~6 ms for an attach, and the
// suite's checks read warehouses ~600 times. The product's own opens stay what they are.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { duckdb } from '../../src/warehouse/duckdb.js';

let host: Promise<DuckDBInstance> | undefined;
let attachments = 0;
// One attachment of a file at a time: DuckDB refuses a path already attached.
const busy = new Map<string, Promise<unknown>>();

function hostInstance(): Promise<DuckDBInstance> {
  host ??= duckdb.DuckDBInstance.create(':memory:', { threads: process.env.GEXWH_THREADS ?? '1' });
  return host;
}

/**
 * Runs `read` on a connection whose default database is the warehouse at `dbPath` (read-only unless
 * `writable`), in UTC as the product's own connections are. The file must exist: a warehouse is
 * created, and migrated, only by the product.
 */
export async function withAttachedWarehouse<T>(dbPath: string, read: (connection: DuckDBConnection) => Promise<T>, writable = false): Promise<T> {
  const path = resolve(dbPath);
  if (!existsSync(path)) throw new Error(`no warehouse at ${path} to attach`);
  const before = busy.get(path) ?? Promise.resolve();
  const turn = before.catch(() => undefined).then(() => attached(path, read, writable));
  busy.set(path, turn);
  try {
    return await turn;
  } finally {
    if (busy.get(path) === turn) busy.delete(path);
  }
}

async function attached<T>(path: string, read: (connection: DuckDBConnection) => Promise<T>, writable: boolean): Promise<T> {
  const connection = await (await hostInstance()).connect();
  attachments += 1;
  const alias = `warehouse_${attachments}`;
  try {
    await connection.run(`ATTACH '${path.replaceAll("'", "''")}' AS ${alias}${writable ? '' : ' (READ_ONLY)'}`);
    try {
      await connection.run(`USE ${alias}`);
      await connection.run(`SET TimeZone = 'UTC'`);
      return await read(connection);
    } finally {
      await connection.run('USE memory');
      await connection.run(`DETACH ${alias}`);
    }
  } finally {
    connection.closeSync();
  }
}

/** The rows of one query, as JSON values (bigints as strings), on the attached warehouse. */
export function readAttached<T = Record<string, unknown>>(dbPath: string, sql: string, writable = false): Promise<T[]> {
  return withAttachedWarehouse(dbPath, async (connection) => (await connection.runAndReadAll(sql)).getRowObjectsJson() as T[], writable);
}
