// A warehouse's column names are data: a layout may add a column the daily file named, and a person
// may add one by hand. Whatever they are, the SQL an export writes must create its views and tables
// and nothing else. views.sql is run in DuckDB with full file access (as `duckdb -init views.sql`
// would) over warehouses whose columns carry statements of their own; the other engines' DDL is
// parsed by dt-sql-parser, each file exactly the statements it should hold.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { PARSERS } from '../helpers/sql-parsers.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import { withInMemoryDuckDb } from '../helpers/in-memory-duckdb.js';
import { exportViewsSql, type ExportedTable } from '../../src/export/views.js';
import { engineSql, type Engine } from '../../src/export/ddl.js';
import { quoteIdentifier, quoteString, sqlTypeName } from '../../src/core/sql-quote.js';

const work = mkdtempSync(join(tmpdir(), 'gexwh-hostile-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The file every injected statement tries to write: its existence is the proof of an escape. */
const CANARY = join(work, 'pwned');

/** Pieces a hostile name is made of: each one ends a quote, a statement or a comment in some dialect. */
const PIECES = [
  "'",
  '"',
  '`',
  '\\',
  ';',
  '\n',
  '--',
  '/*',
  '*/',
  ')',
  '(',
  '$$',
  '}',
  ' AS b, 2',
  `; COPY (SELECT 'pwned') TO '${CANARY}'; SELECT 1 AS b, 2`,
  `"; COPY (SELECT 'pwned') TO '${CANARY}'; --`,
  `'); COPY (SELECT 'pwned') TO '${CANARY}'; --`,
  `\\'; COPY (SELECT 'pwned') TO '${CANARY}'; --`,
  '`; DROP TABLE x; --',
  'a',
  'é',
];

/** A hostile column name: pieces and random text, never empty, never a partition column's name. */
const hostileName = fc
  .array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ minLength: 1, maxLength: 4 })), { minLength: 1, maxLength: 6 })
  .map((parts) => parts.join('').replaceAll('\0', ''))
  .filter((name) => name.trim() !== '' && !['exchange', 'symbol', 'session_date', 'timestamp_utc', 'expiration', 'run_id'].includes(name.toLowerCase()));

/** Column names as DuckDB keeps them: unique whatever their case. */
const hostileNames = fc.uniqueArray(hostileName, { minLength: 1, maxLength: 4, selector: (name) => name.toLowerCase() });

const TYPES = ['VARCHAR', 'DOUBLE', 'BIGINT'] as const;

function tablesOf(names: readonly string[], hasFiles: boolean): ExportedTable[] {
  const data = names.map((name, i) => ({ name, type: TYPES[i % TYPES.length]! }));
  return [
    {
      name: 'levels',
      columns: [
        { name: 'exchange', type: 'VARCHAR' },
        { name: 'symbol', type: 'VARCHAR' },
        { name: 'session_date', type: 'DATE' },
        // what the session_closes view of views.sql reads
        { name: 'timestamp_utc', type: 'TIMESTAMP WITH TIME ZONE' },
        { name: 'expiration', type: 'VARCHAR' },
        ...data,
      ],
      hasFiles,
      partitioned: true,
    },
    { name: 'runs', columns: [{ name: 'run_id', type: 'BIGINT' }, ...data], hasFiles, partitioned: false },
  ];
}

/** One file per table under `root`, with the hostile columns (written by the test's own quoting). */
async function writeFiles(root: string, tables: readonly ExportedTable[], format: 'parquet' | 'csv'): Promise<void> {
  await withInMemoryDuckDb(async (conn) => {
    for (const table of tables) {
      const folder = table.partitioned ? join(root, table.name, 'exchange=bybit', 'symbol=BTC', 'session_date=2024-01-02') : join(root, table.name);
      mkdirSync(folder, { recursive: true });
      const values = table.columns.map(
        (c) =>
          `${c.type === 'VARCHAR' ? "'x'" : c.type === 'DATE' ? "DATE '2024-01-02'" : c.type.startsWith('TIMESTAMP') ? "TIMESTAMPTZ '2024-01-02 10:00:00Z'" : '1'}::${sqlTypeName(c.type)} AS ${quoteIdentifier(c.name)}`,
      );
      const options = format === 'parquet' ? 'FORMAT parquet' : 'FORMAT csv, HEADER true';
      await conn.run(`COPY (SELECT ${values.join(', ')}) TO ${quoteString(join(folder, `data.${format}`))} (${options})`);
    }
  });
}

/**
 * Runs a SQL file as `duckdb -init FILE` does, and more permissively: lines are gathered until one
 * ends a statement, each such chunk split into its statements by DuckDB's parser, and every statement
 * run, an error never stopping the next one. Whatever escapes a quote runs here.
 */
async function runLikeTheShell(conn: DuckDBConnection, sql: string): Promise<void> {
  let chunk = '';
  for (const line of sql.split('\n')) {
    chunk += `${line}\n`;
    if (!line.trimEnd().endsWith(';')) continue;
    const extracted = await conn.extractStatements(chunk).catch(() => undefined);
    chunk = '';
    for (let i = 0; extracted !== undefined && i < extracted.count; i++) {
      await extracted
        .prepare(i)
        .then((statement) => statement.run())
        .catch(() => undefined);
    }
  }
}

