// ClickHouse reads the export for real: chDB (ClickHouse in this process) runs the clickhouse.sql of a
// local export and of an export to s3rver (read through s3()). Over the local export every table, view,
// point-in-time parameterized view and README recipe (in its ClickHouse form, docs/sharing.md) answers
// as the warehouse does: the same columns, row count and row checksum; over S3 every table does, and
// the S3 file's views are the local file's statements. One export of each kind, one chDB session, one
// database per export. chDB is installed on first use (test/helpers/chdb.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLICKHOUSE_FILE, CLICKHOUSE_VIEW_NAMES, clickhouseStatements } from '../../src/export/clickhouse.js';
import { s3Client } from '../../src/export/s3.js';
import { exportWarehouse, EXPORT_TABLES } from '../../src/export/export.js';
import { openWarehouse, type Warehouse } from '../../src/warehouse/open.js';
import { loadChdb, type ChdbSession } from '../helpers/chdb.js';
import { loadDemoHistory } from '../helpers/demo-warehouse.js';
import { S3_KEY, startLocalS3, type LocalS3 } from '../helpers/s3.js';
import { makeTempDir } from '../warehouse/fixtures.js';

const BUCKET = 'gex-share';
const DATABASES = { local: 'export_local', s3: 'export_s3' } as const;

/** The first ```sql block after `heading` in a markdown file, split into statements. */
function sqlBlock(file: string, heading: string): string[] {
  const text = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
  const section = text.slice(text.indexOf(heading));
  const block = /```sql\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block
    .split(/;\s*$/m)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter((s) => s.length > 0);
}

// A checksum both engines compute identically: each row as text from normalised columns (doubles
// floored at 1e-4, instants as epoch microseconds, dates as YYYY-MM-DD, NULL as ∅), its md5's first
// 48 bits as a number, summed over the rows.
type Kind = 'text' | 'bool' | 'int' | 'float' | 'date' | 'ts';

function kindOf(type: string): Kind {
  if (type === 'VARCHAR') return 'text';
  if (type === 'BOOLEAN') return 'bool';
  if (/^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)$/.test(type)) return 'int';
  if (type === 'DOUBLE' || type === 'FLOAT' || type.startsWith('DECIMAL')) return 'float';
  if (type === 'DATE') return 'date';
  if (type.startsWith('TIMESTAMP')) return 'ts';
  throw new Error(`no checksum rule for the DuckDB type ${type}`);
}

const DUCKDB_TEXT: Record<Kind, (c: string) => string> = {
  text: (c) => c,
  bool: (c) => `CASE WHEN ${c} IS NULL THEN NULL WHEN ${c} THEN '1' ELSE '0' END`,
  int: (c) => `CAST(${c} AS VARCHAR)`,
  float: (c) => `CAST(CAST(floor(${c} * 10000) AS HUGEINT) AS VARCHAR)`,
  date: (c) => `strftime(${c}, '%Y-%m-%d')`,
  ts: (c) => `CAST(epoch_us(${c}) AS VARCHAR)`,
};

const CLICKHOUSE_TEXT: Record<Kind, (c: string) => string> = {
  text: (c) => `toString(${c})`,
  bool: (c) => `multiIf(isNull(${c}), NULL, ${c}, '1', '0')`,
  int: (c) => `toString(${c})`,
  float: (c) => `toString(toInt128(floor(${c} * 10000)))`,
  date: (c) => `toString(${c})`,
  ts: (c) => `toString(toUnixTimestamp64Micro(${c}))`,
};

interface Column {
  name: string;
  kind: Kind;
}

interface Answer {
  columns: string[];
  rows: string;
  checksum: string;
}

function checksumSql(engine: 'duckdb' | 'clickhouse', columns: readonly Column[], sql: string): string {
  const text = engine === 'duckdb' ? DUCKDB_TEXT : CLICKHOUSE_TEXT;
  const orNull = engine === 'duckdb' ? 'coalesce' : 'ifNull';
  const row = `concat(${columns.map((c) => `${orNull}(${text[c.kind](`q."${c.name}"`)}, '∅'), '|'`).join(', ')})`;
  return engine === 'duckdb'
    ? `SELECT count(*)::VARCHAR AS n, coalesce(sum(CAST('0x' || substr(md5(${row}), 1, 12) AS BIGINT)), 0)::HUGEINT::VARCHAR AS checksum FROM (${sql}) q`
    : `SELECT toString(count()) AS n, toString(sum(toUInt128(reinterpretAsUInt64(reverse(unhex(substring(hex(MD5(${row})), 1, 12))))))) AS checksum FROM (${sql}) AS q`;
}

/** The warehouse's answer, and the columns ClickHouse must give. */
async function duckdbAnswer(conn: DuckDBConnection, sql: string): Promise<{ answer: Answer; columns: Column[] }> {
  const shape = (await conn.runAndReadAll(`DESCRIBE (${sql})`)).getRowObjectsJS();
  const columns = shape.map((c) => ({ name: String(c.column_name), kind: kindOf(String(c.column_type)) }));
  const [sums] = (await conn.runAndReadAll(checksumSql('duckdb', columns, sql))).getRowObjectsJS();
  return { answer: { columns: columns.map((c) => c.name), rows: String(sums?.n), checksum: String(sums?.checksum) }, columns };
}

let session: ChdbSession;

/**
 * A chDB query off the event loop: s3rver answers in this process, so a blocking query reading
 * s3() would wait for it forever.
 */
async function clickhouse<T = Record<string, unknown>>(database: string, sql: string): Promise<T[]> {
  await session.queryAsync(`USE ${database}`);
  const text = (await session.queryAsync(sql, { format: 'JSONEachRow' })).text();
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as T);
}

async function clickhouseAnswer(database: string, sql: string, columns: readonly Column[]): Promise<Answer> {
  const names = (await clickhouse<{ name: string }>(database, `DESCRIBE (${sql})`)).map((c) => c.name);
  const [sums] = await clickhouse<{ n: string; checksum: string }>(database, checksumSql('clickhouse', columns, sql));
  return { columns: names, rows: String(sums?.n), checksum: String(sums?.checksum) };
}

let dir: string;
let cleanup: () => void;
let s3: LocalS3;
let warehouse: Warehouse;
const savedEnv: Record<string, string | undefined> = {};
const written: Record<keyof typeof DATABASES, string> = { local: '', s3: '' };

beforeAll(async () => {
  ({ dir, cleanup } = makeTempDir());
  const db = join(dir, 'gex.duckdb');
  warehouse = await openWarehouse(db);
  await loadDemoHistory(warehouse, dir, { strikes: 6 }); // every view still has rows; fewer bytes for s3rver to serve
  warehouse.close();
  s3 = await startLocalS3([BUCKET]);
  for (const [name, value] of Object.entries(S3_KEY)) {
    savedEnv[name] = process.env[name];
    process.env[name] = value;
  }
  const outDir = join(dir, 'export');
  await exportWarehouse({ dbPath: db, outDir });
  written.local = readFileSync(join(outDir, CLICKHOUSE_FILE), 'utf8');
  await exportWarehouse({ dbPath: db, outDir: `s3://${BUCKET}/gex`, s3: { endpoint: s3.endpoint, forcePathStyle: true } });
  const client = s3Client({ endpoint: s3.endpoint, forcePathStyle: true });
  try {
    const object = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: `gex/${CLICKHOUSE_FILE}` }));
    written.s3 = await object.Body!.transformToString('utf8');
  } finally {
    client.destroy();
  }
  const { Session } = await loadChdb(); // ~15 s the first time on a machine: test/helpers/chdb.ts
  session = new Session();
  for (const [kind, database] of Object.entries(DATABASES) as Array<[keyof typeof DATABASES, string]>) {
    await session.queryAsync(`CREATE DATABASE ${database}`);
    await session.queryAsync(`USE ${database}`);
    for (const statement of clickhouseStatements(written[kind])) await session.queryAsync(statement);
  }
  warehouse = await openWarehouse(db, { readOnly: true });
}, 300_000);

