// Reliability matrix, storage side (the presigned-link origin): 503, dropped connections, truncated,
// corrupted and mis-sized bodies, expired links and a slow-loris body. Each scenario checks that no
// partial file is archived or loaded, that the credits charged equal the files plus the retries the
// fault forced (and what gexwh recorded), and that the next run completes.
import { afterEach, describe, expect, it } from 'vitest';
import { PartialFailureError } from '../../src/errors.js';
import type { FaultAction } from '../../src/emulator/index.js';
import { consistent, inspectWarehouse } from '../helpers/invariants.js';
import { expectRecovered, ONE_PAIR, recordedCredits, syncVia } from '../helpers/reliability.js';
import { listFiles, startBench, type Bench } from '../helpers/sync.js';

let bench: Bench | undefined;
afterEach(async () => {
  await bench?.close();
  bench = undefined;
});

const open = () => startBench({ days: 2 });
const ONE_FILE = /2026-03-10\/strikes_total/;

interface Case {
  name: string;
  action: FaultAction;
  /** Times the fault fires before the storage behaves. */
  times: number;
  /** Whether the faulted run still loads every file. */
  recovers: boolean;
  /** Credits the fault forces beyond one per file. */
  forcedCredits: number;
  error?: RegExp;
}

const CASES: Case[] = [
  { name: '503 twice', action: { kind: 'status', status: 503 }, times: 2, recovers: true, forcedCredits: 0 },
  { name: '503 for good', action: { kind: 'status', status: 503 }, times: Infinity, recovers: false, forcedCredits: 1, error: /503/ },
  { name: 'connection dropped twice', action: { kind: 'drop' }, times: 2, recovers: true, forcedCredits: 0 },
  { name: 'connection dropped for good', action: { kind: 'drop' }, times: Infinity, recovers: false, forcedCredits: 1, error: /failed after/ },
  { name: 'dropped mid-body (truncated) once', action: { kind: 'truncate' }, times: 1, recovers: true, forcedCredits: 0 },
  { name: 'dropped mid-body after 10 bytes, for good', action: { kind: 'truncate', atByte: 10 }, times: Infinity, recovers: false, forcedCredits: 1, error: /failed after|ended after/ },
  { name: 'corrupted once', action: { kind: 'corrupt' }, times: 1, recovers: true, forcedCredits: 0 },
  { name: 'corrupted always', action: { kind: 'corrupt' }, times: Infinity, recovers: false, forcedCredits: 1, error: /sha256/ },
  { name: 'Content-Length too small (a short, complete-looking body) once', action: { kind: 'wrong_length', contentLength: 100 }, times: 1, recovers: true, forcedCredits: 0 },
  { name: 'Content-Length too small, always', action: { kind: 'wrong_length', contentLength: 100 }, times: Infinity, recovers: false, forcedCredits: 1, error: /size 100 bytes/ },
  // Announced larger than the manifest: handled like a corrupted body, tried again on the same link.
  { name: 'Content-Length too large once', action: { kind: 'wrong_length', contentLength: 10_000_000 }, times: 1, recovers: true, forcedCredits: 0 },
  { name: 'Content-Length too large, always', action: { kind: 'wrong_length', contentLength: 10_000_000 }, times: Infinity, recovers: false, forcedCredits: 1, error: /more than the \d+ bytes allowed/ },
];

describe('storage faults', () => {
  it.each(CASES)('$name', async ({ action, times, recovers, forcedCredits, error }) => {
    bench = await open();
    const { emulator } = bench;
    emulator.faults.add({ where: 'storage', match: ONE_FILE, times, action });
    const run = await syncVia(bench);
    expect(run.ok).toBe(recovers);
    if (!run.ok) {
      expect(run.error).toBeInstanceOf(PartialFailureError);
      expect(run.summary?.filesLoaded).toBe(5);
      expect(run.summary?.filesFailed).toEqual([expect.objectContaining({ sessionDate: '2026-03-10', file: 'strikes_total', status: 'failed_verify', error: expect.stringMatching(error!) })]);
      const archived = (await listFiles(bench.archive)).map((f) => f.split('/').pop());
      expect(archived).not.toContain('2026-03-10_strikes_total.csv.gz');
    }
    // What gexwh says it spent is what the emulator charged, the failed file's link included.
    expect(run.summary?.creditsSpent).toBe(emulator.counters.credits(emulator.keys.pro));
    expect(await recordedCredits(bench)).toBe(emulator.counters.credits(emulator.keys.pro));
    await expectRecovered(bench, { forcedCredits });
  });
});

describe('expired links', () => {
  it('a link already expired when the download starts: one new link, counted, no other waste', async () => {
    bench = await open();
    const { emulator } = bench;
    emulator.faults.add({ where: 'api', match: ONE_FILE, times: 1, action: { kind: 'expire_link' } });
    const run = await syncVia(bench);
    expect(run.ok).toBe(true);
    expect(run.ok && run.summary.creditsSpent).toBe(7);
    expect(emulator.counters.credits(emulator.keys.pro)).toBe(7);
    await expectRecovered(bench, { forcedCredits: 1 });
  });

  it('every link expired: the file fails after one renewal, never loops on credits', async () => {
    bench = await open();
    const { emulator } = bench;
    emulator.faults.add({ where: 'api', match: ONE_FILE, times: Infinity, action: { kind: 'expire_link' } });
    const run = await syncVia(bench);
    expect(run.ok).toBe(false);
    expect(emulator.counters.credits(emulator.keys.pro)).toBe(7);
    expect(await recordedCredits(bench)).toBe(7);
    await expectRecovered(bench, { forcedCredits: 2 });
  });
});

describe('a slow-loris body', () => {
  // The storage dribbles the file at 1 kB/s in 100 B chunks: never idle long enough for the body
  // timeout, so only a minimum-rate rule stops it. The client gives it 300 ms of grace.
  const slow: FaultAction = { kind: 'slow', bytesPerSecond: 1000 };
  const client = { timeouts: { bodyMs: 300, minBytesPerSecond: 8000 }, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 } };

  it('once: abandoned and fetched again on the same link, no extra credit', async () => {
    bench = await open();
    bench.emulator.faults.add({ where: 'storage', match: ONE_FILE, times: 1, action: slow });
    const started = Date.now();
    const run = await syncVia(bench, ONE_PAIR, { client });
    expect(run.ok).toBe(true);
    expect(Date.now() - started).toBeLessThan(10_000);
    await expectRecovered(bench, { forcedCredits: 0 });
  });

  it('always: the file fails with a clear error in bounded time; the rest is loaded', async () => {
    bench = await open();
    bench.emulator.faults.add({ where: 'storage', match: ONE_FILE, times: Infinity, action: slow });
    const run = await syncVia(bench, ONE_PAIR, { client });
    expect(run.ok).toBe(false);
    expect(run.summary?.filesFailed[0]?.error).toMatch(/too slow/);
    expect(await inspectWarehouse(bench.dbPath, bench.archive)).toEqual(consistent(5));
    await expectRecovered(bench, { forcedCredits: 1 });
  });
});
