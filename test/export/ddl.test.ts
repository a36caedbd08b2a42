// trino.sql, athena.sql and spark.sql cannot run here. Two checks instead: a real parser per dialect
// (dt-sql-parser's ANTLR grammars: TrinoSQL for trino.sql and the Trino/Athena queries of
// docs/sharing.md, HiveSQL for athena.sql's DDL, SparkSQL for spark.sql) parses every statement; and a
// structural check against the warehouse itself: each table's column list exactly the warehouse's
// columns in order with the engine's type, partition columns where the engine wants them, and the
// location of the files the export wrote.
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PARSERS } from '../helpers/sql-parsers.js';
import { ddlName, ENGINE_SCHEMA, engineSql, engineType, type Engine } from '../../src/export/ddl.js';
import { exportedTables } from '../../src/export/description.js';
import { PARTITION_COLUMNS, type ExportedTable } from '../../src/export/views.js';
import { openWarehouse } from '../../src/warehouse/open.js';
import { makeTempDir } from '../warehouse/fixtures.js';

async function warehouseTables(): Promise<ExportedTable[]> {
  const { dir, cleanup } = makeTempDir();
  try {
    const wh = await openWarehouse(join(dir, 'gex.duckdb'));
    try {
      return (await exportedTables(wh.connection, '/nowhere', 'parquet')).map((t) => ({ ...t, hasFiles: true }));
    } finally {
      wh.close();
    }
  } finally {
    cleanup();
  }
}

/** Statements split on `;` outside quotes, with brackets and quotes checked to balance. */
function statements(sql: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = '';
  for (const line of sql.split('\n')) {
    if (line.startsWith('--')) continue;
    for (const ch of `${line}\n`) {
      if (ch === "'") quoted = !quoted;
      if (!quoted && (ch === '(' || ch === '[')) depth += 1;
      if (!quoted && (ch === ')' || ch === ']')) depth -= 1;
      expect(depth).toBeGreaterThanOrEqual(0);
      if (!quoted && ch === ';') {
        expect(depth).toBe(0);
        out.push(current.trim());
        current = '';
      } else current += ch;
    }
  }
  expect(quoted).toBe(false);
  expect(current.trim()).toBe('');
  return out;
}

const ROOT = 's3://gex-share/team';

describe('trino.sql, athena.sql, spark.sql (structural)', async () => {
  const tables = await warehouseTables();

  it('every column type of every exported table has a type in each engine', () => {
    for (const table of tables)
      for (const column of table.columns)
        for (const engine of ['trino', 'athena', 'spark'] as const) expect(() => engineType(column.type, engine)).not.toThrow();
    expect(tables.map((t) => t.name)).toEqual(['levels', 'strikes_total', 'strikes_by_expiry', 'live_levels', 'term_structure', 'live_strikes', 'runs']);
  });

  for (const engine of ['trino', 'athena', 'spark'] as const satisfies readonly Engine[]) {
    it(`${engine}: one CREATE per table with the warehouse's columns, types and partitions, at the files' location`, () => {
      const all = statements(engineSql(engine, ROOT, tables));
      expect(all[0]).toMatch(new RegExp(`^CREATE (SCHEMA|DATABASE) IF NOT EXISTS ${ddlName(ENGINE_SCHEMA, engine)}$`));
      for (const table of tables) {
        const qualified = `${ddlName(ENGINE_SCHEMA, engine)}.${ddlName(table.name, engine)}`;
        const create = all.find(
          (s) => s.startsWith(`CREATE TABLE IF NOT EXISTS ${qualified} (`) || s.startsWith(`CREATE EXTERNAL TABLE IF NOT EXISTS ${qualified} (`),
        );
        expect(create, table.name).toBeDefined();
        const body = /\(\n([\s\S]*?)\n\)/.exec(create!)![1]!;
        const listed = body.split(',\n').map((line) => line.trim().split(' '));
        for (const [name, type] of listed) {
          expect(name).toMatch(engine === 'trino' ? /^"[a-z_][a-z0-9_]*"$/ : /^`[a-z_][a-z0-9_]*`$/);
          expect(type).toBeDefined();
        }
        const data = table.columns.filter((c) => !table.partitioned || !(PARTITION_COLUMNS as readonly string[]).includes(c.name));
        const partitions = table.partitioned ? PARTITION_COLUMNS.map((n) => table.columns.find((c) => c.name === n)!) : [];
        const expected = engine === 'athena' ? data : [...data, ...partitions];
        expect(listed.map(([n, ...t]) => `${n} ${t.join(' ')}`)).toEqual(expected.map((c) => `${ddlName(c.name, engine)} ${engineType(c.type, engine)}`));
        expect(create).toContain(`'${ROOT}/${table.name}/'`);
        if (table.partitioned) {
          if (engine === 'trino') {
            expect(create).toContain(`partitioned_by = ARRAY['exchange', 'symbol', 'session_date']`);
            expect(all).toContain(`CALL system.sync_partition_metadata('${ENGINE_SCHEMA}', '${table.name}', 'FULL')`);
          } else {
            expect(create).toContain(
              engine === 'athena'
                ? 'PARTITIONED BY (`exchange` string, `symbol` string, `session_date` date)'
                : 'PARTITIONED BY (`exchange`, `symbol`, `session_date`)',
            );
            expect(all).toContain(`MSCK REPAIR TABLE ${qualified}`);
          }
        } else expect(create).not.toMatch(/PARTITIONED|partitioned_by/);
        expect(create).toMatch(engine === 'trino' ? /format = 'PARQUET'/ : engine === 'athena' ? /STORED AS PARQUET/ : /USING PARQUET/);
      }
    });
  }

  it('tables with no file yet are left out (an engine would fail on an empty location)', () => {
    const sql = engineSql(
      'spark',
      ROOT,
      tables.map((t) => ({ ...t, hasFiles: t.name === 'levels' })),
    );
    expect(statements(sql).filter((s) => s.startsWith('CREATE TABLE'))).toHaveLength(1);
  });
});

/** Statements of a SQL text split on the `;` that ends a line, comment lines dropped. */
const split = (text: string): string[] =>
  text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('--'))
    .join('\n')
    .split(/;\s*$/m)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

describe('a real parser for each dialect (dt-sql-parser)', async () => {
  const tables = await warehouseTables();

  for (const engine of ['trino', 'athena', 'spark'] as const satisfies readonly Engine[]) {
    it(`${engine}.sql: every statement parses`, () => {
      const all = split(engineSql(engine, ROOT, tables));
      expect(all.length).toBeGreaterThan(tables.length);
      for (const statement of all) expect({ statement, errors: PARSERS[engine].validate(statement).map((e) => e.message) }).toEqual({ statement, errors: [] });
    });
  }

  it("the parser catches what the structural check cannot: a reserved word bare in Athena's DDL", () => {
    const bare = engineSql('athena', ROOT, tables).replaceAll('`', '');
    expect(split(bare).some((statement) => PARSERS.athena.validate(statement).length > 0)).toBe(true);
  });

  it("docs/sharing.md's Trino/Athena queries (the views and macros written for them) parse as Trino SQL", () => {
    const doc = readFileSync(new URL('../../docs/sharing.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## Trino, Athena, Spark'));
    const block = /```sql\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const queries = split(block);
    expect(queries.length).toBeGreaterThanOrEqual(5);
    for (const statement of queries) expect({ statement, errors: PARSERS.trino.validate(statement).map((e) => e.message) }).toEqual({ statement, errors: [] });
  });
});
