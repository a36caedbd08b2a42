// Scenario 2: a no-op sync (everything already loaded) through the built CLI, so Node's start-up,
// module loading and the warehouse open all count. Baseline: `node -e 0` on the same machine.
import { join } from 'node:path';
import type { BenchConfig } from './config.js';
import { EXCHANGE, SYMBOL, removeDir, startFixture, tempDir } from './fixture.js';
import { runCli, runNode } from './gexwh.js';
import { fmtMb, formatSample, median, ratio, table } from './stats.js';

export async function noopScenario(config: BenchConfig, log: (line: string) => void): Promise<string> {
  // Chain size barely matters to a no-op; the history length does (manifest and ledger rows).
  const fixture = await startFixture({ sessions: config.sessions, expirations: 2, strikes: 20 });
  const dir = tempDir('noop');
  const { emulator } = fixture;
  const args = ['sync', '--db', join(dir, 'gex.duckdb'), '--archive', join(dir, 'raw'), '--base-url', emulator.baseUrl,
    '--exchange', EXCHANGE, '--symbol', SYMBOL, '--json'];
  const env = { GEX_API_KEY: fixture.key };
  const wall: number[] = [];
  const rss: number[] = [];
  const node: number[] = [];
  let credits = 0;
  let requests = 0;
  try {
    const first = await runCli(args, env);
    if (first.code !== 0) throw new Error(`first sync exited ${first.code}: ${first.stderr}`);
    for (let run = 0; run < Math.max(config.runs, 5); run++) {
      const creditsBefore = emulator.counters.credits(fixture.key);
      const requestsBefore = emulator.counters.requests(fixture.key);
      const result = await runCli(args, env);
      if (result.code !== 0) throw new Error(`no-op sync exited ${result.code}: ${result.stderr}`);
      credits += emulator.counters.credits(fixture.key) - creditsBefore;
      requests += emulator.counters.requests(fixture.key) - requestsBefore;
      wall.push(result.ms);
      rss.push(result.peakRss);
      node.push((await runNode(['-e', '0'])).ms);
      log(`  run ${run + 1}: ${Math.round(result.ms)} ms`);
    }
  } finally {
    await removeDir(dir);
    await fixture.close();
  }
  return [
    `### 2. No-op sync through the CLI (${config.sessions} sessions held, everything loaded)`,
    '',
    table(
      ['measure', 'median (min–max)', 'vs baseline'],
      [
        ['`node dist/src/cli/main.js sync …` wall', formatSample(wall), `${ratio(wall, node)} of \`node -e 0\``],
        ['`node -e 0` wall (baseline)', formatSample(node), '—'],
        ['peak RSS', fmtMb(median(rss)), '—'],
        ['credits spent (all runs)', String(credits), 'target 0'],
        ['quota-counted requests (all runs)', String(requests), 'target 0'],
      ],
    ),
    '',
    `Target: ≤ 1.0 s wall, 0 credits, 0 requests → ${(median(wall) / 1000).toFixed(2)} s, ${credits} credits, ${requests} requests.`,
  ].join('\n');
}
