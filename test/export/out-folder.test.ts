// `gexwh export --out DIR` writes only inside DIR and only where it may: a folder of the export that
// is a link out is refused (nothing written through it), and a non-empty folder that is not a gexwh
// export is refused without --force (before, the user's own views.sql, clickhouse.sql and
// runs/data.parquet were replaced). The warehouse's hostile column name ends up quoted in views.sql.
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duckdb } from '../../src/warehouse/duckdb.js';
import { loadFiles } from '../../src/warehouse/loader.js';
import { openWarehouse } from '../../src/warehouse/open.js';
import { runCliInProcess } from '../helpers/cli.js';
import { BTC, makeTempDir, writeFixture } from '../warehouse/fixtures.js';

const { dir, cleanup } = makeTempDir();
const db = join(dir, 'gex.duckdb');
const CANARY = join(dir, 'pwned');
const HOSTILE = `a; COPY (SELECT 'pwned') TO '${CANARY}'; SELECT 1 AS b, 2`;

beforeAll(async () => {
  const wh = await openWarehouse(db);
  try {
    expect((await loadFiles(wh.connection, [writeFixture(dir, 'levels', BTC)])).failed).toEqual([]);
    // A column the warehouse may come to hold (a layout's new column, a hand-made one).
    await wh.connection.run(`ALTER TABLE levels ADD COLUMN "${HOSTILE.replaceAll('"', '""')}" VARCHAR`);
  } finally {
    wh.close();
  }
});
afterAll(cleanup);

const exportTo = (out: string, ...more: string[]) =>
  runCliInProcess(['export', '--db', db, '--out', out, '--table', 'levels', '--json', ...more], { cwd: dir });

describe('export --out into a folder that is not a gexwh export', () => {
  it("refuses without --force (exit 2, naming the folder and --force); the user's files stay as they were", async () => {
    const out = join(dir, 'mine');
    mkdirSync(join(out, 'runs'), { recursive: true });
    writeFileSync(join(out, 'views.sql'), 'my views');
    writeFileSync(join(out, 'runs', 'data.parquet'), 'my data');
    const refused = await exportTo(out);
    expect(refused.code).toBe(2);
    const message = JSON.parse(refused.stdout).error.message as string;
    expect(message).toContain(`--out ${out} is not empty`);
    expect(message).toContain('--force');
    expect(readFileSync(join(out, 'views.sql'), 'utf8')).toBe('my views');
    expect(readFileSync(join(out, 'runs', 'data.parquet'), 'utf8')).toBe('my data');
    expect(readdirSync(out).sort()).toEqual(['runs', 'views.sql']);

    const forced = await exportTo(out, '--force');
    expect(forced.code).toBe(0);
    expect(readFileSync(join(out, 'views.sql'), 'utf8')).toMatch(/^-- gexwh export/);
  });

  it('an empty or new folder, and a folder gexwh exported to before, need no --force', async () => {
    const fresh = join(dir, 'fresh');
    expect((await exportTo(fresh)).code).toBe(0);
    expect((await exportTo(fresh)).code).toBe(0);
    mkdirSync(join(dir, 'empty'));
    expect((await exportTo(join(dir, 'empty'))).code).toBe(0);
  });
});

describe('export through a folder that is a link out', () => {
  it('a partition folder linked out of --out is refused (exit 2); nothing is written where it leads', async () => {
    const out = join(dir, 'linked');
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(join(out, 'levels', 'exchange=bybit'), { recursive: true });
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(out, 'levels', 'exchange=bybit', 'symbol=BTC'));
    const result = await exportTo(out, '--force');
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout).error.message).toMatch(/symbol=BTC is a symbolic link to .*elsewhere, outside .*: not followed/);
    expect(readdirSync(elsewhere)).toEqual([]);
  });
});

describe('an --out reached through a link of the user (a data folder linked elsewhere)', () => {
  it('exports: the sandbox allows the staging folder DuckDB resolves through the link', async () => {
    const real = join(dir, 'real-data');
    mkdirSync(real);
    symlinkSync(real, join(dir, 'data-link'));
    const result = await exportTo(join(dir, 'data-link', 'export'));
    expect(result.code, result.stdout).toBe(0);
    expect(readdirSync(join(real, 'export'))).toContain('levels');
  });
});

describe("the warehouse's hostile column through a real export", () => {
  it('views.sql run statement by statement creates the views with that column and writes no file', async () => {
    const out = join(dir, 'hostile');
    expect((await exportTo(out)).code).toBe(0);
    const sql = readFileSync(join(out, 'views.sql'), 'utf8');
    const instance = await duckdb.DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    try {
      for (const line of sql.split(';\n')) {
        const extracted = await conn.extractStatements(line).catch(() => undefined);
        for (let i = 0; extracted !== undefined && i < extracted.count; i++)
          await extracted
            .prepare(i)
            .then((s) => s.run())
            .catch(() => undefined);
      }
      const columns = await conn.runAndReadAll('SELECT column_name FROM (DESCRIBE levels)');
      expect(columns.getRowObjectsJS().map((r) => r.column_name)).toContain(HOSTILE);
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
    expect(existsSync(CANARY)).toBe(false);
  });
});
