// Scenario 2: a no-op sync (everything already loaded) through the built CLI, so Node's start-up,
// module loading and the warehouse open all count. Baseline: `node -e 0` on the same machine.
// BENCH_BASELINE_CLI=/path/to/another/dist/src/cli/main.js times that build too, on its own warehouse,
// interleaved with this one in the same run: a before/after figure on one machine at one moment.
import { join } from 'node:path';
import type { BenchConfig } from './config.js';
import { EXCHANGE, SYMBOL, removeDir, startFixture, tempDir, type Fixture } from './fixture.js';
import { CLI_PATH, runCli, runNode } from './gexwh.js';
import { fmtMb, formatSample, median, ratio, table } from './stats.js';

interface Contender {
  name: string;
  cli: string;
  args: string[];
  wall: number[];
  rss: number[];
  /** CPU milliseconds (user + system): steadier than the wall clock on a shared machine. */
  cpu: number[];
}

function contender(name: string, cli: string, dir: string, baseUrl: string): Contender {
  const args = [
    'sync',
    '--db',
    join(dir, `${name}.duckdb`),
    '--archive',
    join(dir, `${name}-raw`),
    '--base-url',
    baseUrl,
    '--exchange',
    EXCHANGE,
    '--symbol',
    SYMBOL,
    '--json',
  ];
  return { name, cli, args, wall: [], rss: [], cpu: [] };
}

/** One no-op run of a contender; what it charged is added to the totals. */
async function timeOne(fixture: Fixture, entry: Contender, env: Record<string, string>, spent: { credits: number; requests: number }): Promise<number> {
  const { emulator } = fixture;
  const creditsBefore = emulator.counters.credits(fixture.key);
  const requestsBefore = emulator.counters.requests(fixture.key);
  const result = await runCli(entry.args, env, entry.cli);
  if (result.code !== 0) throw new Error(`no-op sync (${entry.name}) exited ${result.code}: ${result.stderr}`);
  spent.credits += emulator.counters.credits(fixture.key) - creditsBefore;
  spent.requests += emulator.counters.requests(fixture.key) - requestsBefore;
  entry.wall.push(result.ms);
  entry.rss.push(result.peakRss);
  entry.cpu.push(result.cpuMs);
  return result.ms;
}

export async function noopScenario(config: BenchConfig, log: (line: string) => void): Promise<string> {
  // Chain size barely matters to a no-op; the history length does (manifest and ledger rows).
  const fixture = await startFixture({ sessions: config.sessions, expirations: 2, strikes: 20 });
  const dir = tempDir('noop');
  const env = { GEX_API_KEY: fixture.key };
  const baseline = process.env.BENCH_BASELINE_CLI;
  const contenders = [
    contender('this build', CLI_PATH, dir, fixture.emulator.baseUrl),
    ...(baseline ? [contender('baseline', baseline, dir, fixture.emulator.baseUrl)] : []),
  ];
  const node: number[] = [];
  const spent = { credits: 0, requests: 0 };
  try {
    for (const entry of contenders) {
      const first = await runCli(entry.args, env, entry.cli);
      if (first.code !== 0) throw new Error(`first sync (${entry.name}) exited ${first.code}: ${first.stderr}`);
    }
    for (let run = 0; run < Math.max(config.runs, 5); run++) {
      // Rotate who goes first, so neither always runs on a cooler or warmer machine.
      const order = run % 2 === 0 ? contenders : [...contenders].reverse();
      const times: string[] = [];
      for (const entry of order) times.push(`${entry.name} ${Math.round(await timeOne(fixture, entry, env, spent))} ms`);
      node.push((await runNode(['-e', '0'])).ms);
      log(`  run ${run + 1}: ${times.join(', ')}`);
    }
  } finally {
    await removeDir(dir);
    await fixture.close();
  }
  const mine = contenders[0]!;
  const rows = contenders.flatMap((entry) => [
    [`\`${entry.name}\` sync … wall`, formatSample(entry.wall), `${ratio(entry.wall, node)} of \`node -e 0\``],
    [
      `\`${entry.name}\` CPU (user + system)`,
      formatSample(entry.cpu),
      entry === contenders[0] ? '—' : `${ratio(entry.cpu, contenders[0]!.cpu)} of \`this build\``,
    ],
  ]);
  return [
    `### 2. No-op sync through the CLI (${config.sessions} sessions held, everything loaded)`,
    '',
    table(
      ['measure', 'median (min–max)', 'vs baseline'],
      [
        ...rows,
        ['`node -e 0` wall (baseline)', formatSample(node), '—'],
        ['peak RSS (this build)', fmtMb(median(mine.rss)), '—'],
        ['credits spent (all runs)', String(spent.credits), 'target 0'],
        ['quota-counted requests (all runs)', String(spent.requests), 'target 0'],
      ],
    ),
    '',
    `Target: ≤ 0.4 s wall, 0 credits, 0 requests → ${(median(mine.wall) / 1000).toFixed(2)} s, ${spent.credits} credits, ${spent.requests} requests.`,
  ].join('\n');
}
