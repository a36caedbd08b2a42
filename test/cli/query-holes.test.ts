// Two holes of `gexwh query` an attack round found: a SELECT that calls a table function which acts
// (a checkpoint writes the database file) passed the read-only check, and `--out` replaced a
// dangling link without --force.
import { existsSync, lstatSync, readFileSync, readlinkSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWarehouse } from '../../src/warehouse/open.js';
import { runQuery } from '../../src/warehouse/query.js';
import { runCliInProcess } from '../helpers/cli.js';
import { makeTempDir } from '../warehouse/fixtures.js';

const { dir, cleanup } = makeTempDir();
const db = join(dir, 'gex.duckdb');

beforeAll(async () => {
  const wh = await openWarehouse(db);
  // A view someone put in the warehouse, hiding the call.
  await wh.connection.run('CREATE VIEW tidy AS SELECT * FROM checkpoint()');
  wh.close();
});
afterAll(cleanup);

describe('query: table functions that act are refused', () => {
  for (const sql of [
    'SELECT * FROM checkpoint()',
    'select * from FORCE_CHECKPOINT() -- a comment',
    'SELECT 1 FROM range(2), (SELECT * FROM "checkpoint"()) AS c;',
    'SELECT * FROM tidy',
    'SELECT * FROM enable_logging()',
  ]) {
    it(`${sql}: exit 2, refused, nothing run`, async () => {
      const result = await runCliInProcess(['query', '--db', db, '--json', sql], { cwd: dir });
      expect(result.code).toBe(2);
      expect(JSON.parse(result.stdout).error.message).toMatch(/^query refused: \w+\(\) changes the database or the session/);
    });
  }

  it('reads still run, PRAGMA table_info included', async () => {
    expect((await runQuery(db, 'SELECT count(*) AS n FROM levels')).rows).toEqual([{ n: 0 }]);
    expect((await runQuery(db, "PRAGMA table_info('levels')")).rows.length).toBeGreaterThan(5);
    expect((await runQuery(db, 'SELECT * FROM range(3)')).rows).toHaveLength(3);
  });
});

describe('query --out: a dangling link at the name is kept without --force', () => {
  it('refused (exit 2), the link untouched, nothing written where it leads', async () => {
    const out = join(dir, 'result.csv');
    const target = join(dir, 'elsewhere', 'victim.csv');
    symlinkSync(target, out);
    const refused = await runCliInProcess(['query', '--db', db, '--out', out, 'SELECT 1 AS a'], { cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`--out ${out} exists (a symbolic link); pass --force to replace it`);
    expect(lstatSync(out).isSymbolicLink()).toBe(true);
    expect(readlinkSync(out)).toBe(target);
    expect(existsSync(target)).toBe(false);

    const forced = await runCliInProcess(['query', '--db', db, '--out', out, '--force', 'SELECT 1 AS a'], { cwd: dir });
    expect(forced.code).toBe(0);
    // --force replaces the link itself, never writes through it
    expect(lstatSync(out).isFile()).toBe(true);
    expect(readFileSync(out, 'utf8')).toBe('a\n1\n');
    expect(existsSync(target)).toBe(false);
  });
});
