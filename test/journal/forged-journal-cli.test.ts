// A journal's listing and file entry are claims anyone who can write the archive can make. The
// reproduction through the CLI: a forged copy of a loaded file (every spot 999999) with a journal
// listing and a file entry that both claim its sha256 used to load, and verify then reported 0
// problems. Now the claims are checked against the API's manifest whenever a key is configured (one
// listing request, no credit); without a key the journal's files wait, and load only with
// --trust-journal, marked unconfirmed, which verify names until a run with a key checks them.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { emptyJournal } from '../../src/journal/journal.js';
import { writeJournalPackages } from '../../src/journal/package-write.js';
import { relativeArchivePath, relativePendingPath } from '../../src/core/archive/layout.js';
import { runCliInProcess } from '../helpers/cli.js';
import { snapshotBench, type Bench, type BenchSnapshot } from '../helpers/sync.js';

const DAY = '2026-03-10';
const key = { exchange: 'deribit', symbol: 'BTC', sessionDate: DAY, file: 'levels' as const };

let snapshot: BenchSnapshot;
let bench: Bench;
let local: string[];
beforeAll(async () => {
  snapshot = await snapshotBench({}, async (b) => {
    await b.sync({ exchange: ['deribit'], symbol: ['BTC'], files: ['levels'] });
  });
}, 120_000);
afterAll(() => snapshot.remove());
beforeEach(async () => {
  await bench?.close().catch(() => undefined);
  bench = await snapshot.start();
  local = ['--db', bench.dbPath, '--archive', bench.archive];
});
afterAll(() => bench?.close());

/** A copy of the day's levels file with every spot 999999, placed as a newer version, and a journal claiming it. */
async function plant(): Promise<string> {
  const real = readFileSync(join(bench.archive, relativeArchivePath(key)));
  const lines = gunzipSync(real).toString('utf8').trimEnd().split('\n');
  const spot = lines[0]!.split(',').indexOf('spot');
  const forged = gzipSync(
    [
      lines[0],
      ...lines.slice(1).map((line) =>
        line
          .split(',')
          .map((value, i) => (i === spot ? '999999' : value))
          .join(','),
      ),
    ].join('\n') + '\n',
  );
  const sha256 = createHash('sha256').update(forged).digest('hex');
  const relative = relativePendingPath(key, sha256);
  mkdirSync(dirname(join(bench.archive, relative)), { recursive: true });
  writeFileSync(join(bench.archive, relative), forged);
  const rows = lines.length - 1;
  const listedAt = '2026-03-11T14:00:00.000Z';
  await writeJournalPackages(bench.archive, {
    ...emptyJournal(),
    listings: [
      { exchange: 'deribit', symbol: 'BTC', listedAt, rows: [{ session_date: DAY, file: 'levels', rows, bytes: forged.length, sha256, schema_version: 1 }] },
    ],
    files: [{ ...key, sha256, bytes: forged.length, rows, archivePath: relative, downloadedAt: listedAt }],
  });
  return sha256;
}

const maxSpot = async () => (await bench.query<{ m: number }>(`SELECT max(spot)::DOUBLE m FROM levels WHERE session_date = DATE '${DAY}'`))[0]!.m;

