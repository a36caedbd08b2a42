// `npm run build && npm run bench:query`: gexwh query's streaming and cancel, on the built CLI as a
// user runs it (Node's start-up counts). Two figures, BENCH_RUNS runs each (default 5), medians with
// min–max:
// - a 20-million-row CSV (`SELECT i, i*2 AS j FROM range(20000000)`, BENCH_QUERY_ROWS to change)
//   to a pipe this process drains and counts: wall time, bytes, and the child's peak RSS (its own
//   VmHWM, Node and DuckDB's native memory together);
// - the cancel latency: an endless count, SIGINT once --verbose says the statement runs, then the
//   milliseconds from the signal to the child's exit (exit 130 checked).
// Figures go to stdout as markdown, and to BENCH_OUT as well when set.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openWarehouse } from '../src/warehouse/open.js';
import { CLI_PATH } from './gexwh.js';
import { fmtMb, formatSample, median, table } from './stats.js';

const RSS_PRELOAD = join(fileURLToPath(new URL('.', import.meta.url)), 'rss-preload.js');
const ENDLESS = 'SELECT count(*) FROM range(100000000000) t(i) WHERE i % 7 = 3';

interface StreamRun {
  ms: number;
  bytes: number;
  lines: number;
  peakRss: number;
}

function positive(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

/** The CSV of `rows` rows to a pipe that is only counted, never held. */
function streamCsv(db: string, rows: number): Promise<StreamRun> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(
      process.execPath,
      ['--import', RSS_PRELOAD, CLI_PATH, 'query', '--db', db, '--format', 'csv', `SELECT i, i * 2 AS j FROM range(${rows}) t(i)`],
      {
        stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      },
    );
    let bytes = 0;
    let lines = 0;
    let rss = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      for (const byte of chunk) if (byte === 10) lines++;
    });
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdio[3]!.on('data', (chunk: Buffer) => (rss += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`query exited ${code}: ${stderr}`));
      resolve({ ms: performance.now() - start, bytes, lines, peakRss: Number(rss.trim()) * 1024 });
    });
  });
}

/** Milliseconds from SIGINT, sent once the statement runs, to the child's exit. */
function cancelLatency(db: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_PATH, 'query', '--db', db, '--verbose', ENDLESS], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let sentAt: number | undefined;
    const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (sentAt === undefined && /the statement is running/.test(stderr)) {
        sentAt = performance.now();
        child.kill('SIGINT');
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(guard);
      if (code !== 130 || sentAt === undefined) return reject(new Error(`cancel: exit ${code}: ${stderr}`));
      resolve(performance.now() - sentAt);
    });
  });
}

async function main(): Promise<void> {
  const runs = positive('BENCH_RUNS', 5);
  const rows = positive('BENCH_QUERY_ROWS', 20_000_000);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const dir = mkdtempSync(join(tmpdir(), 'gexwh-bench-query-'));
  try {
    const db = join(dir, 'gex.duckdb');
    (await openWarehouse(db)).close();
    const streams: StreamRun[] = [];
    const cancels: number[] = [];
    // Interleaved, so a burst of load on a shared machine touches both kinds alike.
    for (let run = 1; run <= runs; run++) {
      const stream = await streamCsv(db, rows);
      if (stream.lines !== rows + 1) throw new Error(`expected ${rows + 1} lines, got ${stream.lines}`);
      streams.push(stream);
      cancels.push(await cancelLatency(db));
      log(`run ${run}/${runs}: ${Math.round(stream.ms)} ms, ${fmtMb(stream.peakRss)} peak; cancel ${Math.round(cancels.at(-1)!)} ms`);
    }
    const rss = streams.map((s) => s.peakRss);
    const section = [
      `## gexwh query: streaming and cancel — ${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores, ${fmtMb(totalmem())} RAM, Node ${process.version}, ${runs} runs`,
      '',
      table(
        ['case', 'median (min–max)'],
        [
          [`CSV of ${rows.toLocaleString('en-US')} rows to a pipe: wall time`, formatSample(streams.map((s) => s.ms))],
          [`the same: peak RSS of the gexwh process`, `${fmtMb(median(rss))} (${fmtMb(Math.min(...rss))}–${fmtMb(Math.max(...rss))})`],
          [`the same: bytes written`, `${streams[0]!.bytes.toLocaleString('en-US')}`],
          ['SIGINT to exit, an endless statement running', formatSample(cancels)],
        ],
      ),
    ].join('\n');
    process.stdout.write(`\n${section}\n`);
    if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, `${section}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
