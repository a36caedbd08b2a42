// sync.runs: one row per run, opened at start and completed at the end (also on failure), so
// `status` can show the last run and what it spent.
import type { DuckDBConnection } from '@duckdb/node-api';
import { toIsoTimestamp } from './duckdb-text.js';
import { nullable, num, oneOf, readOne, readRow, text } from './read-rows.js';

export const RUN_OUTCOMES = ['ok', 'partial', 'failed', 'interrupted', 'locked', 'dry_run'] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

export interface RunStart {
  command: string;
  /** The run's effective options; anything secret-looking is removed before storing. */
  options: Record<string, unknown>;
  startedAt?: Date;
}

export interface RunCounts {
  outcome: RunOutcome;
  creditsSpent?: number;
  /** File link requests whose answer was lost: each may have cost a credit on top of creditsSpent. */
  linksLost?: number;
  requestsSpent?: number;
  filesPlanned?: number;
  filesLoaded?: number;
  filesFailed?: number;
  filesDeferred?: number;
  rowsLoaded?: number;
  bytesDownloaded?: number;
  error?: string;
  finishedAt?: Date;
}

const SECRET_KEY = /(api[-_]?key|secret|token|password|authorization|credential)/i;

/** Pure: a deep copy without secret-looking keys (the key itself must never reach the warehouse). */
export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value instanceof Date) return value.toISOString();
  if (typeof value !== 'object' || value === null) return value;
  const result: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (SECRET_KEY.test(key) || inner === undefined || typeof inner === 'function') continue;
    result[key] = redactSecrets(inner);
  }
  return result;
}

export async function startRun(conn: DuckDBConnection, start: RunStart): Promise<number> {
  const row = await readOne(
    conn,
    `INSERT INTO sync.runs (command, options, started_at) VALUES ($1, $2::JSON, $3::TIMESTAMPTZ) RETURNING run_id`,
    [start.command, JSON.stringify(redactSecrets(start.options)), toIsoTimestamp(start.startedAt ?? new Date())],
    { run_id: num },
  );
  return row.run_id;
}

export async function finishRun(conn: DuckDBConnection, runId: number, counts: RunCounts): Promise<void> {
  await conn.run(
    `UPDATE sync.runs SET finished_at = $2::TIMESTAMPTZ, outcome = $3, credits_spent = $4, requests_spent = $5,
            files_planned = $6, files_loaded = $7, files_failed = $8, files_deferred = $9, rows_loaded = $10,
            bytes_downloaded = $11, error = $12, links_lost = $13
      WHERE run_id = $1`,
    [
      runId,
      toIsoTimestamp(counts.finishedAt ?? new Date()),
      counts.outcome,
      counts.creditsSpent ?? 0,
      counts.requestsSpent ?? 0,
      counts.filesPlanned ?? 0,
      counts.filesLoaded ?? 0,
      counts.filesFailed ?? 0,
      counts.filesDeferred ?? 0,
      counts.rowsLoaded ?? 0,
      counts.bytesDownloaded ?? 0,
      counts.error ?? null,
      counts.linksLost ?? 0,
    ],
  );
}

export interface RunRow extends Required<Omit<RunCounts, 'finishedAt' | 'error' | 'outcome'>> {
  runId: number;
  command: string;
  options: unknown;
  startedAt: string;
  finishedAt: string | null;
  outcome: RunOutcome | null;
  error: string | null;
}

/** The most recent run, or undefined on a fresh warehouse. */
export async function lastRun(conn: DuckDBConnection, command?: string): Promise<RunRow | undefined> {
  // A run cut short leaves its counts NULL: they read as 0.
  const row = await readRow(
    conn,
    `SELECT run_id AS "runId", command, options::VARCHAR AS options,
            strftime(started_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS "startedAt",
            strftime(finished_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS "finishedAt", outcome,
            coalesce(credits_spent, 0) AS "creditsSpent", coalesce(links_lost, 0) AS "linksLost",
            coalesce(requests_spent, 0) AS "requestsSpent", coalesce(files_planned, 0) AS "filesPlanned",
            coalesce(files_loaded, 0) AS "filesLoaded", coalesce(files_failed, 0) AS "filesFailed",
            coalesce(files_deferred, 0) AS "filesDeferred", coalesce(rows_loaded, 0) AS "rowsLoaded",
            coalesce(bytes_downloaded, 0) AS "bytesDownloaded", error
       FROM sync.runs WHERE $1::VARCHAR IS NULL OR command = $1::VARCHAR ORDER BY run_id DESC LIMIT 1`,
    [command ?? null],
    {
      runId: num,
      command: text,
      options: nullable(text),
      startedAt: text,
      finishedAt: nullable(text),
      outcome: nullable(oneOf(RUN_OUTCOMES)),
      creditsSpent: num,
      linksLost: num,
      requestsSpent: num,
      filesPlanned: num,
      filesLoaded: num,
      filesFailed: num,
      filesDeferred: num,
      rowsLoaded: num,
      bytesDownloaded: num,
      error: nullable(text),
    },
  );
  return row && { ...row, options: row.options === null ? null : (JSON.parse(row.options) as unknown) };
}

/** Credits the recorded runs spent: since midnight UTC (when the quota resets) and in all. */
export async function creditsSpent(conn: DuckDBConnection): Promise<{ sinceMidnightUtc: number; allRuns: number }> {
  const row = await readOne(
    conn,
    `SELECT coalesce(sum(credits_spent) FILTER (WHERE started_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), 0)::BIGINT AS today,
            coalesce(sum(credits_spent), 0)::BIGINT AS total
       FROM sync.runs`,
    [],
    { today: num, total: num },
  );
  return { sinceMidnightUtc: row.today, allRuns: row.total };
}
