// trino.sql, athena.sql and spark.sql of an export: the exported tables as external tables of those
// engines over the same files, generated from the warehouse's own column list (as views.sql is), so
// they cannot drift from the tables. No engine runs them in the tests: dt-sql-parser's Trino, Hive
// (Athena's DDL) and Spark grammars parse every statement. Those engines have no DuckDB macros: the README and
// docs/sharing.md give the point-in-time queries written for them.
import { PARTITION_COLUMNS, type ExportedTable } from './views.js';
import { quoteIdentifier, quoteString, type SqlDialect } from '../core/sql-quote.js';

export type Engine = 'trino' | 'athena' | 'spark';

/** The schema (database) the statements create the tables in. */
export const ENGINE_SCHEMA = 'gexwh';

/** A DuckDB column type as each engine names it. Timestamps are UTC instants in the files. */
const TYPES: Record<string, Record<Engine, string>> = {
  VARCHAR: { trino: 'varchar', athena: 'string', spark: 'STRING' },
  DOUBLE: { trino: 'double', athena: 'double', spark: 'DOUBLE' },
  INTEGER: { trino: 'integer', athena: 'int', spark: 'INT' },
  BIGINT: { trino: 'bigint', athena: 'bigint', spark: 'BIGINT' },
  BOOLEAN: { trino: 'boolean', athena: 'boolean', spark: 'BOOLEAN' },
  DATE: { trino: 'date', athena: 'date', spark: 'DATE' },
  'TIMESTAMP WITH TIME ZONE': { trino: 'timestamp(6)', athena: 'timestamp', spark: 'TIMESTAMP' },
};

export function engineType(duckdbType: string, engine: Engine): string {
  const type = TYPES[duckdbType]?.[engine];
  if (!type) throw new Error(`gexwh: no ${engine} type for the DuckDB type ${duckdbType}`);
  return type;
}

const isPartitionColumn = (name: string): boolean => (PARTITION_COLUMNS as readonly string[]).includes(name);
/** Each engine's quoting: Athena's DDL is Hive's. */
const DIALECT: Record<Engine, SqlDialect> = { trino: 'trino', athena: 'hive', spark: 'spark' };
const location = (root: string, table: string): string => `${root.replace(/\/+$/, '')}/${table}/`;

/**
 * A name as the engine's DDL needs it: always quoted in the engine's way. The column names are
 * whatever the warehouse holds, and Athena's DDL (Hive) reserves words such as EXCHANGE (a real Hive
 * parser rejected `exchange string`).
 */
export const ddlName = (name: string, engine: Engine): string => quoteIdentifier(name, DIALECT[engine]);
const quoteFor = (engine: Engine) => (text: string) => quoteString(text, DIALECT[engine]);
/** `gexwh.<table>`, both names quoted. */
const tableName = (table: string, engine: Engine): string => `${ddlName(ENGINE_SCHEMA, engine)}.${ddlName(table, engine)}`;

/** The columns a table's DDL lists: the data columns, then (Trino, Spark) the partition columns last. */
function columnList(table: ExportedTable, engine: Engine, withPartitions: boolean): string {
  const data = table.columns.filter((c) => !table.partitioned || !isPartitionColumn(c.name));
  const partitions = table.partitioned && withPartitions ? PARTITION_COLUMNS.map((name) => table.columns.find((c) => c.name === name)!) : [];
  return [...data, ...partitions].map((c) => `  ${ddlName(c.name, engine)} ${engineType(c.type, engine)}`).join(',\n');
}

