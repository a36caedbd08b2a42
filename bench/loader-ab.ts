// The loader of two builds, A/B: `npm run build && node dist/bench/loader-ab.js --before <repo> --after <repo>
// --ledger <gex.duckdb> --archive <raw> [--pairs 5]`. Each run loads every file the ledger lists (from
// the archive) into a fresh warehouse with that build's own `loadFiles`, in its own process; runs
// alternate before/after, and the medians of wall and CPU time are printed with their ratios. This is
// how a loader change is held to "within 5%" when whole syncs vary too much to show it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { median } from './stats.js';

interface Sample {
  wallMs: number;
  cpuMs: number;
  rows: number;
}

type LoadFiles = (conn: unknown, inputs: unknown[], options: object) => Promise<{ rowsLoaded: number }>;
type OpenWarehouse = (path: string) => Promise<{ connection: unknown; close(): void }>;

/** One load with the build under `repo`: every ledger file into a fresh warehouse. */
async function runOnce(repo: string, ledger: string, archive: string): Promise<Sample> {
  const warehouse = join(repo, 'dist/src/warehouse');
  const { openWarehouse } = (await import(join(warehouse, 'open.js'))) as { openWarehouse: OpenWarehouse };
  const { loadFiles } = (await import(join(warehouse, 'loader.js'))) as { loadFiles: LoadFiles };
  const source = await (await DuckDBInstance.create(ledger, { access_mode: 'READ_ONLY' })).connect();
  const rows = (await (
    await source.run(
      `SELECT exchange, symbol, CAST(session_date AS VARCHAR) AS d, file, sha256, bytes, rows, archive_path FROM sync.files WHERE status = 'loaded'`,
    )
  ).getRowObjectsJson()) as Array<Record<string, string>>;
  const inputs = rows.map((r) => ({
    exchange: r.exchange,
    symbol: r.symbol,
    sessionDate: r.d,
    file: r.file,
    sha256: r.sha256,
    bytes: Number(r.bytes),
    rows: Number(r.rows),
    archivePath: r.archive_path,
    path: join(archive, r.archive_path ?? ''),
    downloadedAt: new Date(),
  }));
  const dir = mkdtempSync(join(tmpdir(), 'gexwh-loader-ab-'));
  try {
    const target = await openWarehouse(join(dir, 'gex.duckdb'));
    const cpu = process.cpuUsage();
    const started = performance.now();
    const report = await loadFiles(target.connection, inputs, {});
    const used = process.cpuUsage(cpu);
    target.close();
    return { wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000, rows: report.rowsLoaded };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function main(): void {
  const { values } = parseArgs({
    options: {
      before: { type: 'string' },
      after: { type: 'string' },
      ledger: { type: 'string' },
      archive: { type: 'string' },
      pairs: { type: 'string', default: '5' },
    },
  });
  const { before, after, ledger, archive } = values;
  if (!before || !after || !ledger || !archive)
    throw new Error('usage: loader-ab --before <repo> --after <repo> --ledger <gex.duckdb> --archive <raw> [--pairs N]');
  const samples: Record<'before' | 'after', Sample[]> = { before: [], after: [] };
  for (let pair = 0; pair < Number(values.pairs); pair++) {
    for (const side of ['before', 'after'] as const) {
      const repo = side === 'before' ? before : after;
      const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--run', repo, ledger, archive], { encoding: 'utf8' });
      const sample = JSON.parse(out) as Sample;
      samples[side].push(sample);
      process.stderr.write(`  pair ${pair + 1} ${side}: wall ${Math.round(sample.wallMs)} ms, cpu ${Math.round(sample.cpuMs)} ms, ${sample.rows} rows\n`);
    }
  }
  const line = (name: string, pick: (s: Sample) => number) => {
    const [b, a] = [median(samples.before.map(pick)), median(samples.after.map(pick))];
    return `| ${name} | ${Math.round(b)} ms | ${Math.round(a)} ms | ${(a / b).toFixed(2)}× |`;
  };
  process.stdout.write(
    ['| median | before | after | after ÷ before |', '|---|---|---|---|', line('wall', (s) => s.wallMs), line('CPU', (s) => s.cpuMs)].join('\n') + '\n',
  );
}

const [flag, repo, ledger, archive] = process.argv.slice(2);
if (flag === '--run' && repo && ledger && archive) process.stdout.write(JSON.stringify(await runOnce(repo, ledger, archive)));
else main();
