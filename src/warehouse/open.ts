// Opens the DuckDB warehouse: creates its folder, pins the session to UTC, maps DuckDB's file-lock
// error to LockError (exit 5) and a damaged file to DamagedWarehouseError, and applies pending
// migrations when opened for writing. openReader is the one sandbox every user-facing read goes
// through (query, chart, report, status, doctor).
import { existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { realpathOfExisting, realpathOr, withSeparator } from './real-paths.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { duckdb } from './duckdb.js';
import {
  DamagedWarehouseError,
  errorMessage,
  GexwhError,
  LockError,
  NotAWarehouseError,
  NoWarehouseError,
  UnsafeWarehouseError,
  UsageError,
} from '../core/errors.js';
import { isSpecialFile } from '../core/special-file.js';
import { hasDuckDbHeader, isDamagedFileMessage } from './identity.js';
import { migrate, type MigrateOptions } from './migrations.js';
import { readOne, textList } from './read-rows.js';
import { quoteString } from '../core/sql-quote.js';
import { duckdbLimitsFromEnv, memoryLimitFromEnv, threadsFromEnv } from './duckdb-limits.js';

export { memoryLimitFromEnv, threadsFromEnv };

export interface Warehouse {
  readonly path: string;
  readonly readOnly: boolean;
  readonly connection: DuckDBConnection;
  /**
   * Another connection to the same database, pinned to UTC (and sandboxed like the first): DuckDB
   * runs statements of different connections at once. Closed with the warehouse.
   */
  connect(): Promise<DuckDBConnection>;
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
   * For SQL the user wrote, and for views a warehouse from elsewhere may have redefined: no file or
   * network access outside the warehouse, a private temp folder, no extension installed or loaded,
   * configuration locked. Read-only unless `writable`.
   */
  sandbox?: SandboxOptions;
}

export interface SandboxOptions {
  /** Folders whose files the SQL may read (absolute, ending in the separator). */
  readDirectories?: readonly string[];
  /** Files DuckDB itself may write: only the temp file of `query --out FILE.parquet`. */
  writeFiles?: readonly string[];
  /** Open for writing (status storing the coverage it just fetched); migrations run locked down too. */
  writable?: boolean;
  /** Settings of gexwh's own to make before the configuration is locked (an export keeps its memory). */
  prepare?: (connection: DuckDBConnection) => Promise<void>;
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

/** DuckDB says only "Could not read from file ... Is a directory": name the option and the fix. */
function refuseFolder(dbPath: string): void {
  if (!statSync(dbPath, { throwIfNoEntry: false })?.isDirectory()) return;
  throw new UsageError(`--db ${dbPath} is a folder; --db names the warehouse file, e.g. --db ${dbPath.replace(/\/+$/, '')}/gex.duckdb`, { db: dbPath });
}

/** A device, a pipe or a kernel file is never a warehouse: refused as the wrong --db before it is opened. */
function refuseSpecialFile(dbPath: string): void {
  if (!isSpecialFile(dbPath)) return;
  throw new UsageError(`--db ${dbPath} is not a warehouse file (a device, pipe or kernel file); --db names the DuckDB warehouse file, e.g. data/gex.duckdb`, {
    db: dbPath,
  });
}

/**
 * Refused before DuckDB sees it: an existing file not DuckDB's (DuckDB opens JSON or CSV as an in-memory
 * database over its rows: a sync said ok and kept nothing), and a new one named .json (configs are).
 */
function refuseForeignFile(dbPath: string): void {
  const size = statSync(dbPath, { throwIfNoEntry: false })?.size;
  if (size === undefined && /\.json$/i.test(dbPath)) {
    throw new NotAWarehouseError(`--db ${dbPath}: a warehouse is not named .json (gexwh's config files are); name it e.g. data/gex.duckdb`, { db: dbPath });
  }
  if (size !== undefined && size > 0 && !hasDuckDbHeader(dbPath)) throw notAWarehouseError(dbPath, undefined);
}

function notAWarehouseError(dbPath: string, cause: unknown): NotAWarehouseError {
  return new NotAWarehouseError(`${dbPath} is not a DuckDB database (it does not start with a DuckDB file header): check --db`, { db: dbPath }, { cause });
}

/**
 * The one sandboxed reader: every command that reads the warehouse for a user opens it here. A
 * warehouse file may come from someone else, and its views run whatever SQL they were given, so
 * they run with no access to any file but the warehouse's own (and `readDirectories`).
 */
export async function openReader(path: string, sandbox: SandboxOptions = {}): Promise<Warehouse> {
  if (!existsSync(resolve(path))) throw new NoWarehouseError(path);
  return openWarehouse(path, { sandbox });
}

/**
 * The connection, except that DuckDB's refusal of a file becomes an UnsafeWarehouseError saying
 * where such SQL comes from (gexwh's own views and macros read no file), for every caller at once.
 */
function namingRefusals(connection: DuckDBConnection, path: string): DuckDBConnection {
  return new Proxy(connection, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = value.apply(target, args);
        return result instanceof Promise ? result.catch((error: unknown) => Promise.reject(refusalOf(error, path) ?? error)) : result;
      };
    },
  });
}

