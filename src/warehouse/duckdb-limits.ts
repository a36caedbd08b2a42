// DuckDB's memory and thread limits from the environment, checked before an instance opens. Every
// DuckDB instance gexwh creates (the warehouse, and the in-memory databases that probe or copy one)
// takes them.
import { UsageError } from '../core/errors.js';

const MEMORY_LIMIT = /^(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i;
const UNIT_BYTES: Record<string, number> = { b: 1, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40 };
/** Below this DuckDB cannot pin the blocks a verify or a load needs (16MB already fails some). */
const MIN_MEMORY_LIMIT_BYTES = 64e6;
/** Far more than any machine gexwh runs on has cores; a typo (100000) is refused, not obeyed. */
const MAX_THREADS = 1024;

/**
 * DuckDB's memory_limit from env GEXWH_MEMORY_LIMIT (e.g. 256MB), for small machines: past it DuckDB
 * spills to `<db>.tmp` instead of growing. Unset: DuckDB's default (80% of RAM).
 */
export function memoryLimitFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const raw = env.GEXWH_MEMORY_LIMIT?.trim();
  if (raw === undefined || raw === '') return undefined;
  const match = MEMORY_LIMIT.exec(raw);
  if (!match) {
    throw new UsageError(`GEXWH_MEMORY_LIMIT must be a size like 256MB or 2GB, got "${raw}"`, { GEXWH_MEMORY_LIMIT: raw });
  }
  if (Number(match[1]) * UNIT_BYTES[match[2]!.toLowerCase()]! < MIN_MEMORY_LIMIT_BYTES) {
    throw new UsageError(`GEXWH_MEMORY_LIMIT is ${raw}, below the 64MB DuckDB needs to load and verify files; set 256MB or more, or unset it`, {
      GEXWH_MEMORY_LIMIT: raw,
    });
  }
  return raw;
}

/**
 * DuckDB's threads from env GEXWH_THREADS (a whole number from 1), for a machine shared with other
 * work (a cron job beside a trading desk, a test suite already running one process per core): fewer
 * threads leave the other cores alone. Unset: DuckDB's default (one per core).
 */
export function threadsFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const raw = env.GEXWH_THREADS?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_THREADS) {
    throw new UsageError(`GEXWH_THREADS must be a whole number of threads from 1 to ${MAX_THREADS}, got "${raw}"; unset it for one per core`, {
      GEXWH_THREADS: raw,
    });
  }
  return String(Number(raw));
}

/** The DuckDB configuration both limits add to an instance's own (nothing when neither is set). */
export function duckdbLimitsFromEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const memoryLimit = memoryLimitFromEnv(env);
  const threads = threadsFromEnv(env);
  return { ...(memoryLimit !== undefined ? { memory_limit: memoryLimit } : {}), ...(threads !== undefined ? { threads } : {}) };
}
