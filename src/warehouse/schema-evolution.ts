// Schema on read, as dlt evolves a schema: a file's unknown columns become nullable columns of its
// table, typed from their values (DOUBLE when every value reads as a number, else VARCHAR; a type
// only widens), and each layout loaded is recorded in sync.layouts. Under the `freeze` contract a
// file that would add a column or bring a schema_version not loaded before is held instead.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { HeaderMapping, UnknownColumn } from './csv-header.js';
import { DESIGN_SCHEMA_VERSION } from './layouts.js';
import { quoteIdentifier, type ExtraTarget } from './load-sql.js';
import { num, readOne, readRows, text } from './read-rows.js';
import { FILE_KINDS, type FileKind } from '../core/file-kinds.js';

/** What the loader does with a file whose layout is new: `evolve` loads it, `freeze` holds it. */
export const SCHEMA_CONTRACTS = ['evolve', 'freeze'] as const;
export type SchemaContract = (typeof SCHEMA_CONTRACTS)[number];

/** What the warehouse holds now: each table's columns (name → type) and the schema_versions loaded. */
export interface LayoutState {
  columns: Record<FileKind, Map<string, string>>;
  versions: Set<number>;
}

export async function readLayoutState(conn: DuckDBConnection): Promise<LayoutState> {
  const rows = await readRows(
    conn,
    `SELECT table_name AS kind, column_name AS name, data_type AS type FROM duckdb_columns()
      WHERE database_name = current_database() AND schema_name = 'main' AND table_name IN ('levels', 'strikes_total', 'strikes_by_expiry')`,
    [],
    { kind: text, name: text, type: text },
  );
  const columns = Object.fromEntries(FILE_KINDS.map((kind) => [kind, new Map<string, string>()])) as Record<FileKind, Map<string, string>>;
  for (const row of rows) columns[row.kind as FileKind].set(row.name.toLowerCase(), row.type);
  const versions = await readRows(conn, 'SELECT DISTINCT schema_version AS v FROM sync.layouts WHERE schema_version IS NOT NULL', [], { v: num });
  return { columns, versions: new Set([DESIGN_SCHEMA_VERSION, ...versions.map((row) => row.v)]) };
}

/** Pure: why `freeze` holds a file (a column its table lacks, a schema_version not loaded before), or undefined. */
export function heldReason(kind: FileKind, mapping: Pick<HeaderMapping, 'unknown'>, version: number | null, state: LayoutState): string | undefined {
  const reasons: string[] = [];
  const added = mapping.unknown.filter((u) => !state.columns[kind].has(u.column));
  if (added.length > 0) reasons.push(`new column(s) ${added.map((u) => `"${u.header}"`).join(', ')}`);
  if (version !== null && !state.versions.has(version)) reasons.push(`schema_version ${version}, not loaded before`);
  if (reasons.length === 0) return undefined;
  return `${reasons.join(' and ')}: held by schemaContract freeze; gexwh load --accept-layout loads it`;
}

/**
 * Whether every value of each unknown column reads as a number (an empty field is NULL and reads as
 * anything), by alias: one read of the batch's files, made only when the header has unknown columns.
 */
export async function numericColumns(
  conn: DuckDBConnection,
  readCsv: string,
  params: string[],
  unknown: readonly UnknownColumn[],
): Promise<Map<string, boolean>> {
  if (unknown.length === 0) return new Map();
  const tests = unknown.map((u) => `bool_and(s.${u.alias} IS NULL OR TRY_CAST(s.${u.alias} AS DOUBLE) IS NOT NULL) AS ${u.alias}`);
  const reader = await conn.runAndReadAll(`SELECT ${tests.join(', ')} FROM ${readCsv} AS s`, params);
  const row = (reader.getRowObjectsJson()[0] ?? {}) as Record<string, unknown>;
  return new Map(unknown.map((u) => [u.alias, row[u.alias] !== false]));
}

export interface ColumnChange {
  column: string;
  type: 'DOUBLE' | 'VARCHAR';
  change: 'add' | 'widen';
}

/** Pure: the columns a batch adds or widens, and the type each unknown column is inserted as. */
export function evolutionOf(
  existing: ReadonlyMap<string, string>,
  unknown: readonly UnknownColumn[],
  numeric: ReadonlyMap<string, boolean>,
): { changes: ColumnChange[]; extras: ExtraTarget[] } {
  const changes: ColumnChange[] = [];
  const extras: ExtraTarget[] = [];
  for (const u of unknown) {
    const values: 'DOUBLE' | 'VARCHAR' = numeric.get(u.alias) === false ? 'VARCHAR' : 'DOUBLE';
    const current = existing.get(u.column);
    if (current === undefined) changes.push({ column: u.column, type: values, change: 'add' });
    else if (current === 'DOUBLE' && values === 'VARCHAR') changes.push({ column: u.column, type: 'VARCHAR', change: 'widen' });
    // A type only widens: a VARCHAR column takes numbers as their text.
    const type = current === undefined || current === 'DOUBLE' ? values : 'VARCHAR';
    extras.push({ alias: u.alias, column: u.column, type });
  }
  return { changes, extras };
}