export function refusalOf(error: unknown, path: string): UnsafeWarehouseError | undefined {
  const first = errorMessage(error).split('\n')[0] ?? '';
  if (!/^Permission Error:/.test(first)) return undefined;
  return new UnsafeWarehouseError(
    `the warehouse ${path} holds SQL (a view or a macro) that reads a file or URL outside it, which the sandbox refused (${first}); ` +
      `gexwh's own views read no file: this one came from elsewhere`,
    { db: path },
    { cause: error },
  );
}

export async function openWarehouse(path: string, options: OpenOptions = {}): Promise<Warehouse> {
  const readOnly = options.sandbox ? options.sandbox.writable !== true : (options.readOnly ?? false);
  const dbPath = path === IN_MEMORY ? path : resolve(path);
  if (dbPath !== IN_MEMORY) {
    refuseFolder(dbPath);
    refuseSpecialFile(dbPath);
    refuseForeignFile(dbPath);
  }
  if (dbPath !== IN_MEMORY && !readOnly) mkdirSync(dirname(dbPath), { recursive: true });
  if (options.sandbox && dbPath !== IN_MEMORY) refuseLinkedSiblings(dbPath);

  const privateTemp = options.sandbox ? createPrivateTemp() : undefined;
  const removeTemp = () => {
    if (privateTemp !== undefined) rmSync(privateTemp, { recursive: true, force: true });
  };
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;
  try {
    instance = await createInstanceWaiting(dbPath, readOnly, options, privateTemp);
    connection = await prepareConnection(instance, { path, dbPath, readOnly, options, privateTemp });
  } catch (error) {
    removeTemp();
    throw error;
  }
  const db = instance;
  const others: DuckDBConnection[] = [];
  let closed = false;
  return {
    path: dbPath,
    readOnly,
    connection,
    async connect() {
      if (closed) throw new Error(`the warehouse ${dbPath} is closed`);
      const another = await db.connect();
      others.push(another);
      // A sandbox's configuration is locked: its global TimeZone, set before the lock, already applies.
      if (options.sandbox) return namingRefusals(another, path);
      await pinUtc(another);
      return another;
    },
    close() {
      if (closed) return;
      closed = true;
      for (const another of others) another.closeSync();
      connection.closeSync();
      db.closeSync();
      removeTemp();
    },
  };
}

interface Opening {
  path: string;
  dbPath: string;
  readOnly: boolean;
  options: OpenOptions;
  privateTemp: string | undefined;
}

