// The engines' SQL parsers the export's DDL is checked with (dt-sql-parser's ANTLR grammars), one per
// engine file: Athena's DDL is Hive's. Imported each from its own folder, not the package's index,
// which loads all eight dialects: vitest transforms the package (its ESM imports files without
// extensions, which Node refuses), and the five unused grammars were ~2/3 of that (~7 s a worker).
import { HiveSQL } from 'dt-sql-parser/dist/parser/hive/index.js';
import { SparkSQL } from 'dt-sql-parser/dist/parser/spark/index.js';
import { TrinoSQL } from 'dt-sql-parser/dist/parser/trino/index.js';
import type { Engine } from '../../src/export/ddl.js';

export const PARSERS = { trino: new TrinoSQL(), athena: new HiveSQL(), spark: new SparkSQL() } as const satisfies Record<Engine, unknown>;
