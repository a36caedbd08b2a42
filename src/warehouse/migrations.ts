// Versioned schema migrations: the numbered files of sql/ (001_schema.sql, ...) applied in order, each
// with its row in sync.migrations. Then the views and macros: sql/views.sql, their one definition,
// applied again whenever its text changes. Each file goes in one transaction with its row, so a crash
// never leaves a half-applied version; a new warehouse takes them all in one.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { findSqlDir } from './sql-dir.js';
import { inTransaction } from './transaction.js';
import { maybeText, num, readOne, readRow, readRows, text } from './read-rows.js';
import { errorMessage } from '../core/errors.js';
import { sha256OfText } from '../core/hash.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const MIGRATION_FILE = /^(\d{3,})_([A-Za-z0-9_-]+)\.sql$/;

/** Parses a folder listing into ordered migrations; pure apart from reading the files. */
export function listMigrations(dir: string = findSqlDir()): Migration[] {
  const migrations: Migration[] = [];
  for (const entry of readdirSync(dir)) {
    const match = MIGRATION_FILE.exec(entry);
    if (!match) continue;
    migrations.push({ version: Number(match[1]), name: match[2] ?? entry, sql: readFileSync(join(dir, entry), 'utf8') });
  }
  migrations.sort((a, b) => a.version - b.version);
  for (let i = 1; i < migrations.length; i += 1) {
    if (migrations[i]?.version === migrations[i - 1]?.version) {
      throw new Error(`gexwh: two migrations share version ${migrations[i]?.version} in ${dir}`);
    }
  }
  return migrations;
}

async function ensureMigrationsTable(conn: DuckDBConnection): Promise<void> {
  await conn.run('CREATE SCHEMA IF NOT EXISTS sync');
  await conn.run(
    `CREATE TABLE IF NOT EXISTS sync.migrations (
       version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMPTZ NOT NULL)`,
  );
}

/** Versions already applied, ascending. Empty for a fresh warehouse. */
export async function appliedVersions(conn: DuckDBConnection): Promise<number[]> {
  // information_schema.tables lists views too: a warehouse from elsewhere whose sync.migrations is a
  // view must be read (in the caller's sandbox), not taken for one without migrations.
  const exists = await readOne(
    conn,
    `SELECT count(*)::INTEGER AS n FROM information_schema.tables
      WHERE table_schema = 'sync' AND table_name = 'migrations'`,
    [],
    { n: num },
  );
  if (exists.n === 0) return [];
  return recordedVersions(conn);
}

async function recordedVersions(conn: DuckDBConnection): Promise<number[]> {
  const rows = await readRows(conn, 'SELECT version FROM sync.migrations ORDER BY version', [], { version: num });
  return rows.map((row) => row.version);
}

export interface MigrateOptions {
  /** Folder of NNN_name.sql files; defaults to the package's sql/. */
  dir?: string;
  /** Stop after this version (tests use it to build an older warehouse, with that version's views). */
  upTo?: number;
}

/** The file of current view and macro definitions, beside the numbered migrations. */
export const VIEWS_FILE = 'views.sql';

/**
 * The tables every numbered migration leaves, in one file generated from them
 * (scripts/new-warehouse-sql.ts): what a new warehouse runs in their place.
 */
export const NEW_WAREHOUSE_FILE = 'new-warehouse.sql';

/** The version that created sync.definitions; the views file is applied only from there on. */
const DEFINITIONS_VERSION = 50;

/** The text of sql/views.sql (the export writes it too, after its own views of the tables). */
export function viewDefinitions(dir: string = findSqlDir()): string {
  return readFileSync(join(dir, VIEWS_FILE), 'utf8');
}

/** Applies every pending migration; returns the versions applied now. */
export async function migrate(conn: DuckDBConnection, options: MigrateOptions = {}): Promise<number[]> {
  if (options.dir === undefined && options.upTo === undefined && (await isCurrent(conn))) return [];
  await ensureMigrationsTable(conn);
  const done = new Set(await recordedVersions(conn));
  const pending = listMigrations(options.dir).filter(
    (migration) => !done.has(migration.version) && (options.upTo === undefined || migration.version <= options.upTo),
  );
  const applied = pending.map((migration) => migration.version);
  const applyViews = (): Promise<boolean> => applyViewsIfDue(conn, options, done, applied);
  let viewsChanged: boolean;
  if (done.size === 0) {
    // A new warehouse in one transaction: one commit in place of one per file, ~2.5x faster
    // (~100 ms against ~250 ms), and every command of a new user and every test starts with one.
    const whole = options.upTo === undefined ? newWarehouseFile(options.dir, pending) : undefined;
    viewsChanged = await inTransaction(conn, async () => {
      if (whole === undefined) for (const migration of pending) await applyOne(conn, migration);
      else await applyWhole(conn, whole, pending);
      return await applyViews();
    });
  } else {
    // An older one file by file: DuckDB refuses at commit an UPDATE and an ALTER of one table in the
    // same transaction ("another transaction has altered this table"), which upgrades with rows do.
    for (const migration of pending) await inTransaction(conn, () => applyOne(conn, migration));
    viewsChanged = await inTransaction(conn, applyViews);
  }
  // Schema changes go into the file at once, not only the WAL: DuckDB 1.5 fails to replay some of
  // them (ALTER TABLE ... ADD COLUMN with a function default) from the WAL of a killed process, and a
  // sync keeps the warehouse open across phases, so a kill can find them there.
  if (applied.length > 0 || viewsChanged) await conn.run('CHECKPOINT');
  return applied;
}

