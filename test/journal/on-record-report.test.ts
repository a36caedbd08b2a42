// `report` reads what the archive holds on record as `status` does: right after a sync stopped hard
// (a second Ctrl-C, kill -9) its row in sync.runs is still open with 0 credits and its paid files are
// only in its spend log; both commands show every paid file as waiting and its credits as spent.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSpendLog } from '../../src/journal/spend-log.js';
import { creditsOnRecord } from '../../src/journal/on-record.js';
import { openWarehouse, startRun } from '../../src/warehouse/index.js';
import type { VerifiedFile } from '../../src/core/rows.js';
import { runCliInProcess } from '../helpers/cli.js';
import { startBench, type Bench } from '../helpers/sync.js';

let bench: Bench;
let dir: string;
let local: string[];
beforeAll(async () => {
  bench = await startBench();
  await bench.sync({ exchange: ['deribit'], symbol: ['BTC'], files: ['levels'] });
  dir = bench.dir;
  const db = bench.dbPath;
  const archive = bench.archive;
  local = ['--db', db, '--archive', archive];
  const credits = (await bench.query<{ c: number }>('SELECT sum(credits_spent)::INT c FROM sync.runs'))[0]!.c;
  expect(credits).toBe(3);
  const warehouse = await openWarehouse(db);
  const startedAt = new Date();
  const runId = await startRun(warehouse.connection, { command: 'sync', options: {}, startedAt });
  warehouse.close();
  // What a sync killed mid-run leaves: its open row, and its log with 3 credits and 2 paid files.
  const log = openSpendLog(archive, { command: 'sync', options: {}, startedAt, runId });
  for (let i = 0; i < 3; i++) await log.credit(1);
  await log.archived(file(archive, '2026-03-09'));
  await log.archived(file(archive, '2026-03-10'));
}, 120_000);
afterAll(() => bench.close());

function file(archive: string, date: string): VerifiedFile {
  return {
    exchange: 'deribit',
    symbol: 'BTC',
    sessionDate: date,
    file: 'levels',
    sha256: 'a'.repeat(64),
    bytes: 100,
    rows: 10,
    schemaVersion: 1,
    archivePath: join(archive, 'deribit', 'BTC', `${date}_levels.csv.gz`),
    downloadedAt: new Date(),
    fromArchive: false,
  };
}

describe('right after a sync stopped hard', () => {
  it('report lists its paid files as waiting and counts its credits as spent, as status does', async () => {
    const out = join(dir, 'report.html');
    const report = await runCliInProcess(['report', ...local, '--out', out]);
    expect(report.code, report.stderr).toBe(0);
    const html = readFileSync(out, 'utf8');
    // 3 by the finished sync, 3 by the one stopped hard.
    expect(html).toContain('credits spent by all recorded runs: 6</p>');
    expect(html).toContain('2 paid file(s) waiting to load, 3 credit(s) of runs without a finished record');

    const status = await runCliInProcess(['status', ...local, '--json'], { env: { GEX_BASE_URL: 'http://127.0.0.1:9' } });
    const shown = JSON.parse(status.stdout) as { waiting_to_load: { files: number }; credits_spent: { all_runs: number } };
    expect(shown.waiting_to_load.files).toBe(2);
    expect(shown.credits_spent.all_runs).toBe(6);
  });
});

describe('creditsOnRecord', () => {
  const stopped = { files: 2, bytes: 200, credits: 3, startedAt: '2026-03-11T00:30:00.000Z', log: 'x' };
  it("counts a stopped run's logged credits once: in its open row when the warehouse has one, else as not recorded", () => {
    const recorded = { allRuns: 10, sinceMidnightUtc: 4 };
    expect(creditsOnRecord(recorded, { runs: [], stopped: { ...stopped, runId: 7 } }, '2026-03-11')).toEqual({
      allRuns: 13,
      sinceMidnightUtc: 7,
      inJournal: 0,
    });
    expect(creditsOnRecord(recorded, { runs: [], stopped: { ...stopped, runId: null } }, '2026-03-11')).toEqual({
      allRuns: 10,
      sinceMidnightUtc: 4,
      inJournal: 3,
    });
    expect(creditsOnRecord(undefined, { runs: [{ creditsSpent: 5 } as never], stopped: undefined })).toEqual({
      allRuns: null,
      sinceMidnightUtc: null,
      inJournal: 5,
    });
  });
});
