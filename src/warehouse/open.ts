// Opens the DuckDB warehouse: creates its folder, pins the session to UTC, maps DuckDB's file-lock
// error to LockError (exit 5) and a damaged file to DamagedWarehouseError, and applies pending
// migrations when opened for writing.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { duckdb } from './duckdb.js';
import { DamagedWarehouseError, errorMessage, GexwhError, LockError, NotAWarehouseError, UsageError } from '../core/errors.js';
import { hasDuckDbHeader, isDamagedFileMessage } from './identity.js';
import { migrate, type MigrateOptions } from './migrations.js';

export interface Warehouse {
  readonly path: string;
  readonly readOnly: boolean;
  readonly connection: DuckDBConnection;
  /** Idempotent. */
  close(): void;
}

export interface OpenOptions {
  readOnly?: boolean;
  /** While another process holds the file, retry for up to this many seconds (default 0). */
  waitSeconds?: number;
  pollMs?: number;
  /** Told each time the file is found held while waiting (a caller can say it is waiting). */
  onLocked?(error: LockError): void;
  /** Migration folder and cut-off (tests); by default every migration in sql/. */
  migrations?: MigrateOptions;
  /**
   * For SQL the user wrote: read-only, no file or network access outside the warehouse but for
   * these folders, no extension installed or loaded, configuration locked. Implies readOnly.
   */
  sandbox?: { readDirectories: readonly string[] };
}

export const IN_MEMORY = ':memory:';

/** DuckDB names the holder: `Conflicting lock is held in /usr/bin/node (PID 4251)`. */
export function parseLockHolderPid(message: string): number | undefined {
  const match = /Could not set lock on file[\s\S]*?\(PID (\d+)\)/i.exec(message);
  return match ? Number(match[1]) : undefined;
}

function isLockMessage(message: string): boolean {
  return /Could not set lock on file/i.test(message);
}

export { isDamagedFileMessage };

/** A damaged-file error, whether already mapped by openWarehouse or raw from a later query. */
export function isDamagedWarehouseError(error: unknown): boolean {
  if (error instanceof DamagedWarehouseError) return true;
  return error instanceof Error && !(error instanceof GexwhError) && isDamagedFileMessage(error.message);
}

function damagedError(dbPath: string, cause: unknown): DamagedWarehouseError | NotAWarehouseError {
  // Only a file of DuckDB's own format can be a damaged warehouse: anything else is the wrong --db.
  if (!hasDuckDbHeader(dbPath)) return notAWarehouseError(dbPath, cause);
  // The raw archive is the source of truth: say how to get the tables back from it.
  return new DamagedWarehouseError(
    `the warehouse ${dbPath} is not a valid DuckDB file (damaged or not a database); the raw archive is untouched: ` +
      `run gexwh rebuild to recreate the warehouse from it (no network, no credit; the damaged file is kept aside), ` +
      `or move the file away and run gexwh sync`,
    { db: dbPath },
    { cause },
  );
}

function notAWarehouseError(dbPath: string, cause: unknown): NotAWarehouseError {
  return new NotAWarehouseError(`${dbPath} is not a DuckDB database (it does not start with a DuckDB file header): check --db`, { db: dbPath }, { cause });
}

export async function openWarehouse(path: string, options: OpenOptions = {}): Promise<Warehouse> {
  const readOnly = (options.readOnly ?? false) || options.sandbox !== undefined;
  const dbPath = path === IN_MEMORY ? path : resolve(path);
  if (dbPath !== IN_MEMORY && !readOnly) mkdirSync(dirname(dbPath), { recursive: true });

  const instance = await createInstanceWaiting(dbPath, readOnly, options);
  let connection: DuckDBConnection | undefined;
  try {
    connection = await instance.connect();
    await pinUtc(connection);
    if (options.sandbox) await lockDown(connection, options.sandbox.readDirectories);
    if (!readOnly) await migrate(connection, options.migrations);
  } catch (error) {
    connection?.closeSync();
    instance.closeSync();
    // Damage past the headers shows only when the catalog or a migration reads the broken block.
    if (dbPath !== IN_MEMORY && isDamagedWarehouseError(error)) throw damagedError(dbPath, error);
    throw error;
  }
  const conn = connection;
  let closed = false;
  return {
    path: dbPath,
    readOnly,
    connection: conn,
    close() {
      if (closed) return;
      closed = true;
      conn.closeSync();
      instance.closeSync();
    },
  };
}

