// The one sandboxed reader (openReader; runQuery goes through it) closes what DuckDB's own sandbox
// leaves open: its temp folder beside the warehouse (a link planted in `<db>.tmp/` was readable), a
// link at a WAL file's name (DuckDB resolves it into allowed_paths when it locks down), and the
// paths of the user's home in duckdb_settings(). Its temp folder is private (0700) and removed after.
import { linkSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UnsafeWarehouseError } from '../../src/core/errors.js';
import { openReader, openWarehouse } from '../../src/warehouse/open.js';
import { runQuery } from '../../src/warehouse/query.js';
import { makeTempDir } from './fixtures.js';

const SECRET = `not-for-sql-${process.pid}`;

let dir: string;
let cleanup: () => void;
let db: string;
let secret: string;
let tmp: string;
const previousTmp = process.env.TMPDIR;

beforeAll(async () => {
  ({ dir, cleanup } = makeTempDir());
  db = join(dir, 'gex.duckdb');
  secret = join(dir, 'secret.txt');
  writeFileSync(secret, SECRET);
  (await openWarehouse(db)).close();
  // The reader's private folders go here, so a test can see what is left behind.
  tmp = join(dir, 'tmp');
  mkdirSync(tmp);
  process.env.TMPDIR = tmp;
});

afterAll(() => {
  if (previousTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previousTmp;
  cleanup();
});

afterEach(() => {
  for (const name of readdirSync(dir)) if (/^gex\.duckdb\.(tmp|wal)/.test(name)) rmSync(join(dir, name), { recursive: true, force: true });
});

describe('the private temp folder', () => {
  it('is the temp directory, mode 0700, and is removed when the reader closes', async () => {
    const reader = await openReader(db);
    let folder: string;
    try {
      const rows = (await reader.connection.runAndReadAll("SELECT current_setting('temp_directory')")).getRowsJson();
      folder = String(rows[0]![0]);
      expect(folder.startsWith(`${tmp}/gexwh-reader-`)).toBe(true);
      expect(statSync(folder).mode & 0o777).toBe(0o700);
    } finally {
      reader.close();
    }
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('a link planted in DuckDB’s own <db>.tmp/ cannot be read', async () => {
    mkdirSync(`${db}.tmp`);
    linkSync(secret, join(`${db}.tmp`, 'hard'));
    symlinkSync(secret, join(`${db}.tmp`, 'soft'));
    for (const name of ['hard', 'soft']) {
      const error = await runQuery(db, `SELECT content FROM read_text('${db}.tmp/${name}')`).catch((e: unknown) => e);
      expect(error, name).toBeInstanceOf(Error);
      expect(String(error), name).toMatch(/refused: file and network access/);
      expect(String(error)).not.toContain(SECRET);
    }
    expect(readdirSync(tmp)).toEqual([]);
  });
});

describe('a link at a WAL file’s name is refused before anything is read', () => {
  it.each([
    ['a symbolic link', '.wal.recovery', (path: string) => symlinkSync(secret, path)],
    ['a hard link', '.wal.checkpoint', (path: string) => linkSync(secret, path)],
    ['a symbolic link named like the WAL itself', '.wal', (path: string) => symlinkSync(secret, path)],
  ])('%s at <db>%s', async (_label, suffix, plant) => {
    plant(`${db}${suffix}`);
    const error = await runQuery(db, `SELECT content FROM read_text('${db}${suffix}')`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsafeWarehouseError);
    expect((error as Error).message).toMatch(new RegExp(`gex\\.duckdb${suffix.replaceAll('.', '\\.')} is a (symbolic|hard) link`));
    expect((error as Error).message).not.toContain(SECRET);
    expect(readdirSync(tmp)).toEqual([]);
  });
});

describe('duckdb_settings() shows no path of the user', () => {
  it('home, secret, extension and temp folders all point into the private folder', async () => {
    const { rows } = await runQuery(db, "SELECT name, value FROM duckdb_settings() WHERE value LIKE '%/%' ORDER BY name");
    const paths = rows.filter((r) => r.name !== 'TimeZone' && r.name !== 'allowed_paths');
    expect(paths.map((r) => r.name)).toEqual(expect.arrayContaining(['secret_directory', 'temp_directory']));
    for (const row of paths) expect(String(row.value), String(row.name)).toMatch(new RegExp(`^\\[?${tmp}/gexwh-reader-[^/]+/?\\]?$`));
    const everything = JSON.stringify(rows);
    expect(everything).not.toContain(homedir());
    expect(everything).not.toContain('.duckdb/');
    expect(everything).not.toContain(`${db}.tmp`);
  });
});

describe('the sandbox also holds for a writer (status storing coverage)', () => {
  it('no file outside the warehouse', async () => {
    const writer = await openWarehouse(db, { sandbox: { writable: true } });
    try {
      expect(writer.readOnly).toBe(false);
      await expect(writer.connection.run(`SELECT content FROM read_text('${secret}')`)).rejects.toThrow(/Permission Error/);
      await expect(writer.connection.run('SET enable_external_access = true')).rejects.toThrow(/locked/);
    } finally {
      writer.close();
    }
    expect(readdirSync(tmp)).toEqual([]);
  });
});
