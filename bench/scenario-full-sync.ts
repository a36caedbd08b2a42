// Scenario 1: a full sync of N sessions (3 files each) into a fresh warehouse, gexwh against the
// ideal pipeline and the naive peer, runs interleaved (rotating order) so drift hits all three alike.
import { join } from 'node:path';
import type { BenchConfig } from './config.js';
import { EXCHANGE, SYMBOL, removeDir, startFixture, tempDir } from './fixture.js';
import { gexwhSync, type PhaseTimes } from './gexwh.js';
import { idealSync } from './ideal.js';
import { naiveSync } from './naive.js';
import { fmtMb, formatSample, median, ratio, table, timed } from './stats.js';

type Contender = 'gexwh' | 'ideal' | 'naive';

export async function fullSyncScenario(config: BenchConfig, log: (line: string) => void): Promise<string> {
  const fixture = await startFixture({ sessions: config.sessions, expirations: config.expirations, strikes: config.strikes });
  log(`  fixture: ${fixture.sessions.length} sessions, ${fixture.rows.toLocaleString('en-US')} rows, ${fmtMb(fixture.bytes)} gzip (pre-built)`);
  const target = { baseUrl: fixture.emulator.baseUrl, key: fixture.key, exchange: EXCHANGE, symbol: SYMBOL };
  const samples: Record<Contender, number[]> = { gexwh: [], ideal: [], naive: [] };
  const phases: PhaseTimes[] = [];
  const order: Contender[] = ['gexwh', 'ideal', 'naive'];
  try {
    for (let run = 0; run < config.runs; run++) {
      for (let i = 0; i < order.length; i++) {
        const who = order[(i + run) % order.length]!;
        const dir = tempDir(who);
        try {
          const db = join(dir, 'gex.duckdb');
          const { ms, value: rows } = await timed(async () => {
            if (who === 'ideal') return idealSync(target, dir, db);
            if (who === 'naive') return naiveSync(target, dir, db);
            const times: PhaseTimes = {};
            const summary = await gexwhSync(target, db, join(dir, 'raw'), { exchange: EXCHANGE, symbol: SYMBOL }, times);
            phases.push(times);
            return summary.rowsLoaded;
          });
          if (rows !== fixture.rows) throw new Error(`${who} loaded ${rows} rows, expected ${fixture.rows}`);
          samples[who].push(ms);
          log(`  run ${run + 1} ${who}: ${Math.round(ms)} ms`);
        } finally {
          await removeDir(dir);
        }
      }
    }
  } finally {
    await fixture.close();
  }
  const phaseNames = ['coverage', 'manifests', 'plan', 'download', 'load'] as const;
  const phaseLine = phaseNames.map((name) => `${name} ${Math.round(median(phases.map((p) => p[name] ?? 0)))} ms`).join(', ');
  return [
    `### 1. Full sync: ${config.sessions} sessions × 3 files (${fixture.rows.toLocaleString('en-US')} rows, ${fmtMb(fixture.bytes)} gzip), ${config.expirations} expirations × ${config.strikes} strikes`,
    '',
    table(
      ['contender', 'wall, median (min–max)', 'gexwh ÷ contender'],
      [
        ['gexwh sync (in-process, concurrency 4)', formatSample(samples.gexwh), '—'],
        ['ideal pipeline', formatSample(samples.ideal), ratio(samples.gexwh, samples.ideal)],
        ['naive peer (curl + read_csv per file)', formatSample(samples.naive), ratio(samples.gexwh, samples.naive)],
      ],
    ),
    '',
    `gexwh phases (median): ${phaseLine}.`,
    `Targets: gexwh ÷ ideal ≤ 1.10× → ${ratio(samples.gexwh, samples.ideal)}; naive ÷ gexwh ≥ 2× → ${ratio(samples.naive, samples.gexwh)}.`,
  ].join('\n');
}
