// gexwh query as a process: SIGINT and SIGTERM stop a running statement through DuckDB's interrupt
// (exit 130/143, "query cancelled"), the first rows of a large result reach a pipe while the
// statement still runs, and a result larger than the V8 heap streams through a 64 MB heap. Through
// the built CLI: signals, pipes and heap limits need a real process. No timing is asserted but a
// generous bound on how long a stopped process may take to go (10 s; it takes a fraction of a second).
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWarehouse } from '../../src/warehouse/open.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../warehouse/fixtures.js';

/** Hours of work for two cores: it ends only when cancelled. */
const ENDLESS_COUNT = 'SELECT count(*) FROM range(100000000000) t(i) WHERE i % 7 = 3';
/** Ten billion rows: the output never ends on its own either. */
const ENDLESS_ROWS = 'SELECT i FROM range(10000000000) t(i)';
/** Stopped processes must be gone well within this; a process still running is killed and fails the test. */
const GONE_WITHIN_MS = 10_000;

let dir: string;
let cleanup: () => void;
let db: string;

beforeAll(async () => {
  ({ dir, cleanup } = makeTempDir());
  db = join(dir, 'gex.duckdb');
  (await openWarehouse(db)).close();
});
afterAll(() => cleanup());

/**
 * Sends `signal` once `ready` matches the child's output; kills it if it is not gone GONE_WITHIN_MS
 * later, or if it never got ready (no child outlives its test).
 */
function signalWhen(ready: (out: { stdout: string; stderr: string }) => boolean, signal: NodeJS.Signals, sent: { at?: number; stdout?: string }) {
  return (child: ChildProcess) => {
    const guard = setTimeout(() => child.kill('SIGKILL'), 40_000);
    child.on('exit', () => clearTimeout(guard));
    const seen = { stdout: '', stderr: '' };
    const check = () => {
      if (sent.at !== undefined || !ready(seen)) return;
      sent.at = Date.now();
      sent.stdout = seen.stdout;
      child.kill(signal);
      setTimeout(() => child.kill('SIGKILL'), GONE_WITHIN_MS).unref();
    };
    child.stdout!.on('data', (chunk: Buffer) => {
      if (seen.stdout.length < 100_000) seen.stdout += chunk.toString('utf8');
      check();
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      seen.stderr += chunk.toString('utf8');
      check();
    });
  };
}

const running = (out: { stderr: string }) => /the statement is running/.test(out.stderr);

describe('a signal cancels the running statement', () => {
  it.each([
    { signal: 'SIGINT' as const, code: 130 },
    { signal: 'SIGTERM' as const, code: 143 },
  ])(
    '$signal: exit $code, "query cancelled", the process gone',
    async ({ signal, code }) => {
      const sent: { at?: number } = {};
      const result = await runCli(['query', '--db', db, '--verbose', ENDLESS_COUNT], { cwd: dir, onSpawn: signalWhen(running, signal, sent) });
      const goneAfterMs = Date.now() - sent.at!;
      expect(result.signal, result.stderr).toBeNull();
      expect(result.code, result.stderr).toBe(code);
      expect(result.stderr).toMatch(new RegExp(`^error: query cancelled \\(${signal}\\)$`, 'm'));
      expect(result.stdout).toBe('');
      expect(goneAfterMs).toBeLessThan(GONE_WITHIN_MS);
    },
    60_000,
  );
});

describe('results stream', () => {
  it('the first rows of an endless result reach the pipe while the statement runs; Ctrl-C then stops it', async () => {
    const sent: { at?: number; stdout?: string } = {};
    const hasRows = (out: { stdout: string }) => out.stdout.split('\n').length > 1000;
    const result = await runCli(['query', '--db', db, '--format', 'csv', ENDLESS_ROWS], { cwd: dir, onSpawn: signalWhen(hasRows, 'SIGINT', sent) });
    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr).toMatch(/^error: query cancelled \(SIGINT\)$/m);
    expect(sent.stdout!.startsWith('i\n0\n1\n2\n3\n')).toBe(true);
    expect(Date.now() - sent.at!).toBeLessThan(GONE_WITHIN_MS);
  }, 60_000);

  // Held whole, half a million rows overflow a 64 MB heap (the old query aborted with "heap out of
  // memory"; so does writeRows changed to gather every batch before writing); streamed, one chunk at
  // a time is in memory.
  const ROWS = 500_000;
  it.each([
    ['csv', (text: string) => text.split('\n')[ROWS], `${ROWS - 1},${2 * (ROWS - 1)}`],
    ['jsonl', (text: string) => text.split('\n')[ROWS - 1], `{"i":${ROWS - 1},"j":${2 * (ROWS - 1)}}`],
  ] as const)(
    '%s: half a million rows through a 64 MB V8 heap, every row written',
    async (format, last, expected) => {
      const result = await runCli(['query', '--db', db, '--format', format, `SELECT i, i * 2 AS j FROM range(${ROWS}) t(i)`], {
        cwd: dir,
        env: { NODE_OPTIONS: '--max-old-space-size=64' },
      });
      expect(result.code, result.stderr.slice(0, 2000)).toBe(0);
      expect(last(result.stdout)).toBe(expected);
      expect(result.stdout.endsWith(`${expected}\n`)).toBe(true);
    },
    120_000,
  );
});