async function createInstanceWaiting(dbPath: string, readOnly: boolean, options: OpenOptions): Promise<DuckDBInstance> {
  const deadline = Date.now() + Math.max(0, options.waitSeconds ?? 0) * 1000;
  for (;;) {
    try {
      return await createInstance(dbPath, readOnly, options.sandbox !== undefined);
    } catch (error) {
      if (!(error instanceof LockError) || Date.now() >= deadline) throw error;
      options.onLocked?.(error);
      await sleep(Math.min(options.pollMs ?? 250, Math.max(1, deadline - Date.now())));
    }
  }
}

const MEMORY_LIMIT = /^\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i;

/**
 * DuckDB's memory_limit from env GEXWH_MEMORY_LIMIT (e.g. 256MB), for small machines: past it DuckDB
 * spills to `<db>.tmp` instead of growing. Unset: DuckDB's default (80% of RAM).
 */
export function memoryLimitFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const raw = env.GEXWH_MEMORY_LIMIT?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (!MEMORY_LIMIT.test(raw)) {
    throw new UsageError(`GEXWH_MEMORY_LIMIT must be a size like 256MB or 2GB, got "${raw}"`, { GEXWH_MEMORY_LIMIT: raw });
  }
  return raw;
}

/** The oldest DuckDB that opens a warehouse this version creates (and reads its export). */
export const STORAGE_COMPATIBILITY = 'v1.4.0';

async function createInstance(dbPath: string, readOnly: boolean, sandbox: boolean): Promise<DuckDBInstance> {
  const memoryLimit = memoryLimitFromEnv();
  const config = {
    // A new warehouse file is written so that DuckDB 1.4 (the long-term release users' Python and CLI
    // lag on) still opens it, whatever later DuckDB makes its default.
    storage_compatibility_version: STORAGE_COMPATIBILITY,
    ...(readOnly ? { access_mode: 'READ_ONLY' } : {}),
    ...(memoryLimit !== undefined ? { memory_limit: memoryLimit } : {}),
    ...(sandbox ? { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' } : {}),
  };
  try {
    // fromCache: one process never holds the same file twice (POSIX locks would not stop it). A
    // sandbox gets its own instance: a cached one could be handed, locked, to a later writer.
    return sandbox ? await duckdb.DuckDBInstance.create(dbPath, config) : await duckdb.DuckDBInstance.fromCache(dbPath, config);
  } catch (error) {
    const message = errorMessage(error);
    if (readOnly && /database does not exist/i.test(message)) {
      throw new UsageError(`no warehouse at ${dbPath} (run gexwh sync first, or pass --db)`, { db: dbPath }, { cause: error });
    }
    if (isDamagedFileMessage(message)) throw damagedError(dbPath, error);
    if (!isLockMessage(message)) throw error;
    const pid = parseLockHolderPid(message);
    const holder = pid === undefined ? 'another process' : `process ${pid}`;
    throw new LockError(`the warehouse ${dbPath} is in use by ${holder}`, { db: dbPath, pid }, { cause: error });
  }
}

/**
 * allowed_directories can only be set while external access is on, and DuckDB lets it write there
 * too: the caller's statement check is what keeps those folders read-only. Locking the
 * configuration last makes every SET, RESET and PRAGMA that would undo this fail.
 */
async function lockDown(connection: DuckDBConnection, readDirectories: readonly string[]): Promise<void> {
  if (readDirectories.length > 0) {
    await connection.run(`SET allowed_directories = [${readDirectories.map(sqlString).join(', ')}]`);
  }
  await connection.run('SET enable_external_access = false');
  await connection.run('SET lock_configuration = true');
}

function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * TIMESTAMPTZ text must round-trip as UTC whatever the machine's zone. TimeZone cannot go in the
 * instance options (ICU is not loaded yet at that point), so it is set once the connection exists.
 */
async function pinUtc(connection: DuckDBConnection): Promise<void> {
  await connection.run("SET GLOBAL TimeZone = 'UTC'");
  await connection.run("SET TimeZone = 'UTC'");
}