/** Applies the changes (first in the load's transaction: DuckDB refuses an ALTER after its writes there). */
export async function applyChanges(conn: DuckDBConnection, kind: FileKind, changes: readonly ColumnChange[]): Promise<void> {
  for (const { column, type, change } of changes) {
    const name = quoteIdentifier(column);
    await conn.run(change === 'add' ? `ALTER TABLE ${kind} ADD COLUMN ${name} ${type}` : `ALTER TABLE ${kind} ALTER COLUMN ${name} TYPE ${type}`);
  }
}

export interface LayoutSeen {
  kind: FileKind;
  version: number | null;
  mapping: Pick<HeaderMapping, 'names'>;
  /** exchange/symbol/session_date of the first file of the batch. */
  firstFile: string;
  changes: readonly ColumnChange[];
}

/** Records the layout when it is new; returns whether its schema_version was loaded before. */
export async function recordLayout(conn: DuckDBConnection, seen: LayoutSeen, at: Date): Promise<{ newVersion: boolean }> {
  const header = seen.mapping.names.join(',');
  const known = await readOne(
    conn,
    `SELECT count(*) FILTER (WHERE file = $1 AND schema_version IS NOT DISTINCT FROM $2 AND header = $3)::INTEGER AS layout,
            count(*) FILTER (WHERE schema_version = $2)::INTEGER AS version
       FROM sync.layouts`,
    [seen.kind, seen.version, header],
    { layout: num, version: num },
  );
  if (known.layout === 0) {
    await conn.run(
      `INSERT INTO sync.layouts (file, schema_version, header, first_file, first_seen_at, columns_added)
       VALUES ($1, $2, $3, $4, $5::TIMESTAMPTZ, CAST(json($6) AS VARCHAR[]))`,
      [seen.kind, seen.version, header, seen.firstFile, at.toISOString(), JSON.stringify(seen.changes.map((c) => `${c.column} ${c.type}`))],
    );
  }
  return { newVersion: seen.version !== null && seen.version !== DESIGN_SCHEMA_VERSION && known.version === 0 };
}

/** What a loaded batch says once: its new columns, its widened ones, a schema_version first seen. */
export function layoutNotes(seen: LayoutSeen, newVersion: boolean): string[] {
  const where = `${seen.firstFile} ${seen.kind}`;
  const notes = seen.changes.map((c) =>
    c.change === 'add'
      ? `${seen.kind} files carry a new column "${c.column}": kept as ${c.type} column ${seen.kind}."${c.column}" (first seen in ${where})`
      : `column ${seen.kind}."${c.column}" widened to VARCHAR: a value in ${where} is not a number`,
  );
  if (newVersion) notes.unshift(`schema_version ${seen.version} first seen in ${where}: loaded by column name`);
  return notes;
}

/** A row of sync.layouts as status and doctor show it. */
export interface LayoutRecord {
  file: string;
  schema_version: number | null;
  header: string;
  first_file: string;
  first_seen_at: string;
  columns_added: string[];
}

/** Every layout loaded, oldest first; none in a warehouse older than the table. */
export async function listLayouts(conn: DuckDBConnection): Promise<LayoutRecord[]> {
  const exists = await readOne(
    conn,
    `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'sync' AND table_name = 'layouts'`,
    [],
    { n: num },
  );
  if (exists.n === 0) return [];
  const reader = await conn.runAndReadAll(
    `SELECT file, schema_version, header, first_file, strftime(first_seen_at, '%Y-%m-%dT%H:%M:%SZ') AS first_seen_at, columns_added
       FROM sync.layouts ORDER BY first_seen_at, file, header`,
  );
  return reader.getRowObjectsJson() as unknown as LayoutRecord[];
}

/** Pure: one line per layout, for status and doctor. */
export function describeLayout(layout: LayoutRecord): string {
  const names = layout.header.split(',').length;
  const version = layout.schema_version === null ? 'schema_version unknown' : `schema_version ${layout.schema_version}`;
  const added = layout.columns_added.length > 0 ? `; columns added: ${layout.columns_added.join(', ')}` : '';
  return `${layout.file} ${version}, ${names} column(s), first seen in ${layout.first_file}${added}`;
}
