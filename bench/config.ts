// Benchmark sizes, read once from the environment so a 2-core machine finishes in a few minutes by
// default and a bigger box can ask for more (BENCH_SESSIONS=60 BENCH_RUNS=5 npm run bench).

export interface BenchConfig {
  /** Sessions of the full-sync scenario (3 files each). */
  sessions: number;
  /** Timed repetitions per contender; the table shows the median and the min–max. */
  runs: number;
  expirations: number;
  strikes: number;
  /** Sessions held by the "1 year" warehouse of the incremental scenario, and its chain size. */
  yearSessions: number;
  yearExpirations: number;
  yearStrikes: number;
  /** Manifest rows of the planning scenario: years × symbols × 3 files. */
  planYears: number;
  planSymbols: number;
  /** The spill scenario: DuckDB memory_limit and the sessions loaded under it. */
  spillMemoryLimit: string;
  spillSessions: number;
  /** Events of the pit_levels join. */
  pitEvents: number;
  /** Scenarios to run (1..6); default all. */
  only: Set<number>;
  /** Write the markdown tables to this file as well as stdout. */
  outFile?: string;
}

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

export function readConfig(): BenchConfig {
  const only = (process.env.BENCH_ONLY ?? '1,2,3,4,5,6')
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isInteger(n) && n >= 1 && n <= 6);
  return {
    sessions: intFromEnv('BENCH_SESSIONS', 30),
    runs: intFromEnv('BENCH_RUNS', 3),
    expirations: intFromEnv('BENCH_EXPIRATIONS', 12),
    strikes: intFromEnv('BENCH_STRIKES', 150),
    yearSessions: intFromEnv('BENCH_YEAR_SESSIONS', 365),
    yearExpirations: intFromEnv('BENCH_YEAR_EXPIRATIONS', 4),
    yearStrikes: intFromEnv('BENCH_YEAR_STRIKES', 40),
    planYears: intFromEnv('BENCH_PLAN_YEARS', 5),
    planSymbols: intFromEnv('BENCH_PLAN_SYMBOLS', 20),
    spillMemoryLimit: process.env.BENCH_SPILL_MEMORY_LIMIT ?? '256MB',
    spillSessions: intFromEnv('BENCH_SPILL_SESSIONS', 30),
    pitEvents: intFromEnv('BENCH_PIT_EVENTS', 1_000_000),
    only: new Set(only),
    ...(process.env.BENCH_OUT ? { outFile: process.env.BENCH_OUT } : {}),
  };
}
