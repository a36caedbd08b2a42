// Reliability matrix, a warehouse from someone else: its views and sync tables redefined to read a
// file of this machine (levels_close with a regime read from the file, or for the chart a spot cast
// from it, sync.runs with an outcome read from it, sync.migrations casting it to a number: DuckDB's
// error then quotes it; the ledger's sha256 read from it; a table levels that is a view reading it).
// report, chart, status (offline, and online where it stores the fresh coverage), doctor, verify and
// export open it through the sandbox: the file's content appears nowhere (stdout, stderr, files
// written), each says the warehouse holds SQL that reads a file, and nothing is written. In-process:
// no signal or second process matters here.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { openWarehouse } from '../../src/warehouse/open.js';
import { copySyncState } from '../../src/warehouse/snapshot.js';
import { runCliInProcess, type CliResult } from '../helpers/cli.js';
import { DEMO_NOW, loadDemoHistory } from '../helpers/demo-warehouse.js';
import { makeTempDir } from '../warehouse/fixtures.js';

const SECRET = `hostname-of-the-victim-${process.pid}`;

let dir: string;
let cleanup: () => void;
let db: string;
/** The same, but its levels_close casts the file to a number: the chart draws no text, DuckDB's error quotes it. */
let chartDb: string;
/** The same, but its table levels is a view reading the file into regime: an export would copy it out. */
let exportDb: string;
/** The same, but its ledger's sha256 is read from the file: verify quoted it in each hash_mismatch. */
let verifyDb: string;
let out: string;
let emulator: Emulator;

beforeAll(async () => {
  ({ dir, cleanup } = makeTempDir());
  db = join(dir, 'gex.duckdb');
  out = join(dir, 'out');
  const secret = join(dir, 'hostname');
  writeFileSync(secret, `${SECRET}\n`);
  const wh = await openWarehouse(db);
  try {
    await loadDemoHistory(wh, dir, { from: '2026-03-12', strikes: 6 });
  } finally {
    wh.close();
  }
  chartDb = join(dir, 'chart.duckdb');
  copyFileSync(db, chartDb);
  exportDb = join(dir, 'export.duckdb');
  copyFileSync(db, exportDb);
  verifyDb = join(dir, 'verify.duckdb');
  copyFileSync(db, verifyDb);
  const file = `(SELECT content FROM read_text('${secret}'))`;
  const closes = `FROM levels_total t SEMI JOIN session_closes c
    ON c.exchange = t.exchange AND c.symbol = t.symbol AND c.session_date = t.session_date AND c.timestamp_utc = t.timestamp_utc`;
  await alter(
    db,
    `
    CREATE OR REPLACE VIEW levels_close AS SELECT t.* REPLACE (${file} AS regime) ${closes};
    ALTER TABLE sync.runs RENAME TO runs_kept;
    CREATE VIEW sync.runs AS SELECT * REPLACE (${file} AS outcome) FROM sync.runs_kept;
    ALTER TABLE sync.migrations RENAME TO migrations_kept;
    CREATE VIEW sync.migrations AS SELECT * REPLACE (CAST(${file} AS INTEGER) AS version) FROM sync.migrations_kept;`,
  );
  await alter(chartDb, `CREATE OR REPLACE VIEW levels_close AS SELECT t.* REPLACE (CAST(${file} AS DOUBLE) AS spot) ${closes};`);
  await alter(verifyDb, `ALTER TABLE sync.files RENAME TO files_kept; CREATE VIEW sync.files AS SELECT * REPLACE (${file} AS sha256) FROM sync.files_kept;`);
  await alter(exportDb, `ALTER TABLE levels RENAME TO levels_kept; CREATE VIEW levels AS SELECT * REPLACE (${file} AS regime) FROM levels_kept;`);
  emulator = await startEmulator({ now: DEMO_NOW, days: 2, expirations: 1, strikes: 4, symbols: ['BTC', 'SPY'] });
}, 120_000);