afterAll(async () => {
  session?.close();
  warehouse?.close();
  for (const [name, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await s3?.close();
  cleanup?.();
});

const VIEWS_SQL = readFileSync(new URL('../../sql/views.sql', import.meta.url), 'utf8');
const TABLE_QUERIES: Array<[name: string, warehouse: string]> = [
  ...EXPORT_TABLES.map((table): [string, string] => [table, `SELECT * FROM ${table}`]),
  ['runs', 'SELECT * REPLACE (options::VARCHAR AS options) FROM sync.runs'],
  ...CLICKHOUSE_VIEW_NAMES.filter((name) => !name.endsWith('_asof') && !['nearest_walls', 'regime_returns', 'flip_crossings'].includes(name)).map(
    (name): [string, string] => [name, `SELECT * FROM ${name}`],
  ),
];

/** A moment before a Friday's close, one exactly at a capture (no look-ahead: it counts), one on a Saturday with a fraction of a second. */
const AT = ['2026-02-20 14:07:00', '2026-03-13 20:59:59', '2026-03-16 14:00:00', '2026-03-16 14:05:00', '2026-03-14 12:00:00.5'];
/**
 * The macro calls in DuckDB and the same questions to the parameterized views. On the Saturday BTC's
 * captures go on, SPY's last one is too old for 20 minutes of staleness and recent enough for a day.
 */
const pointInTime = (moments: readonly string[]): Array<[duckdb: string, clickhouse: string]> =>
  moments.flatMap((ts): Array<[string, string]> => [
    [`SELECT * FROM levels_asof('deribit', 'BTC', '${ts}+00')`, `SELECT * FROM levels_asof(exchange = 'deribit', symbol = 'BTC', ts = '${ts}')`],
    [
      `SELECT * FROM levels_asof('tradfi', 'SPY', '${ts}+00', max_staleness := INTERVAL 20 MINUTE)`,
      `SELECT * FROM levels_asof(exchange = 'tradfi', symbol = 'SPY', ts = '${ts}', max_staleness = 1200)`,
    ],
    [`SELECT * FROM strikes_asof('deribit', 'BTC', '${ts}+00')`, `SELECT * FROM strikes_asof(exchange = 'deribit', symbol = 'BTC', ts = '${ts}')`],
    [
      `SELECT * FROM strikes_asof('tradfi', 'SPY', '${ts}+00', max_staleness := INTERVAL 1 DAY)`,
      `SELECT * FROM strikes_asof(exchange = 'tradfi', symbol = 'SPY', ts = '${ts}', max_staleness = 86400)`,
    ],
  ]);

describe('clickhouse.sql', () => {
  it('defines every view and macro of sql/views.sql (pit_levels takes a table name: a recipe in docs/sharing.md)', () => {
    const duckdbNames = [...VIEWS_SQL.matchAll(/^CREATE OR REPLACE (?:VIEW|MACRO) (\w+)/gm)].map((m) => m[1]!);
    expect(duckdbNames.length).toBeGreaterThanOrEqual(9);
    expect(duckdbNames.filter((name) => name !== 'pit_levels' && !CLICKHOUSE_VIEW_NAMES.includes(name))).toEqual([]);
  });

  it('the local export reads its folder with file(), the S3 one the endpoint the export used with s3()', () => {
    expect(written.local).toContain(`file('${join(dir, 'export')}/levels/*/*/*/*.parquet', 'Parquet'`);
    expect(written.s3).toContain(`s3('${s3.endpoint}/${BUCKET}/gex/levels/*/*/*/*.parquet', 'Parquet'`);
    expect(written.s3).not.toContain('S3RVER');
  });

  it('the two files differ only in where the tables read: every view and parameterized view is the same statement', () => {
    const reads = (statement: string) => /\b(file|s3)\('/.test(statement);
    const views = (text: string) => clickhouseStatements(text).filter((statement) => !reads(statement));
    const tables = (text: string) => clickhouseStatements(text).filter(reads);
    expect(views(written.s3)).toEqual(views(written.local));
    expect(views(written.local).length).toBeGreaterThanOrEqual(CLICKHOUSE_VIEW_NAMES.length);
    expect(tables(written.s3)).toHaveLength(tables(written.local).length);
    expect(tables(written.local).length).toBeGreaterThanOrEqual(3);
  });
});

// Over S3 only the tables are asked: each reads its files with s3() through s3rver (seconds a query),
// and the views over them are the local file's statements (the test above), which answer as the
// warehouse over the local export.
const S3_QUERIES = TABLE_QUERIES.filter(([name]) => name === 'runs' || (EXPORT_TABLES as readonly string[]).includes(name));

for (const [kind, database] of Object.entries(DATABASES)) {
  describe(`chDB over the ${kind} export answers as the warehouse`, () => {
    for (const [name, sql] of kind === 'local' ? TABLE_QUERIES : S3_QUERIES) {
      it(`${name}: columns, rows and checksum`, async () => {
        const { answer, columns } = await duckdbAnswer(warehouse.connection, sql);
        expect(Number(answer.rows), name).toBeGreaterThan(0);
        expect(await clickhouseAnswer(database, `SELECT * FROM ${name}`, columns)).toEqual(answer);
      });
    }

    if (kind !== 'local') return;

    it('levels_asof and strikes_asof as parameterized views: no look-ahead, the same staleness rule', async () => {
      const calls = pointInTime([AT[1]!, AT[2]!, AT[4]!]);
      let empty = 0;
      for (const [duckdbSql, clickhouseSql] of calls) {
        const { answer, columns } = await duckdbAnswer(warehouse.connection, duckdbSql);
        if (Number(answer.rows) === 0) empty += 1;
        expect({ clickhouseSql, ...(await clickhouseAnswer(database, clickhouseSql, columns)) }).toEqual({ clickhouseSql, ...answer });
      }
      // Some ask for a capture that is too old (SPY on a Saturday with 20 minutes of staleness), most find one.
      expect(empty).toBeGreaterThan(0);
      expect(empty).toBeLessThan(calls.length / 2);
    });

    it("the README's recipes, in their ClickHouse form", async () => {
      const readme = sqlBlock('README.md', '### Recipes');
      const forms = sqlBlock('docs/sharing.md', "### The README's recipes in ClickHouse");
      expect(forms).toHaveLength(readme.length);
      expect(readme.length).toBeGreaterThanOrEqual(2);
      for (const [i, sql] of readme.entries()) {
        const { answer, columns } = await duckdbAnswer(warehouse.connection, sql);
        expect({ recipe: i, ...(await clickhouseAnswer(database, forms[i]!, columns)) }).toEqual({ recipe: i, ...answer });
      }
    });
  });
}
