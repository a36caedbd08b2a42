// Reliability matrix, storage side (the presigned-link origin): 503, dropped connections, truncated,
// corrupted and mis-sized bodies, expired links and a slow-loris body; and the local side: the archive
// disk full or not writable (the built CLI with the GEXWH_TEST_ARCHIVE_WRITE_ERROR hook). Each
// scenario checks that no partial file is archived or loaded, that the credits charged equal the
// files plus the retries the fault forced (and what gexwh recorded), and that the next run completes.
// The body faults' matrix runs one layer down, where they act: the download stage (fetchFiles) with
// the real downloader and client against the emulator, no warehouse; one case of each kind of fault
// (the one that outlasts the run) also runs as a whole sync, through the warehouse and a recovery run.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PartialFailureError } from '../../src/core/errors.js';
import type { PlannedFile } from '../../src/core/rows.js';
import { startEmulator, type Emulator, type FaultAction } from '../../emulator/index.js';
import { expectArchiveHoldsOnly, fetchStage, manifestOf } from '../helpers/fetch-stage.js';
import { consistent, inspectWarehouse } from '../helpers/invariants.js';
import { CLI_PATH, runCli, type CliResult } from '../helpers/cli.js';
import { expectRecovered, manifestFiles, ONE_PAIR, recordedCredits, syncVia } from '../helpers/reliability.js';
import { listFiles, migrateOnly, NOW, snapshotBench, startBench, type Bench, type BenchSnapshot } from '../helpers/sync.js';
import { toolOrSkip } from '../helpers/tool.js';

let bench: Bench | undefined;
let migrated: BenchSnapshot;
beforeAll(async () => {
  migrated = await snapshotBench({ days: 2 }, migrateOnly);
});
afterEach(async () => {
  await bench?.close();
  bench = undefined;
});
afterAll(() => migrated?.remove());

/** Two sessions of one pair, and a migrated empty warehouse where the faulted run opens it. */
function open(): Promise<Bench> {
  return migrated.start();
}
const ONE_FILE = /2026-03-10\/strikes_total/;
const ARCHIVE_WRITE_FAULT = fileURLToPath(new URL('../helpers/archive-write-fault.mjs', import.meta.url));

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
  {
    name: 'dropped mid-body after 10 bytes, for good',
    action: { kind: 'truncate', atByte: 10 },
    times: Infinity,
    recovers: false,
    forcedCredits: 1,
    error: /failed after|ended after/,
  },
  { name: 'corrupted once', action: { kind: 'corrupt' }, times: 1, recovers: true, forcedCredits: 0 },
  { name: 'corrupted always', action: { kind: 'corrupt' }, times: Infinity, recovers: false, forcedCredits: 1, error: /sha256/ },
  {
    name: 'Content-Length too small (a short, complete-looking body) once',
    action: { kind: 'wrong_length', contentLength: 100 },
    times: 1,
    recovers: true,
    forcedCredits: 0,
  },
  {
    name: 'Content-Length too small, always',
    action: { kind: 'wrong_length', contentLength: 100 },
    times: Infinity,
    recovers: false,
    forcedCredits: 1,
    error: /size 100 bytes/,
  },
  // Announced larger than the manifest: handled like a corrupted body, tried again on the same link.
  { name: 'Content-Length too large once', action: { kind: 'wrong_length', contentLength: 10_000_000 }, times: 1, recovers: true, forcedCredits: 0 },
  {
    name: 'Content-Length too large, always',
    action: { kind: 'wrong_length', contentLength: 10_000_000 },
    times: Infinity,
    recovers: false,
    forcedCredits: 1,
    error: /more than the \d+ bytes allowed/,
  },
];