/** The package's own sql/, read once a process: its files do not change while gexwh runs. */
let shipped: { versions: number[]; viewsSha256: string | undefined } | undefined;

function shippedSchema(): { versions: number[]; viewsSha256: string | undefined } {
  if (shipped === undefined) {
    const dir = findSqlDir();
    const views = existsSync(join(dir, VIEWS_FILE)) ? sha256OfText(viewDefinitions(dir)) : undefined;
    shipped = { versions: listMigrations(dir).map((migration) => migration.version), viewsSha256: views };
  }
  return shipped;
}

/**
 * True when the warehouse holds every shipped migration and the shipped views, asked in one read:
 * every command opens the warehouse, and the full check (two DDL statements, the catalog, every file
 * of sql/ read and hashed) cost ~20 ms of each open. False sends the caller down the full path,
 * which alone decides what to apply, so a read that fails here (a fresh or older warehouse lacks
 * these tables) is only a "not sure".
 */
async function isCurrent(conn: DuckDBConnection): Promise<boolean> {
  const { versions, viewsSha256 } = shippedSchema();
  if (viewsSha256 === undefined) return false;
  let recorded: { versions: string | null; views: string | null };
  try {
    recorded = await readOne(
      conn,
      `SELECT (SELECT string_agg(version::VARCHAR, ',' ORDER BY version) FROM sync.migrations) AS versions,
              (SELECT sha256 FROM sync.definitions WHERE name = 'views') AS views`,
      [],
      { versions: maybeText, views: maybeText },
    );
  } catch {
    return false;
  }
  const applied = new Set((recorded.versions ?? '').split(',').map(Number));
  return recorded.views === viewsSha256 && versions.every((version) => applied.has(version));
}

/** The views file, once every migration is applied and the definitions table exists; true when it ran. */
async function applyViewsIfDue(conn: DuckDBConnection, options: MigrateOptions, done: Set<number>, applied: number[]): Promise<boolean> {
  const dir = options.dir ?? findSqlDir();
  const reached = options.upTo === undefined || options.upTo >= latestVersion(dir);
  if (!reached || !(done.has(DEFINITIONS_VERSION) || applied.includes(DEFINITIONS_VERSION)) || !existsSync(join(dir, VIEWS_FILE))) return false;
  return await applyViews(conn, viewDefinitions(dir));
}

/** Runs the views file when its sha256 differs from the one last applied, with the record (in the caller's transaction). */
async function applyViews(conn: DuckDBConnection, sql: string): Promise<boolean> {
  const sha256 = sha256OfText(sql);
  const recorded = await readRow(conn, `SELECT sha256 FROM sync.definitions WHERE name = 'views'`, [], { sha256: text });
  if (recorded?.sha256 === sha256) return false;
  try {
    await conn.run(sql);
    await conn.run(`INSERT OR REPLACE INTO sync.definitions (name, sha256, applied_at) VALUES ('views', $1, now())`, [sha256]);
    return true;
  } catch (error) {
    throw new Error(`gexwh: ${VIEWS_FILE} failed: ${errorMessage(error)}`, { cause: error });
  }
}

/** One migration and its row (in the caller's transaction); a failure names the file. */
async function applyOne(conn: DuckDBConnection, migration: Migration): Promise<void> {
  try {
    await conn.run(migration.sql);
    await conn.run('INSERT INTO sync.migrations (version, name, applied_at) VALUES ($1, $2, now())', [migration.version, migration.name]);
  } catch (error) {
    throw new Error(`gexwh: migration ${migration.version}_${migration.name} failed: ${errorMessage(error)}`, { cause: error });
  }
}

/**
 * The generated file of a new warehouse's tables, when it was made from exactly these migrations (its
 * `-- version: N` line names the last); else undefined, and the migrations are replayed one by one.
 */
function newWarehouseFile(dir: string | undefined, pending: readonly Migration[]): string | undefined {
  const path = join(dir ?? findSqlDir(), NEW_WAREHOUSE_FILE);
  if (pending.length === 0 || !existsSync(path)) return undefined;
  const sql = readFileSync(path, 'utf8');
  const version = /^-- version: (\d+)$/m.exec(sql)?.[1];
  return Number(version) === pending[pending.length - 1]?.version ? sql : undefined;
}

/** The generated file, then a row for each migration it stands for (in the caller's transaction). */
async function applyWhole(conn: DuckDBConnection, sql: string, migrations: readonly Migration[]): Promise<void> {
  try {
    await conn.run(sql);
  } catch (error) {
    throw new Error(`gexwh: ${NEW_WAREHOUSE_FILE} failed: ${errorMessage(error)}`, { cause: error });
  }
  // One statement for every row: an INSERT each took ~3 ms, a third of a new warehouse's migration.
  const rows = migrations.map((_, i) => `($${2 * i + 1}, $${2 * i + 2}, now())`).join(', ');
  await conn.run(
    `INSERT INTO sync.migrations (version, name, applied_at) VALUES ${rows}`,
    migrations.flatMap((migration) => [migration.version, migration.name]),
  );
}

/** The latest version shipped in sql/ (what a fully migrated warehouse reports). */
export function latestVersion(dir?: string): number {
  const all = listMigrations(dir);
  return all.length === 0 ? 0 : (all[all.length - 1]?.version ?? 0);
}