/** Runs DDL on a warehouse as its owner would, before it is handed over. */
async function alter(path: string, sql: string): Promise<void> {
  const wh = await openWarehouse(path);
  try {
    await wh.connection.run(`${sql}\nCHECKPOINT;`);
  } finally {
    wh.close();
  }
}

/** The data tables' row counts, read with no migration (which would read the planted view). */
async function ledgerRows(path: string): Promise<unknown[]> {
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  try {
    const tables = ['levels', 'strikes_total', 'strikes_by_expiry'];
    return await Promise.all(tables.map(async (t) => (await connection.runAndReadAll(`SELECT count(*)::INT FROM ${t}`)).getRows()));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

afterAll(async () => {
  await emulator?.close();
  cleanup();
});

/** The file's content nowhere in the output or in what was written to `folder`, and nothing written. */
function expectNoLeak(result: CliResult, folder?: string): void {
  expect(result.stdout + result.stderr).not.toContain(SECRET);
  const written = folder !== undefined && existsSync(folder) ? readdirSync(folder) : [];
  for (const name of written) expect(readFileSync(join(folder!, name), 'utf8').includes(SECRET), `${name} holds the file's content`).toBe(false);
  expect(written, 'files written').toEqual([]);
}

/** The one error every reader gives: the SQL named, the file named, its content not. */
const REFUSAL =
  /the warehouse .*[\w-]+\.duckdb holds SQL \(a view or a macro\) that reads a file or URL outside it, which the sandbox refused \(Permission Error: Cannot access file ".*hostname"/;

describe('a hostile warehouse leaks no file through the commands that read it', () => {
  it("a sync's copy of the state beside a reader: the refusal, never the file (a ledger sha256 read from it)", async () => {
    const copying = copySyncState(verifyDb);
    await expect(copying).rejects.toMatchObject({ name: 'UnsafeWarehouseError' });
    const error = (await copying.then(
      () => undefined,
      (e: unknown) => e as Error,
    ))!;
    expect(error.message).toContain('holds SQL (a view or a macro) that reads a file or URL outside it');
    expect(error.message).not.toContain(SECRET);
  });

  it('report: exit 2, the refusal, no page', async () => {
    const result = await runCliInProcess(['report', '--db', db, '--out', join(out, 'report', 'report.html'), '--json']);
    expectNoLeak(result, join(out, 'report'));
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'unsafe_warehouse', exitCode: 2 });
    expect(result.stderr).toMatch(REFUSAL);
  });

  it('chart: exit 2, the refusal, no image', async () => {
    const result = await runCliInProcess([
      'chart',
      'levels',
      '--db',
      chartDb,
      '--exchange',
      'deribit',
      '--symbol',
      'BTC',
      '--out',
      join(out, 'chart', 'levels.svg'),
    ]);
    expectNoLeak(result, join(out, 'chart'));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(REFUSAL);
  });

  it('status offline: exit 2, the refusal', async () => {
    const result = await runCliInProcess(['status', '--db', db, '--archive', join(dir, 'raw')]);
    expectNoLeak(result);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(REFUSAL);
  });

  it('status online, which stores the fresh coverage first (migrations read sync.migrations): exit 2, the refusal', async () => {
    const result = await runCliInProcess(['status', '--db', db, '--archive', join(dir, 'raw')], {
      env: { GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.pro },
    });
    expectNoLeak(result);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(REFUSAL);
  });

  it('doctor: the warehouse check fails with the refusal', async () => {
    const result = await runCliInProcess(['doctor', '--db', db, '--archive', join(dir, 'raw'), '--json'], {
      env: { GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.pro },
    });
    expectNoLeak(result);
    expect(result.code).toBe(1);
    const checks = JSON.parse(result.stdout).error.hint.checks as Array<{ name: string; ok: boolean; detail: string }>;
    const warehouse = checks.find((c) => c.name === 'warehouse')!;
    expect(warehouse.ok).toBe(false);
    expect(warehouse.detail).toMatch(REFUSAL);
  });

  it('export: exit 2, the refusal, no partition written (before, the file content was in every levels file)', async () => {
    const folder = join(out, 'export');
    const result = await runCliInProcess(['export', '--db', exportDb, '--out', folder, '--format', 'csv']);
    expect(result.stdout + result.stderr).not.toContain(SECRET);
    for (const name of existsSync(folder) ? readdirSync(folder, { recursive: true, encoding: 'utf8' }) : []) {
      const path = join(folder, name);
      if (statSync(path).isFile()) expect(readFileSync(path, 'utf8').includes(SECRET), `${name} holds the file's content`).toBe(false);
    }
    expect(existsSync(folder) ? readdirSync(folder) : [], 'files left (a staging folder too)').toEqual([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(REFUSAL);
  });

  it('verify: exit 2, the refusal (before, each hash_mismatch quoted the file as the ledger sha256)', async () => {
    const archive = verifyArchive();
    const result = await runCliInProcess(['verify', '--db', verifyDb, '--archive', archive]);
    expectNoLeak(result);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(REFUSAL);
  });

  it('verify --repair: exit 2, the refusal, the ledger untouched (before, the repair printed the file)', async () => {
    const archive = verifyArchive();
    const repairDb = join(dir, 'repair.duckdb');
    copyFileSync(verifyDb, repairDb);
    const before = readFileSync(repairDb);
    const result = await runCliInProcess(['verify', '--repair', '--db', repairDb, '--archive', archive]);
    expectNoLeak(result);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(REFUSAL);
    expect(readFileSync(repairDb).equals(before), 'the warehouse written').toBe(true);
  });

  // Each writer opens a copy of a hostile warehouse: one whose sync.migrations casts the file to a
  // number (the migration check reads it first, and DuckDB's error quoted the file), or, for rebuild
  // (which refuses a warehouse with no sync.migrations table), one whose ledger's sha256 reads it:
  // rebuild has recorded its run (failed) by then, and nothing else.
  it.each([
    ['load', () => db, (copy: string, raw: string) => ['load', '--db', copy, '--archive', raw]],
    ['rebuild', () => verifyDb, (copy: string, raw: string) => ['rebuild', '--db', copy, '--archive', raw]],
    [
      'sync',
      () => db,
      (copy: string, raw: string) => ['sync', '--db', copy, '--archive', raw, '--exchange', 'deribit', '--symbol', 'BTC', '--since', '2026-03-12'],
    ],
    [
      'sync --fill-levels',
      () => db,
      (copy: string, raw: string) => [
        'sync',
        '--db',
        copy,
        '--archive',
        raw,
        '--exchange',
        'deribit',
        '--symbol',
        'BTC',
        '--since',
        '2026-03-12',
        '--fill-levels',
      ],
    ],
    ['capture', () => db, (copy: string, raw: string) => ['capture', '--db', copy, '--archive', raw, '--exchange', 'deribit', '--symbol', 'BTC']],
  ] as const)('%s: exit 2, the refusal, no row loaded', async (name, source, argv) => {
    const copy = join(dir, `writer-${name}.duckdb`);
    copyFileSync(source(), copy);
    const rowsBefore = await ledgerRows(copy);
    const result = await runCliInProcess([...argv(copy, verifyArchive())], { env: { GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.pro } });
    expectNoLeak(result);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(REFUSAL);
    expect(await ledgerRows(copy)).toEqual(rowsBefore);
  });
});

/** One archived copy where verify looks, so it hashes it and compares it with the ledger's sha256. */
function verifyArchive(): string {
  const archive = join(dir, 'verify-raw');
  mkdirSync(join(archive, 'deribit', 'BTC'), { recursive: true });
  copyFileSync(join(dir, 'deribit_BTC_2026-03-12_levels.csv.gz'), join(archive, 'deribit', 'BTC', '2026-03-12_levels.csv.gz'));
  return archive;
}