const names = (conn: DuckDBConnection, sql: string) => conn.runAndReadAll(sql).then((r) => r.getRowObjectsJS().map((row) => String(row.name)));

describe('views.sql over hostile column names', () => {
  it('creates the views with exactly the warehouse columns and nothing else: no file written, no other object', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(hostileNames, fc.boolean(), fc.constantFrom('parquet' as const, 'csv' as const), async (columns, hasFiles, format) => {
        const root = join(work, `export-${run++}`);
        mkdirSync(root);
        const tables = tablesOf(columns, hasFiles);
        if (hasFiles) await writeFiles(root, tables, format);
        const before = readdirSync(root).sort();
        const sql = exportViewsSql(root, tables, format, '');
        await withInMemoryDuckDb(async (conn) => {
          // Run as a reader would run it: every statement of the file, file access on.
          await runLikeTheShell(conn, sql);
          expect(existsSync(CANARY)).toBe(false);
          const views = await names(conn, 'SELECT view_name AS name FROM duckdb_views() WHERE NOT internal ORDER BY 1');
          // A name holding ';' at a line's end cuts its statement where a line-by-line shell cuts it
          // (known limit: those views are not created); nothing else may be created either way.
          const cut = columns.some((name) => /;[ \t]*\n/.test(name));
          if (cut) expect(views.every((view) => ['levels', 'runs', 'session_closes'].includes(view))).toBe(true);
          else expect(views).toEqual(['levels', 'runs', 'session_closes']);
          expect(await names(conn, 'SELECT table_name AS name FROM duckdb_tables()')).toEqual([]);
          expect(await names(conn, 'SELECT function_name AS name FROM duckdb_functions() WHERE NOT internal')).toEqual([]);
          expect(await names(conn, 'SELECT sequence_name AS name FROM duckdb_sequences()')).toEqual([]);
          expect(await names(conn, 'SELECT type_name AS name FROM duckdb_types() WHERE NOT internal')).toEqual([]);
          expect(await names(conn, "SELECT DISTINCT schema_name AS name FROM duckdb_schemas() WHERE NOT internal AND schema_name <> 'main'")).toEqual([]);
          for (const table of cut ? [] : tables) {
            const described = await names(conn, `SELECT column_name AS name FROM (DESCRIBE ${quoteIdentifier(table.name)})`);
            expect(described).toEqual(table.columns.map((c) => c.name));
          }
        });
        expect(readdirSync(root).sort()).toEqual(before);
        expect(existsSync(CANARY)).toBe(false);
      }),
      { numRuns: 25 },
    );
  });

  it('the reproduction: a column named to end the statement and write a file stays one column', async () => {
    const root = join(work, 'repro');
    mkdirSync(root);
    const column = `a; COPY (SELECT 'pwned') TO '${CANARY}'; SELECT 1 AS b, 2`;
    const tables = tablesOf([column], true);
    await writeFiles(root, tables, 'parquet');
    await withInMemoryDuckDb(async (conn) => {
      await runLikeTheShell(conn, exportViewsSql(root, tables, 'parquet', ''));
      expect(existsSync(CANARY)).toBe(false);
      expect(await names(conn, 'SELECT column_name AS name FROM (DESCRIBE levels)')).toContain(column);
    });
  });

  it('a column type that is not a plain type name is refused, never pasted', () => {
    const tables = tablesOf(['a'], false);
    tables[0]!.columns[5]!.type = `INTEGER); COPY (SELECT 1) TO '${CANARY}'; --`;
    expect(() => exportViewsSql(work, tables, 'parquet', '')).toThrow(/not a plain type name/);
  });
});

describe("trino.sql, athena.sql, spark.sql over hostile column names (each engine's parser)", () => {
  for (const engine of ['trino', 'athena', 'spark'] as const satisfies readonly Engine[]) {
    it(`${engine}: parses, and holds exactly the schema, the tables and their partition statements`, () => {
      fc.assert(
        fc.property(hostileNames, (columns) => {
          const tables = tablesOf(columns, true);
          // A root with a quote and a backslash at its end: a Hive string literal reads backslash escapes.
          const sql = engineSql(engine, "s3://b/it's\\", tables);
          const parser = PARSERS[engine];
          expect(parser.validate(sql).map((e) => e.message)).toEqual([]);
          const statements = (parser.splitSQLByStatement(sql) ?? []).map((s) => s.text.trim());
          // the schema, a CREATE per table, and the partition statement of the partitioned one
          expect(statements).toHaveLength(1 + tables.length + 1);
          expect(statements[0]).toMatch(/^CREATE (SCHEMA|DATABASE) IF NOT EXISTS /);
          expect(statements.filter((s) => /^CREATE (EXTERNAL )?TABLE IF NOT EXISTS /.test(s))).toHaveLength(tables.length);
          expect(statements.filter((s) => /^(CALL system\.sync_partition_metadata\(|MSCK REPAIR TABLE )/.test(s))).toHaveLength(1);
        }),
        { numRuns: 25 },
      );
    });
  }
});
