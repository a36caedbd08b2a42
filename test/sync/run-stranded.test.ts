// Paid files are never stranded: a failed_load file is hashed again from the archive before it is
// loaded again; a missing or wrong copy goes back to the downloads within the budget; verify says so.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyWarehouse } from '../../src/warehouse/verify.js';
import { startMigratedBench } from '../helpers/migrated-bench.js';
import { snapshotBench, type Bench, type BenchSnapshot } from '../helpers/sync.js';

let bench: Bench | undefined;
afterEach(async () => {
  await bench?.close();
  bench = undefined;
});

const SELECTION = { exchange: 'deribit', symbol: 'BTC' };
const SESSION = '2026-03-10';

/**
 * Puts the newest levels file in the state a failed load leaves (src/warehouse/loader.ts): ledger row
 * failed_load with its archive path, none of its rows in the table. The emulator cannot make a file
 * that verifies but fails to load, so the ledger is set the way the loader sets it.
 */
async function markFailedLoad(b: Bench): Promise<{ path: string; levelsRows: number }> {
  const [row] = await b.query<{ archive_path: string }>(
    `SELECT archive_path FROM sync.files WHERE session_date = DATE '${SESSION}' AND file = 'levels' AND status = 'loaded'`,
  );
  const [{ n }] = (await b.query<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM levels WHERE session_date = DATE '${SESSION}'`)) as [{ n: number }];
  await b.query(`DELETE FROM levels WHERE session_date = DATE '${SESSION}'`);
  await b.query(
    `UPDATE sync.files SET status = 'failed_load', loaded_at = NULL, error = 'disk error' WHERE session_date = DATE '${SESSION}' AND file = 'levels'`,
  );
  return { path: join(b.archive, row!.archive_path), levelsRows: n };
}

async function levelsOf(b: Bench): Promise<number> {
  const [row] = await b.query<{ n: number }>(`SELECT count(*)::INTEGER AS n FROM levels WHERE session_date = DATE '${SESSION}'`);
  return row!.n;
}

// What these check is which files are bought and loaded, never a file's values: small chains.
const SMALL = { strikes: 4, expirations: 1 };

describe('a failed_load file is hashed again before it is loaded again', () => {
  // The state each case starts from, made once: SELECTION synced, then its newest levels file failed_load.
  let failed: BenchSnapshot;
  let stranded: { path: string; levelsRows: number };
  beforeAll(async () => {
    failed = await snapshotBench(SMALL, async (b) => {
      await b.sync(SELECTION);
      stranded = await markFailedLoad(b);
    });
  });
  afterAll(() => failed?.remove());

  it('an intact copy loads for 0 credits', async () => {
    bench = await failed.start();
    const { levelsRows } = stranded;
    const summary = await bench.sync(SELECTION);
    expect(summary).toMatchObject({ outcome: 'ok', creditsSpent: 0, filesLoaded: 1 });
    expect(await levelsOf(bench)).toBe(levelsRows);
  });

  it('a missing copy: verify reports it, the next sync downloads it again (1 credit) and loads it', async () => {
    bench = await failed.start();
    const { path, levelsRows } = stranded;
    rmSync(path);
    const report = await verifyWarehouse({ dbPath: bench.dbPath, archiveRoot: bench.archive });
    expect(report.problems.map((p) => p.kind).sort()).toEqual(['failed_load', 'missing_archive']);
    expect(report.problems.find((p) => p.kind === 'missing_archive')?.detail).toMatch(/failed_load version.*downloads it again/);
    const served = bench.emulator.counters.storageHits;
    const summary = await bench.sync(SELECTION);
    expect(summary).toMatchObject({ outcome: 'ok', creditsSpent: 1, filesLoaded: 1 });
    expect(bench.emulator.counters.storageHits - served).toBe(1);
    expect(summary.warnings).toContainEqual(expect.stringMatching(/levels failed to load before .* downloaded again \(1 credit\)/));
    expect(await levelsOf(bench)).toBe(levelsRows);
    expect((await verifyWarehouse({ dbPath: bench.dbPath, archiveRoot: bench.archive })).problems).toEqual([]);
  });

  it('a wrong copy is never loaded: deferred with no credit left, downloaded when the budget allows', async () => {
    bench = await failed.start();
    const { path, levelsRows } = stranded;
    const bytes = readFileSync(path);
    bytes[bytes.length - 5] = (bytes[bytes.length - 5] ?? 0) ^ 0x01;
    writeFileSync(path, bytes);
    const report = await verifyWarehouse({ dbPath: bench.dbPath, archiveRoot: bench.archive });
    expect(report.problems.map((p) => p.kind).sort()).toEqual(['failed_load', 'hash_mismatch']);

    const none = await bench.sync({ ...SELECTION, maxCredits: 0 });
    expect(none).toMatchObject({ creditsSpent: 0, filesLoaded: 0, filesDeferred: 1 });
    expect(none.warnings).toContainEqual(expect.stringMatching(/deferred until credits are available/));
    expect(await levelsOf(bench)).toBe(0);

    const paid = await bench.sync({ ...SELECTION, maxCredits: 5 });
    expect(paid).toMatchObject({ outcome: 'ok', creditsSpent: 1, filesLoaded: 1 });
    expect(await levelsOf(bench)).toBe(levelsRows);
  });
});

describe('a file link whose answer is lost after the server charged it', () => {
  const LOST = { where: 'api' as const, match: /deribit\/BTC\/2026-03-10\/levels$/, times: 1, action: { kind: 'drop_after_charge' as const } };

  it('is counted in the run record; with no credit left over in --max-credits it is not asked again', async () => {
    bench = await startMigratedBench(SMALL);
    bench.emulator.faults.add(LOST);
    const error = await bench.sync({ ...SELECTION, maxCredits: 9 }).catch((e: unknown) => e as { cause: unknown });
    const summary = (error as { cause: { linksLost: number; creditsSpent: number; filesLoaded: number; filesFailed: { error: string }[] } }).cause;
    expect(summary).toMatchObject({ linksLost: 1, creditsSpent: 8, filesLoaded: 8 });
    expect(summary.filesFailed[0]!.error).toMatch(/answer to the file link request was lost.*no credit left over/);
    expect(bench.emulator.counters.credits(bench.emulator.keys.pro)).toBe(9); // the server charged the lost one
    expect(bench.emulator.counters.hits(/deribit\/BTC\/2026-03-10\/levels$/)).toBe(1);
    const [run] = await bench.query<{ credits_spent: number; links_lost: number; outcome: string }>(
      `SELECT credits_spent, links_lost, outcome FROM sync.runs ORDER BY run_id DESC LIMIT 1`,
    );
    expect(run).toEqual({ credits_spent: 8, links_lost: 1, outcome: 'partial' });
  });

  it('is asked once more when --max-credits leaves a credit over, and the file loads', async () => {
    bench = await startMigratedBench(SMALL);
    bench.emulator.faults.add(LOST);
    const summary = await bench.sync({ ...SELECTION, maxCredits: 10 });
    expect(summary).toMatchObject({ outcome: 'ok', linksLost: 1, creditsSpent: 9, filesLoaded: 9 });
    expect(bench.emulator.counters.credits(bench.emulator.keys.pro)).toBe(10);
    expect(bench.emulator.counters.hits(/deribit\/BTC\/2026-03-10\/levels$/)).toBe(2);
    const [run] = await bench.query<{ links_lost: number }>(`SELECT links_lost FROM sync.runs`);
    expect(run!.links_lost).toBe(1);
  });
});