describe('storage faults at the download stage (the real downloader and client, no warehouse)', () => {
  // One emulator for the matrix (the bench's market: deribit BTC, two sessions, 6 files); each case
  // has its own archive folder and counts the credits it made the emulator charge.
  let emulator: Emulator;
  let root: string;
  let files: PlannedFile[];
  beforeAll(async () => {
    emulator = await startEmulator({ now: NOW, days: 2, expirations: 3, strikes: 12, seed: 11, symbols: ['BTC', 'SPY'] });
    root = mkdtempSync(join(tmpdir(), 'gexwh-storage-faults-'));
    files = await manifestOf(emulator);
    expect(files).toHaveLength(6);
  });
  afterEach(() => emulator?.faults.clear());
  afterAll(async () => {
    await emulator?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it.each(CASES)('$name', async ({ action, times, recovers, forcedCredits, error }) => {
    const archive = mkdtempSync(join(root, 'raw-'));
    const credits = () => emulator.counters.credits(emulator.keys.pro);
    const before = credits();
    emulator.faults.add({ where: 'storage', match: ONE_FILE, times, action });
    const report = await fetchStage(emulator, archive, files);
    // What the stage says it spent is what the emulator charged, the failed file's link included.
    expect(report.creditsSpent).toBe(credits() - before);
    expect(report.creditsSpent).toBe(files.length);
    if (recovers) {
      expect(report.failed).toEqual([]);
      expect(report.verified).toHaveLength(files.length);
    } else {
      expect(report.verified).toHaveLength(files.length - 1);
      expect(report.failed).toEqual([
        expect.objectContaining({ sessionDate: '2026-03-10', file: 'strikes_total', status: 'failed_verify', error: expect.stringMatching(error!) }),
      ]);
    }
    await expectArchiveHoldsOnly(archive, report);

    // The next run, the fault gone: the failed file is fetched once more and every file is archived;
    // the credits are one per file plus what the fault forced.
    emulator.faults.clear();
    const next = await fetchStage(emulator, archive, report.failed);
    expect(next.failed).toEqual([]);
    expect(next.verified).toHaveLength(report.failed.length);
    expect(await listFiles(archive)).toHaveLength(files.length);
    expect(credits() - before).toBe(files.length + forcedCredits);
  });
});

describe('storage faults through a whole sync: one of each kind, the one that outlasts the run', () => {
  // All of them in one run, each on its own file of a three-session history (9 files, small chains):
  // each faulted file fails with its own error, the others load, and one recovery run ends them.
  const outlasting = CASES.filter((c) => c.times === Infinity);
  it(`${outlasting.map((c) => c.name).join('; ')}; every link expired: each on its own file of one run, that file fails with its error and is not archived, the rest load; the next run completes`, async () => {
    bench = await startBench({ days: 3, strikes: 4, expirations: 1, symbols: ['BTC'] });
    const { emulator } = bench;
    const targets = await manifestOf(emulator);
    expect(targets).toHaveLength(9);
    const faulted = outlasting.map((c, i) => ({ ...c, target: targets[i]! }));
    for (const { target, times, action } of faulted) {
      emulator.faults.add({ where: 'storage', match: new RegExp(`/${target.sessionDate}/${target.file}\\.csv\\.gz`), times, action });
    }
    // And on another file every link comes back expired: it fails after one renewal, never loops on credits.
    const expiring = targets[faulted.length]!;
    emulator.faults.add({ where: 'api', match: new RegExp(`/${expiring.sessionDate}/${expiring.file}$`), times: Infinity, action: { kind: 'expire_link' } });
    const run = await syncVia(bench);
    expect(run.ok).toBe(false);
    expect((run as { error: unknown }).error).toBeInstanceOf(PartialFailureError);
    expect(run.summary?.filesLoaded).toBe(targets.length - faulted.length - 1);
    expect(run.summary?.filesFailed).toHaveLength(faulted.length + 1);
    expect(run.summary?.filesFailed).toContainEqual(expect.objectContaining({ sessionDate: expiring.sessionDate, file: expiring.file }));
    // One credit per file, and one renewal of the expired link.
    expect(emulator.counters.credits(emulator.keys.pro)).toBe(targets.length + 1);
    const archived = (await listFiles(bench.archive)).map((f) => f.split('/').pop());
    for (const { name, target, error } of faulted) {
      expect(run.summary?.filesFailed, name).toContainEqual(
        expect.objectContaining({ sessionDate: target.sessionDate, file: target.file, status: 'failed_verify', error: expect.stringMatching(error!) }),
      );
      expect(archived, name).not.toContain(`${target.sessionDate}_${target.file}.csv.gz`);
    }
    // What gexwh says it spent is what the emulator charged, the failed files' links included.
    expect(run.summary?.creditsSpent).toBe(emulator.counters.credits(emulator.keys.pro));
    expect(await recordedCredits(bench)).toBe(emulator.counters.credits(emulator.keys.pro));
    // Each failed file is paid again by the recovery; the expired one also paid its renewal.
    await expectRecovered(bench, { forcedCredits: faulted.reduce((sum, c) => sum + c.forcedCredits, 0) + 2 });
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
  // Every link expired (the file fails after one renewal, never loops on credits): in the run above.
});

describe('a slow-loris body', () => {
  // The storage dribbles the file at 1 kB/s in 100 B chunks: never idle long enough for the body
  // timeout, so only a minimum-rate rule stops it. The client gives it 300 ms of grace.
  const slow: FaultAction = { kind: 'slow', bytesPerSecond: 1000 };
  const client = { timeouts: { bodyMs: 300, minBytesPerSecond: 8000 }, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 } };

  it('once: abandoned and fetched again on the same link, no extra credit', async () => {
    bench = await open();
    bench.emulator.faults.add({ where: 'storage', match: ONE_FILE, times: 1, action: slow });
    const hitsBefore = bench.emulator.counters.storageHits;
    const run = await syncVia(bench, ONE_PAIR, { client });
    expect(run.ok).toBe(true);
    // Abandoned, not waited out: the slow file was fetched a second time (waited out, it would have
    // been fetched once, slowly).
    expect(bench.emulator.counters.storageHits - hitsBefore).toBe(run.summary!.filesLoaded + 1);
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

describe('the archive disk full or not writable (built CLI, write-error hook)', () => {
  // A real full disk or read-only mount needs privileges CI does not have; the hook makes the archive
  // writes after the Nth fail with a real errno error, as the file system would
  // (test/helpers/archive-write-fault.mjs, loaded with node --import).
  const cli = (b: Bench, extra: string[], fault?: string) =>
    runCli(['sync', '--db', b.dbPath, '--archive', b.archive, '--exchange', 'deribit', '--symbol', 'BTC', ...extra], {
      env: {
        GEX_BASE_URL: b.emulator.baseUrl,
        GEX_API_KEY: b.emulator.keys.pro,
        // The fault is loaded into the CLI by the test's own module; gexwh reads no test variable.
        ...(fault === undefined ? {} : { NODE_OPTIONS: `--import ${ARCHIVE_WRITE_FAULT}`, GEXWH_TEST_ARCHIVE_WRITE_ERROR: fault }),
      },
    });
  const archivedNames = async (b: Bench) => (await listFiles(b.archive)).map((f) => f.split('/').pop()!);

  /**
   * The run after the fault, without it: completes, every file once, credits = files + what the fault
   * cost. In-process: only the faulted run needs the CLI (its hook and exit code).
   */
  async function expectCompletedAfter(b: Bench, fault: { charged: number; archived: number }): Promise<void> {
    const next = await syncVia(b);
    expect(next.ok, next.ok ? '' : String(next.error)).toBe(true);
    const files = await manifestFiles(b);
    expect(await inspectWarehouse(b.dbPath, b.archive)).toEqual(consistent(files));
    // The only extra credits are the links of the files whose write failed (paid, never archived).
    expect(b.emulator.counters.credits(b.emulator.keys.pro)).toBe(files + fault.charged - fault.archived);
    expect(await recordedCredits(b)).toBe(b.emulator.counters.credits(b.emulator.keys.pro));
  }

  it('disk full after 2 files: exit 4, says so and how many were deferred, 2 files archived for 3 credits, the next run completes', async () => {
    bench = await open();
    const b = bench;
    const run = await cli(b, ['--concurrency', '1'], 'ENOSPC:after=2');
    expect(run.code, run.stderr).toBe(4);
    expect(run.stdout).toMatch(
      /the archive could not be written \(ENOSPC: no space left on device, write '[^']+'\); downloads stopped, 3 files deferred to the next run/,
    );
    expect(run.stdout).toMatch(/failed_verify: deribit\/BTC \S+ \S+: the archive could not be written: ENOSPC/);
    expect(run.stdout).toMatch(/3 deferred to the next run \(the archive could not be written\)/);
    expect(run.stderr).toMatch(/the archive could not be written \(ENOSPC[^)]*\); 3 file\(s\) deferred to the next run; everything else was committed/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    // Credits: the 2 archived files and the 1 in flight when the disk filled; nothing asked after it.
    expect(b.emulator.counters.credits(b.emulator.keys.pro)).toBe(3);
    expect(await recordedCredits(b)).toBe(3);
    const names = await archivedNames(b);
    expect(names).toHaveLength(2);
    expect(names.filter((n) => n.endsWith('.part'))).toEqual([]);
    expect(await inspectWarehouse(b.dbPath, b.archive)).toEqual(consistent(2));
    const statuses = await b.query<{ status: string; n: number }>(`SELECT status, count(*)::INT n FROM sync.files GROUP BY status ORDER BY status`);
    expect(statuses).toEqual([
      { status: 'failed_verify', n: 1 },
      { status: 'loaded', n: 2 },
    ]);
    await expectCompletedAfter(b, { charged: 3, archived: 2 });
  });

  it.each([
    { code: 'EROFS', what: 'read-only', after: 0 },
    { code: 'EACCES', what: 'permission denied', after: 1 },
  ])(
    'archive not writable ($code after $after), 4 downloads in parallel: exit 4, nothing half-written, at most the 4 in flight paid',
    async ({ code, after }) => {
      bench = await open();
      const b = bench;
      const run = await cli(b, ['--concurrency', '4'], `${code}:after=${after}`);
      expect(run.code, run.stderr).toBe(4);
      expect(run.stdout).toMatch(new RegExp(`the archive could not be written \\(${code}: .*\\); downloads stopped, \\d+ files deferred`));
      const charged = b.emulator.counters.credits(b.emulator.keys.pro);
      expect(await recordedCredits(b)).toBe(charged);
      // The downloads in flight when the first write failed finish their attempt; no new link after it.
      expect(charged).toBeGreaterThan(after);
      expect(charged).toBeLessThanOrEqual(after + 4);
      expect(await archivedNames(b)).toHaveLength(after);
      expect(await inspectWarehouse(b.dbPath, b.archive)).toEqual(consistent(after));
      await expectCompletedAfter(b, { charged, archived: after });
    },
  );
});

// The same fault for real where the machine allows it: the archive folder bind-mounted read-only in
// a user and mount namespace (`unshare -rm`). Stock CI containers forbid that, hence the hook above.
const READ_ONLY_PROBE = `d=$(mktemp -d) && mount --bind "$d" "$d" && mount -o remount,bind,ro "$d" && ! touch "$d/x" 2>/dev/null`;
const canMountReadOnly = toolOrSkip(
  process.platform === 'linux' && spawnSync('unshare', ['-rm', 'sh', '-c', READ_ONLY_PROBE]).status === 0,
  'a read-only bind mount in a user namespace (unshare -rm)',
  'util-linux unshare and unprivileged user namespaces',
);

describe.skipIf(!canMountReadOnly)('a really read-only archive (unshare -rm, bind mount ro)', () => {
  /** The built CLI with `folder` mounted read-only for it alone. */
  function syncOnReadOnly(b: Bench, folder: string): Promise<CliResult> {
    const script = 'a=$1; shift; mount --bind "$a" "$a" && mount -o remount,bind,ro "$a" && exec "$@"';
    const args = ['sync', '--db', b.dbPath, '--archive', b.archive, '--exchange', 'deribit', '--symbol', 'BTC'];
    const env = { ...process.env, GEX_BASE_URL: b.emulator.baseUrl, GEX_API_KEY: b.emulator.keys.pro };
    return new Promise((resolve, reject) => {
      const child = spawn('unshare', ['-rm', 'sh', '-c', script, 'sh', folder, process.execPath, CLI_PATH, ...args], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    });
  }

  it('EROFS from the kernel, the archive empty: exit 4, no credit spent (its folder fails before a link is asked), the next run completes', async () => {
    bench = await open();
    const b = bench;
    mkdirSync(b.archive, { recursive: true });
    const run = await syncOnReadOnly(b, b.archive);
    expect(run.code, run.stderr).toBe(4);
    expect(run.stdout).toMatch(/the archive could not be written \(EROFS: read-only file system, mkdir '[^']+'\); downloads stopped, \d+ files deferred/);
    expect(b.emulator.counters.credits(b.emulator.keys.pro)).toBe(0);
    expect(await listFiles(b.archive)).toEqual([]);
    expect(await inspectWarehouse(b.dbPath, b.archive)).toEqual(consistent(0));
    await expectRecovered(b, { forcedCredits: 0 });
  });

  it('EROFS from the kernel, the folders already there: the spend log cannot be written, so no link is paid; the next run completes', async () => {
    bench = await open();
    const b = bench;
    mkdirSync(`${b.archive}/deribit/BTC`, { recursive: true });
    const run = await syncOnReadOnly(b, b.archive);
    expect(run.code, run.stderr).toBe(4);
    // Each paid link is written down before its download, so a read-only archive stops the run
    // before the first link (it used to fail at the first temp file, after up to 4 links were paid).
    expect(run.stdout).toMatch(
      /the archive could not be written \(EROFS: read-only file system, mkdir '[^']+_journal'\); downloads stopped, \d+ files deferred/,
    );
    expect(b.emulator.counters.credits(b.emulator.keys.pro)).toBe(0);
    expect(await recordedCredits(b)).toBe(0);
    expect(await listFiles(b.archive)).toEqual([]);
    await expectRecovered(b, { forcedCredits: 0 });
  });
});