describe('a forged journal listing and file claiming the same sha256', () => {
  it('with a key configured: checked against the API manifest, refused, never loaded; one listing request, no credit', async () => {
    const sha = await plant();
    const before = { credits: bench.emulator.counters.credits(bench.emulator.keys.pro), requests: bench.emulator.counters.requests(bench.emulator.keys.pro) };
    const load = await runCliInProcess(['load', ...local, '--base-url', bench.emulator.baseUrl, '--json'], { env: { GEX_API_KEY: bench.emulator.keys.pro } });
    expect(load.stderr).toBe('');
    const result = JSON.parse(load.stdout) as { files_loaded: number; warnings: string[] };
    expect(result.files_loaded).toBe(0);
    expect(result.warnings.join('\n')).toContain(`sha256 ${sha}`);
    expect(result.warnings.join('\n')).toContain("the API's manifest");
    expect(await maxSpot()).toBeLessThan(999_999);
    expect(bench.emulator.counters.credits(bench.emulator.keys.pro)).toBe(before.credits);
    expect(bench.emulator.counters.requests(bench.emulator.keys.pro)).toBe(before.requests + 1);
    const verify = await runCliInProcess(['verify', ...local]);
    expect(verify.code).toBe(0);
  });

  it('with no key: not loaded; it waits, and the note says how to check it or trust it', async () => {
    await plant();
    const load = await runCliInProcess(['load', ...local, '--json']);
    expect(load.code).toBe(0);
    const result = JSON.parse(load.stdout) as { files_loaded: number; warnings: string[] };
    expect(result.files_loaded).toBe(0);
    expect(result.warnings.join('\n')).toContain('--trust-journal');
    expect(await maxSpot()).toBeLessThan(999_999);
    const status = await runCliInProcess(['status', ...local, '--json'], { env: { GEX_BASE_URL: 'http://127.0.0.1:9' } });
    expect((JSON.parse(status.stdout) as { waiting_to_load: { files: number } }).waiting_to_load.files).toBe(1);
  });

  it('with --trust-journal and no key: loaded, marked unconfirmed, and verify says so (exit 4) until a run with a key checks it', async () => {
    const sha = await plant();
    const load = await runCliInProcess(['load', ...local, '--trust-journal', '--json']);
    expect(load.code).toBe(0);
    expect((JSON.parse(load.stdout) as { files_loaded: number }).files_loaded).toBe(1);
    expect(await maxSpot()).toBe(999_999);
    const verify = await runCliInProcess(['verify', ...local, '--json']);
    expect(verify.code).toBe(4);
    const problems = (JSON.parse(verify.stdout) as { problems: { kind: string; detail: string }[] }).problems;
    expect(problems).toEqual([expect.objectContaining({ kind: 'unconfirmed' })]);
    expect(problems[0]!.detail).toContain(sha);
    // A run with a key checks it: the API lists another sha256, so the manifest gets the API's row
    // and verify names the loaded version as not the manifest's (the next sync replaces it).
    const check = await runCliInProcess(['load', ...local, '--base-url', bench.emulator.baseUrl, '--json'], { env: { GEX_API_KEY: bench.emulator.keys.pro } });
    expect(check.code).toBe(0);
    expect((JSON.parse(check.stdout) as { warnings: string[] }).warnings.join('\n')).toContain(`not the API's version`);
    const after = await runCliInProcess(['verify', ...local, '--json']);
    const kinds = (JSON.parse(after.stdout) as { problems: { kind: string }[] }).problems.map((p) => p.kind);
    expect(kinds).toContain('manifest_mismatch');
    expect(kinds).not.toContain('unconfirmed');
  });

  it('a journal run claiming 999,999 credits with no spend record: stored with 0, the claim refused with a warning', async () => {
    await writeJournalPackages(bench.archive, {
      ...emptyJournal(),
      runs: [
        {
          command: 'sync',
          options: {},
          startedAt: '2026-03-11T01:00:00.000Z',
          finishedAt: '2026-03-11T01:05:00.000Z',
          outcome: 'locked',
          creditsSpent: 999_999,
          requestsSpent: 1,
          filesPlanned: 0,
          filesLoaded: 0,
          filesFailed: 0,
          filesDeferred: 0,
          rowsLoaded: 0,
          bytesDownloaded: 0,
          error: null,
        },
      ],
    });
    const load = await runCliInProcess(['load', ...local, '--json']);
    expect(load.code).toBe(0);
    expect((JSON.parse(load.stdout) as { warnings: string[] }).warnings.join('\n')).toContain('claims 999999 credit(s), but its spend log recorded 0');
    const runs = await bench.query<{ c: number }>(`SELECT credits_spent::INT c FROM sync.runs WHERE started_at = TIMESTAMPTZ '2026-03-11T01:00:00Z'`);
    expect(runs).toEqual([{ c: 0 }]);
  });
});