/** Connects, pins UTC, locks a sandbox down, migrates a writer; on failure closes the instance. */
async function prepareConnection(instance: DuckDBInstance, opening: Opening): Promise<DuckDBConnection> {
  const { path, dbPath, readOnly, options, privateTemp } = opening;
  let connection: DuckDBConnection | undefined;
  try {
    connection = await instance.connect();
    await pinUtc(connection);
    if (options.sandbox && privateTemp !== undefined) await lockDown(connection, dbPath, privateTemp, options.sandbox);
    if (!readOnly) await migrate(connection, options.migrations);
    return options.sandbox ? namingRefusals(connection, path) : connection;
  } catch (error) {
    connection?.closeSync();
    instance.closeSync();
    // Damage past the headers shows only when the catalog or a migration reads the broken block.
    if (dbPath !== IN_MEMORY && isDamagedWarehouseError(error)) throw damagedError(dbPath, error);
    throw (options.sandbox ? refusalOf(error, path) : undefined) ?? error;
  }
}

/**
 * DuckDB's default temp folder `<db>.tmp/` sits beside the warehouse, where anyone who can write
 * that folder could plant a link, and the sandbox lets SQL read it: a reader spills to a folder of
 * its own instead (0700, removed on close).
 */
function createPrivateTemp(): string {
  return mkdtempSync(join(tmpdir(), 'gexwh-reader-'));
}

/** The files DuckDB keeps beside a warehouse, which the sandbox lets SQL read. */
const WAL_SUFFIXES = ['.wal', '.wal.recovery', '.wal.checkpoint'] as const;

/**
 * DuckDB lets sandboxed SQL read the warehouse's WAL files, and resolves a symbolic link there to
 * its target when it opens: a link `<db>.wal.recovery -> ~/.ssh/id_rsa` would make that file
 * readable. Such a file is a plain file of one link, or absent.
 */
function refuseLinkedSiblings(dbPath: string): void {
  for (const suffix of WAL_SUFFIXES) {
    const path = `${dbPath}${suffix}`;
    let stats;
    try {
      stats = lstatSync(path);
    } catch {
      continue;
    }
    if (!stats.isFile() || stats.nlink > 1) {
      throw new UnsafeWarehouseError(
        `the warehouse's ${path} is ${stats.isSymbolicLink() ? 'a symbolic link' : stats.isFile() ? 'a hard link to another file' : 'not a plain file'}; ` +
          `DuckDB would let the warehouse's SQL read what it points to, so it is not opened: remove it (a real WAL is a plain file)`,
        { path },
      );
    }
  }
}

async function createInstanceWaiting(dbPath: string, readOnly: boolean, options: OpenOptions, privateTemp: string | undefined): Promise<DuckDBInstance> {
  const deadline = Date.now() + Math.max(0, options.waitSeconds ?? 0) * 1000;
  for (;;) {
    try {
      return await createInstance(dbPath, readOnly, privateTemp);
    } catch (error) {
      if (!(error instanceof LockError) || Date.now() >= deadline) throw error;
      options.onLocked?.(error);
      await sleep(Math.min(options.pollMs ?? 250, Math.max(1, deadline - Date.now())));
    }
  }
}

/** The oldest DuckDB that opens a warehouse this version creates (and reads its export). */
export const STORAGE_COMPATIBILITY = 'v1.4.0';

/**
 * A sandbox's paths all point into its private folder, so `duckdb_settings()` shows no home,
 * secret or extension folder of the user; persistent secrets and extensions stay off.
 */
function sandboxConfig(privateTemp: string): Record<string, string> {
  return {
    temp_directory: privateTemp,
    home_directory: privateTemp,
    secret_directory: privateTemp,
    extension_directory: privateTemp,
    allow_persistent_secrets: 'false',
    allow_community_extensions: 'false',
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  };
}

