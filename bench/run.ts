// `npm run bench`: the scenarios of issue 7 against the in-process emulator; prints markdown tables
// (medians over BENCH_RUNS runs with min–max, ratios to baselines measured in the same run).
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { readConfig } from './config.js';
import { fullSyncScenario } from './scenario-full-sync.js';
import { incrementalScenario } from './scenario-incremental.js';
import { noopScenario } from './scenario-noop.js';
import { scaleExtras } from './scale-extras.js';
import { parseScaleArgs, scaleScenario } from './scenario-scale.js';
import { planningScenario } from './scenario-planning.js';
import { spillScenario } from './scenario-spill.js';
import { viewsScenario } from './scenario-views.js';

const SCENARIOS: Record<number, { name: string; run: (config: ReturnType<typeof readConfig>, log: (l: string) => void) => Promise<string> }> = {
  1: { name: 'full sync', run: fullSyncScenario },
  2: { name: 'no-op sync (CLI)', run: noopScenario },
  3: { name: 'incremental day on a 1-year warehouse', run: incrementalScenario },
  4: { name: 'planning 110k manifest rows', run: planningScenario },
  5: { name: 'sync under a low memory_limit', run: spillScenario },
  6: { name: 'views and export', run: viewsScenario },
};

async function main(): Promise<void> {
  const config = readConfig();
  const log = (line: string) => process.stderr.write(`${line}\n`);
  // `npm run bench -- --scale <months> [--db PATH] [--runs N] [--only TEXT] [--pit-events N,...]`:
  // the multi-year analysis benchmark alone (bench/scenario-scale.ts).
  const scale = parseScaleArgs(process.argv.slice(2));
  if (scale !== undefined) {
    if (scale.extras !== undefined && scale.db === undefined) throw new Error('--extras needs --db (a copy of a scale warehouse: it is written to)');
    const section =
      scale.extras !== undefined && scale.db !== undefined
        ? await scaleExtras(
            {
              db: scale.db,
              runs: scale.runs,
              lastSession: scale.lastSession,
              parts: scale.extras,
              ...(scale.contenders ? { contenders: scale.contenders } : {}),
            },
            log,
          )
        : await scaleScenario(scale, log);
    process.stdout.write(`\n${section}\n`);
    if (config.outFile) writeFileSync(config.outFile, `${section}\n`);
    return;
  }
  const sections = [
    `## gexwh benchmark — ${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, ${config.runs} runs`,
  ];
  for (const [id, scenario] of Object.entries(SCENARIOS)) {
    if (!config.only.has(Number(id))) continue;
    log(`scenario ${id}: ${scenario.name}`);
    const section = await scenario.run(config, log);
    sections.push(section);
    process.stdout.write(`\n${section}\n`);
  }
  if (config.outFile) writeFileSync(config.outFile, `${sections.join('\n\n')}\n`);
}

await main();
