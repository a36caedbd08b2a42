// The engines' SQL parsers the export's DDL is checked with (dt-sql-parser's ANTLR grammars), one per
// engine file: Athena's DDL is Hive's. dt-sql-parser's ESM imports files without extensions, which
// Node refuses; handed to vitest, its ~4 MB of grammars were transformed and then evaluated through
// vitest's module runner in each worker (~3 s and ~5 s). Instead the three grammars used are bundled
// once by rolldown into one file that Node loads itself, kept in node_modules/.cache under the
// package's version and this entry's hash (a new version or another grammar bundles again).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { rolldown } from 'rolldown';
import type { Engine } from '../../src/export/ddl.js';

type Grammars = typeof import('dt-sql-parser/dist/parser/hive/index.js') &
  typeof import('dt-sql-parser/dist/parser/spark/index.js') &
  typeof import('dt-sql-parser/dist/parser/trino/index.js');

const ENTRY = ['hive/index.js', 'spark/index.js', 'trino/index.js'].map((path) => `export * from 'dt-sql-parser/dist/parser/${path}';\n`).join('');

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The bundle's path, bundled first when the cache does not hold it (written aside, then renamed: a cut write is never loaded). */
async function bundled(): Promise<string> {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'dt-sql-parser', 'package.json'), 'utf8')) as { version: string };
  const folder = join(ROOT, 'node_modules', '.cache', 'gexwh-test');
  const file = join(folder, `dt-sql-parser-${version}-${createHash('sha256').update(ENTRY).digest('hex').slice(0, 12)}.mjs`);
  if (existsSync(file)) return file;
  mkdirSync(folder, { recursive: true });
  const entry = join(folder, `entry-${process.pid}.mjs`);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(entry, ENTRY);
  try {
    const build = await rolldown({ input: entry, platform: 'node', logLevel: 'silent' });
    await build.write({ file: temp, format: 'esm' });
    await build.close();
    renameSync(temp, file);
  } finally {
    rmSync(entry, { force: true });
    rmSync(temp, { force: true });
  }
  return file;
}

const { HiveSQL, SparkSQL, TrinoSQL } = (await import(pathToFileURL(await bundled()).href)) as Grammars;

export const PARSERS = { trino: new TrinoSQL(), athena: new HiveSQL(), spark: new SparkSQL() } as const satisfies Record<Engine, unknown>;
