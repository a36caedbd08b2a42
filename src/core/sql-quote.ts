// The one place a name or a value is put into SQL text. Every identifier and literal gexwh writes
// into SQL (the export's views.sql and the engines' DDL, the sandbox's settings, a query's COPY target)
// goes through these, so a warehouse column named `a; COPY ... TO '/tmp/x'` stays one quoted name
// in every dialect and never becomes a statement of its own.

/** The dialects gexwh writes SQL for. Athena's DDL is Hive's. */
export type SqlDialect = 'duckdb' | 'trino' | 'hive' | 'spark' | 'clickhouse';

/**
 * A quoted identifier. DuckDB and Trino: double quotes, a quote doubled. Hive and Spark: backquotes,
 * a backquote doubled. ClickHouse: backquotes, backslash and backquote escaped with a backslash.
 */
export function quoteIdentifier(name: string, dialect: SqlDialect = 'duckdb'): string {
  refuseNul(name, 'an identifier');
  switch (dialect) {
    case 'duckdb':
    case 'trino':
      return `"${name.replaceAll('"', '""')}"`;
    case 'hive':
    case 'spark':
      return `\`${name.replaceAll('`', '``')}\``;
    case 'clickhouse':
      return `\`${name.replaceAll('\\', '\\\\').replaceAll('`', '\\`')}\``;
  }
}

/**
 * A quoted string literal. DuckDB and Trino read no backslash escapes (a quote is doubled); Hive,
 * Spark and ClickHouse do, so a backslash is escaped there too (a path ending in `\` would otherwise
 * swallow the closing quote).
 */
export function quoteString(text: string, dialect: SqlDialect = 'duckdb'): string {
  refuseNul(text, 'a string literal');
  switch (dialect) {
    case 'duckdb':
    case 'trino':
      return `'${text.replaceAll("'", "''")}'`;
    case 'hive':
    case 'spark':
    case 'clickhouse':
      return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
  }
}

/**
 * A DuckDB type name as the catalog prints it (VARCHAR, TIMESTAMP WITH TIME ZONE, DECIMAL(18,3)),
 * checked to be only that: a type cannot be quoted, so anything else (a struct's field names, a
 * user type's name) is refused rather than pasted.
 */
export function sqlTypeName(type: string): string {
  if (!/^[A-Z][A-Z0-9_]*( [A-Z][A-Z0-9_]*)*(\(\d+(, ?\d+)?\))?$/.test(type)) {
    throw new Error(`gexwh: the column type ${JSON.stringify(type)} is not a plain type name; it is not written into SQL`);
  }
  return type;
}

/** NUL ends a C string in some engines' parsers: text after it could be read as SQL. */
function refuseNul(text: string, what: string): void {
  if (text.includes('\0')) throw new Error(`gexwh: ${what} holds a NUL character; it is not written into SQL`);
}
