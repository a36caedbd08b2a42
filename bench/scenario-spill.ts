// Scenario 5: a full sync through the CLI with DuckDB's memory_limit set low (GEXWH_MEMORY_LIMIT)
// on data several times larger: the load must spill or stream, not fail. Peak RSS of the child,
// against the same sync without a limit (baseline).
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { BenchConfig } from './config.js';
import { EXCHANGE, KINDS, SYMBOL, removeDir, startFixture, tempDir } from './fixture.js';
import { runCli, type CliRun } from './gexwh.js';
import { fmtMb, formatSample, median, table } from './stats.js';

export async function spillScenario(config: BenchConfig, log: (line: string) => void): Promise<string> {
  const fixture = await startFixture({ sessions: config.spillSessions, expirations: config.expirations, strikes: config.strikes });
  let csvBytes = 0;
  for (const date of fixture.sessions) {
    for (const kind of KINDS) csvBytes += gunzipSync(fixture.emulator.market.dailyFile(EXCHANGE, SYMBOL, date, kind, 0).bytes).length;
  }
  log(`  fixture: ${fixture.sessions.length} sessions, ${fixture.rows.toLocaleString('en-US')} rows, ${fmtMb(csvBytes)} of CSV`);
  const limited: CliRun[] = [];
  const unlimited: CliRun[] = [];
  let dbBytes = 0;
  try {
    for (let run = 0; run < config.runs; run++) {
      for (const limit of run % 2 === 0 ? [config.spillMemoryLimit, undefined] : [undefined, config.spillMemoryLimit]) {
        const dir = tempDir('spill');
        try {
          const db = join(dir, 'gex.duckdb');
          const args = [
            'sync',
            '--db',
            db,
            '--archive',
            join(dir, 'raw'),
            '--base-url',
            fixture.emulator.baseUrl,
            '--exchange',
            EXCHANGE,
            '--symbol',
            SYMBOL,
            '--json',
          ];
          const env: Record<string, string> = { GEX_API_KEY: fixture.key };
          if (limit !== undefined) env.GEXWH_MEMORY_LIMIT = limit;
          const result = await runCli(args, env);
          if (result.code !== 0) throw new Error(`sync (memory_limit ${limit ?? 'default'}) exited ${result.code}: ${result.stderr.slice(0, 500)}`);
          dbBytes = statSync(db).size;
          (limit === undefined ? unlimited : limited).push(result);
          log(`  run ${run + 1} limit ${limit ?? 'default'}: ${Math.round(result.ms)} ms, peak RSS ${fmtMb(result.peakRss)}`);
        } finally {
          await removeDir(dir);
        }
      }
    }
  } finally {
    await fixture.close();
  }
  const rss = (runs: CliRun[]) => median(runs.map((r) => r.peakRss));
  const limitBytes = parseSize(config.spillMemoryLimit);
  return [
    `### 5. Full sync under DuckDB memory_limit=${config.spillMemoryLimit} (CLI child; ${config.spillSessions} sessions, ${fixture.rows.toLocaleString('en-US')} rows, ${fmtMb(csvBytes)} of CSV, ${fmtMb(dbBytes)} warehouse file)`,
    '',
    table(
      ['memory_limit', 'wall, median (min–max)', 'peak RSS (median)', 'vs default'],
      [
        [config.spillMemoryLimit, formatSample(limited.map((r) => r.ms)), fmtMb(rss(limited)), `${(rss(limited) / rss(unlimited)).toFixed(2)}× RSS`],
        ['DuckDB default (baseline)', formatSample(unlimited.map((r) => r.ms)), fmtMb(rss(unlimited)), '—'],
      ],
    ),
    '',
    `Target: completes, RSS ≤ 300 MB + memory limit = ${fmtMb(300 * 1024 * 1024 + limitBytes)} → ${fmtMb(rss(limited))}.`,
  ].join('\n');
}

function parseSize(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([KMGT]?)i?B$/i.exec(text.trim());
  if (!match) return 0;
  const power = ['', 'K', 'M', 'G', 'T'].indexOf(match[2]!.toUpperCase());
  return Number(match[1]) * 1024 ** power;
}
