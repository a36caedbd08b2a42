// Scenario 4: planning over a long history: 5 years × 20 symbols × 3 files (~110k manifest rows).
// Each measure runs in a fresh child so its peak RSS is its own; baseline: a child that only opens
// the warehouse.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchConfig } from './config.js';
import { removeDir, tempDir } from './fixture.js';
import { runNodeScript } from './gexwh.js';
import { fmtMb, formatSample, median, table } from './stats.js';

const CHILD = fileURLToPath(new URL('./plan-child.js', import.meta.url));

interface ChildResult {
  ms: number;
  rss: number;
  rows: number;
  readMs?: number;
  planMs?: number;
}

async function child(mode: string, db: string, config: BenchConfig): Promise<ChildResult> {
  const run = await runNodeScript(CHILD, [mode, db], { PLAN_YEARS: String(config.planYears), PLAN_SYMBOLS: String(config.planSymbols) });
  if (run.code !== 0) throw new Error(`plan child ${mode} exited ${run.code}: ${run.stderr}`);
  const parsed = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as Omit<ChildResult, 'rss'>;
  return { ...parsed, rss: run.peakRss };
}

export async function planningScenario(config: BenchConfig, log: (line: string) => void): Promise<string> {
  const upsert: ChildResult[] = [];
  const plan: ChildResult[] = [];
  const planFull: ChildResult[] = [];
  const idle: ChildResult[] = [];
  for (let run = 0; run < config.runs; run++) {
    const dir = tempDir('plan');
    try {
      const db = join(dir, 'gex.duckdb');
      upsert.push(await child('upsert', db, config));
      await child('mark-loaded', db, config);
      // Alternate which plan path runs first, so neither always gets the warmer page cache.
      const paths = run % 2 === 0 ? (['plan', 'plan-full'] as const) : (['plan-full', 'plan'] as const);
      for (const path of paths) (path === 'plan' ? plan : planFull).push(await child(path, db, config));
      idle.push(await child('idle', db, config));
      log(
        `  run ${run + 1}: upsert ${Math.round(upsert.at(-1)!.ms)} ms, plan ${Math.round(plan.at(-1)!.ms)} ms, full-read plan ${Math.round(planFull.at(-1)!.ms)} ms`,
      );
    } finally {
      await removeDir(dir);
    }
  }
  const rows = plan[0]?.rows ?? 0;
  const ms = (list: ChildResult[], pick: (r: ChildResult) => number | undefined = (r) => r.ms) => list.map((r) => pick(r) ?? 0);
  const rss = (list: ChildResult[]) => median(list.map((r) => r.rss));
  return [
    `### 4. Planning ${config.planYears} years × ${config.planSymbols} symbols × 3 files (${rows.toLocaleString('en-US')} manifest rows, all loaded)`,
    '',
    table(
      ['step (fresh child process each)', 'time, median (min–max)', 'peak RSS (median)', 'RSS over idle child'],
      [
        ['upsertManifest of every row (20 pairs)', formatSample(ms(upsert)), fmtMb(rss(upsert)), fmtMb(rss(upsert) - rss(idle))],
        ['plan phase: readPlanState (anti-join in SQL) + planSync', formatSample(ms(plan)), fmtMb(rss(plan)), fmtMb(rss(plan) - rss(idle))],
        ['  of which readPlanState', formatSample(ms(plan, (r) => r.readMs)), '', ''],
        ['  of which planSync', formatSample(ms(plan, (r) => r.planMs)), '', ''],
        ['earlier path: listManifest + listLedger + planSync', formatSample(ms(planFull)), fmtMb(rss(planFull)), fmtMb(rss(planFull) - rss(idle))],
        ['idle child: open the warehouse (baseline)', '—', fmtMb(rss(idle)), '—'],
      ],
    ),
    '',
    `Target: ≤ 1 s and ≤ 200 MB RSS → plan ${formatSample(ms(plan))}, ${fmtMb(rss(plan))} (earlier path ${(median(ms(planFull)) / median(ms(plan))).toFixed(1)}× slower); upsert ${formatSample(ms(upsert))}, ${fmtMb(rss(upsert))}.`,
  ].join('\n');
}
