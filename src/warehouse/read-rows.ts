// Rows read from DuckDB, typed once per query: a shape names each column's type, and a value of
// another type (a NULL where the query promised none, a column the SQL does not return) is an error
// naming the column, where `String(row.x)` would have made the text 'null' or 'undefined'.
// Plain functions, not zod: a column is one typeof test, so the planner and the loader, which read
// whole manifests, pay what the hand casts paid (a zod transform from bigint costs ~50x more per row).
import type { DuckDBConnection } from '@duckdb/node-api';

/** Reads one column's value as DuckDB's JS conversion gives it; throws on anything else. */
export type Column<T> = (value: unknown) => T;
export type Shape = Record<string, Column<unknown>>;
export type RowOf<S extends Shape> = { [K in keyof S]: ReturnType<S[K]> };
export type Params = Parameters<DuckDBConnection['runAndReadAll']>[1];

class ColumnTypeError extends Error {}

function wrong(value: unknown, wanted: string): ColumnTypeError {
  const got = value === null ? 'NULL' : value === undefined ? 'no such column' : typeof value;
  return new ColumnTypeError(`${got}, not ${wanted}`);
}

export const text: Column<string> = (value) => {
  if (typeof value === 'string') return value;
  throw wrong(value, 'text');
};

/** INTEGER, DOUBLE (numbers) and BIGINT (bigint) alike, as a number. */
export const num: Column<number> = (value) => {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  throw wrong(value, 'a number');
};

export const bool: Column<boolean> = (value) => {
  if (typeof value === 'boolean') return value;
  throw wrong(value, 'a boolean');
};

export const textList: Column<string[]> = (value) => {
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value;
  throw wrong(value, 'a list of text');
};

export function nullable<T>(column: Column<T>): Column<T | null> {
  return (value) => (value === null ? null : column(value));
}

/** Text that must be one of `values` (a file kind, a status). */
/** A number or text column that may be NULL: the readers' most common shapes. */
export const maybeNum = nullable(num);
export const maybeText = nullable(text);

export function oneOf<T extends string>(values: readonly T[]): Column<T> {
  return (value) => {
    if (typeof value === 'string' && (values as readonly string[]).includes(value)) return value as T;
    throw wrong(value, `one of ${values.join(', ')}`);
  };
}

/** Types rows DuckDB returned (getRowObjectsJS()) by `shape`; the error names the column and the query. */
export function rowsOf<S extends Shape>(objects: readonly Record<string, unknown>[], shape: S, sql = ''): RowOf<S>[] {
  const columns = Object.entries(shape);
  let name = '';
  try {
    return objects.map((object) => {
      const row: Record<string, unknown> = {};
      for (const [column, read] of columns) {
        name = column;
        row[column] = read(object[column]);
      }
      return row as RowOf<S>;
    });
  } catch (error) {
    if (!(error instanceof ColumnTypeError)) throw error;
    const query = sql.trim().replace(/\s+/g, ' ').slice(0, 120);
    throw new Error(`gexwh: column ${name} of a warehouse read is ${error.message}${query ? ` (${query})` : ''}`, { cause: error });
  }
}

/** Runs `sql` and returns its rows typed by `shape`. */
export async function readRows<S extends Shape>(conn: DuckDBConnection, sql: string, params: Params, shape: S): Promise<RowOf<S>[]> {
  return rowsOf((await conn.runAndReadAll(sql, params)).getRowObjectsJS(), shape, sql);
}

/** The first row of `sql`, typed by `shape`; undefined when it returns none. */
export async function readRow<S extends Shape>(conn: DuckDBConnection, sql: string, params: Params, shape: S): Promise<RowOf<S> | undefined> {
  return (await readRows(conn, sql, params, shape))[0];
}

/** The one row of `sql` (an aggregate, a RETURNING), typed by `shape`; none is an error. */
export async function readOne<S extends Shape>(conn: DuckDBConnection, sql: string, params: Params, shape: S): Promise<RowOf<S>> {
  const row = await readRow(conn, sql, params, shape);
  if (row === undefined) throw new Error(`gexwh: a warehouse read returned no row (${sql.trim().replace(/\s+/g, ' ').slice(0, 120)})`);
  return row;
}