/** Trino's Hive connector: partition columns last, registered by sync_partition_metadata. */
function trinoTable(root: string, table: ExportedTable): string {
  const quote = quoteFor('trino');
  const properties = [`external_location = ${quote(location(root, table.name))}`, `format = 'PARQUET'`];
  if (table.partitioned) properties.push(`partitioned_by = ARRAY[${PARTITION_COLUMNS.map(quote).join(', ')}]`);
  const create = `CREATE TABLE IF NOT EXISTS ${tableName(table.name, 'trino')} (\n${columnList(table, 'trino', true)}\n)\nWITH (\n  ${properties.join(',\n  ')}\n);`;
  return table.partitioned ? `${create}\nCALL system.sync_partition_metadata(${quote(ENGINE_SCHEMA)}, ${quote(table.name)}, 'FULL');` : create;
}

/** Athena (Hive DDL): partition columns only in PARTITIONED BY, registered by MSCK REPAIR TABLE. */
function athenaTable(root: string, table: ExportedTable): string {
  const partitioned = table.partitioned
    ? `\nPARTITIONED BY (${PARTITION_COLUMNS.map((name) => `${ddlName(name, 'athena')} ${engineType(table.columns.find((c) => c.name === name)!.type, 'athena')}`).join(', ')})`
    : '';
  const create = `CREATE EXTERNAL TABLE IF NOT EXISTS ${tableName(table.name, 'athena')} (\n${columnList(table, 'athena', false)}\n)${partitioned}\nSTORED AS PARQUET\nLOCATION ${quoteFor('athena')(location(root, table.name))};`;
  return table.partitioned ? `${create}\nMSCK REPAIR TABLE ${tableName(table.name, 'athena')};` : create;
}

/** Spark SQL: a parquet data source table, partition columns in the list and in PARTITIONED BY. */
function sparkTable(root: string, table: ExportedTable): string {
  const partitioned = table.partitioned ? `\nPARTITIONED BY (${PARTITION_COLUMNS.map((name) => ddlName(name, 'spark')).join(', ')})` : '';
  const create = `CREATE TABLE IF NOT EXISTS ${tableName(table.name, 'spark')} (\n${columnList(table, 'spark', true)}\n)\nUSING PARQUET${partitioned}\nLOCATION ${quoteFor('spark')(location(root, table.name))};`;
  return table.partitioned ? `${create}\nMSCK REPAIR TABLE ${tableName(table.name, 'spark')};` : create;
}

const HEADERS: Record<Engine, string[]> = {
  trino: [
    'Trino, Hive connector (run in its catalog, e.g. trino --catalog hive -f trino.sql).',
    'Timestamps are UTC instants (set hive.parquet.time-zone = UTC).',
  ],
  athena: ['Amazon Athena (Hive DDL). The files are read by column name.', 'Timestamps are UTC instants.'],
  spark: [
    'Spark SQL (spark-sql -f spark.sql, or spark.sql(...) per statement).',
    'Timestamps are UTC instants (spark.sql.session.timeZone = UTC shows them as such).',
  ],
};

const CREATE_SCHEMA: Record<Engine, string> = {
  trino: `CREATE SCHEMA IF NOT EXISTS ${ddlName(ENGINE_SCHEMA, 'trino')};`,
  athena: `CREATE DATABASE IF NOT EXISTS ${ddlName(ENGINE_SCHEMA, 'athena')};`,
  spark: `CREATE DATABASE IF NOT EXISTS ${ddlName(ENGINE_SCHEMA, 'spark')};`,
};

/** The whole file for one engine (pure): the schema, then one table per exported table with files. */
export function engineSql(engine: Engine, root: string, tables: readonly ExportedTable[]): string {
  const create = engine === 'trino' ? trinoTable : engine === 'athena' ? athenaTable : sparkTable;
  return [
    `-- gexwh export: its tables for ${HEADERS[engine][0]}`,
    `-- ${HEADERS[engine][1]} Views and point-in-time queries: docs/sharing.md.`,
    CREATE_SCHEMA[engine],
    '',
    ...tables.filter((table) => table.hasFiles).map((table) => `${create(root, table)}\n`),
  ].join('\n');
}

export const ENGINE_FILES: Record<Engine, string> = { trino: 'trino.sql', athena: 'athena.sql', spark: 'spark.sql' };