async function createInstance(dbPath: string, readOnly: boolean, privateTemp: string | undefined): Promise<DuckDBInstance> {
  const config = {
    // A new warehouse file is written so that DuckDB 1.4 (the long-term release users' Python and CLI
    // lag on) still opens it, whatever later DuckDB makes its default.
    storage_compatibility_version: STORAGE_COMPATIBILITY,
    ...(readOnly ? { access_mode: 'READ_ONLY' } : {}),
    ...duckdbLimitsFromEnv(),
    ...(privateTemp !== undefined ? sandboxConfig(privateTemp) : {}),
  };
  try {
    // fromCache: one process never holds the same file twice (POSIX locks would not stop it). A
    // sandbox gets its own instance: a cached one could be handed, locked, to a later writer.
    return privateTemp !== undefined ? await duckdb.DuckDBInstance.create(dbPath, config) : await duckdb.DuckDBInstance.fromCache(dbPath, config);
  } catch (error) {
    const message = errorMessage(error);
    if (readOnly && /database does not exist/i.test(message)) {
      throw new NoWarehouseError(dbPath, undefined, { cause: error });
    }
    if (isDamagedFileMessage(message)) throw damagedError(dbPath, error);
    if (!isLockMessage(message)) throw error;
    const pid = parseLockHolderPid(message);
    const holder = pid === undefined ? 'another process' : `process ${pid}`;
    throw new LockError(`the warehouse ${dbPath} is in use by ${holder}`, { db: dbPath, pid }, { cause: error });
  }
}

/**
 * allowed_directories and allowed_paths can only be set while external access is on, and DuckDB
 * lets SQL write there too: the caller's statement check is what keeps those folders read-only.
 * Locking the configuration last makes every SET, RESET and PRAGMA that would undo this fail.
 */
async function lockDown(connection: DuckDBConnection, dbPath: string, privateTemp: string, sandbox: SandboxOptions): Promise<void> {
  const readDirectories = sandbox.readDirectories ?? [];
  const writeFiles = sandbox.writeFiles ?? [];
  await sandbox.prepare?.(connection);
  if (readDirectories.length > 0) await connection.run(`SET allowed_directories = [${readDirectories.map((d) => quoteString(d)).join(', ')}]`);
  if (writeFiles.length > 0) await connection.run(`SET allowed_paths = [${writeFiles.map((f) => quoteString(f)).join(', ')}]`);
  await connection.run('SET enable_external_access = false');
  await connection.run('SET lock_configuration = true');
  await checkAllowed(connection, dbPath, privateTemp, sandbox);
}

/**
 * What DuckDB itself added when external access went off (the warehouse, its WAL files, the temp
 * folder) is checked against what it should be: a link resolved to anywhere else is refused.
 */
async function checkAllowed(connection: DuckDBConnection, dbPath: string, privateTemp: string, sandbox: SandboxOptions): Promise<void> {
  const { paths, directories } = await readOne(
    connection,
    "SELECT current_setting('allowed_paths')::VARCHAR[] AS paths, current_setting('allowed_directories')::VARCHAR[] AS directories",
    [],
    { paths: textList, directories: textList },
  );
  const bases = new Set([dbPath, realpathOr(dbPath)]);
  const expectedPaths = new Set([...[...bases].flatMap((base) => [base, ...WAL_SUFFIXES.map((s) => `${base}${s}`)]), ...(sandbox.writeFiles ?? [])]);
  const readDirectories = sandbox.readDirectories ?? [];
  // DuckDB resolves links in a folder's existing part (an export's staging folder is made later).
  const resolvedReads = readDirectories.map((d) => withSeparator(realpathOfExisting(d)));
  const expectedDirectories = new Set([withSeparator(privateTemp), withSeparator(realpathOr(privateTemp)), ...readDirectories, ...resolvedReads]);
  const stray = [...paths.filter((p) => !expectedPaths.has(p)), ...directories.filter((d) => !expectedDirectories.has(d))];
  if (stray.length > 0) {
    throw new UnsafeWarehouseError(
      `the sandbox would let SQL read ${stray.join(', ')}, outside the warehouse; it is not opened (is a file beside the warehouse a link?)`,
      { db: dbPath },
    );
  }
}

/**
 * TIMESTAMPTZ text must round-trip as UTC whatever the machine's zone. TimeZone cannot go in the
 * instance options (ICU is not loaded yet at that point), so it is set once the connection exists.
 */
async function pinUtc(connection: DuckDBConnection): Promise<void> {
  await connection.run("SET GLOBAL TimeZone = 'UTC'");
  await connection.run("SET TimeZone = 'UTC'");
}
