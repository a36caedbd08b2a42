// sync.runs: one row per run, opened at start and completed at the end (also on failure), so
// `status` can show the last run and what it spent.
import type { DuckDBConnection } from '@duckdb/node-api';
import { toIsoTimestamp } from './duckdb-text.js';

export type RunOutcome = 'ok' | 'partial' | 'failed' | 'interrupted' | 'locked' | 'dry_run';

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
  const reader = await conn.runAndReadAll(
    `INSERT INTO sync.runs (command, options, started_at) VALUES ($1, $2::JSON, $3::TIMESTAMPTZ) RETURNING run_id`,
    [start.command, JSON.stringify(redactSecrets(start.options)), toIsoTimestamp(start.startedAt ?? new Date())],
  );
  return Number(reader.getRowObjectsJS()[0]?.run_id);
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
  const reader = await conn.runAndReadAll(
    `SELECT run_id, command, options::VARCHAR AS options,
            strftime(started_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS started_at,
            strftime(finished_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS finished_at, outcome,
            credits_spent, requests_spent, files_planned, files_loaded, files_failed, files_deferred,
            rows_loaded, bytes_downloaded, links_lost, error
       FROM sync.runs WHERE $1::VARCHAR IS NULL OR command = $1::VARCHAR ORDER BY run_id DESC LIMIT 1`,
    [command ?? null],
  );
  const row = reader.getRowObjectsJS()[0];
  if (!row) return undefined;
  const num = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));
  return {
    runId: Number(row.run_id),
    command: String(row.command),
    options: row.options === null ? null : (JSON.parse(String(row.options)) as unknown),
    startedAt: String(row.started_at),
    finishedAt: row.finished_at === null ? null : String(row.finished_at),
    outcome: row.outcome === null ? null : (String(row.outcome) as RunOutcome),
    creditsSpent: num(row.credits_spent),
    linksLost: num(row.links_lost),
    requestsSpent: num(row.requests_spent),
    filesPlanned: num(row.files_planned),
    filesLoaded: num(row.files_loaded),
    filesFailed: num(row.files_failed),
    filesDeferred: num(row.files_deferred),
    rowsLoaded: num(row.rows_loaded),
    bytesDownloaded: num(row.bytes_downloaded),
    error: row.error === null ? null : String(row.error),
  };
}

/** Credits the recorded runs spent: since midnight UTC (when the quota resets) and in all. */
export async function creditsSpent(conn: DuckDBConnection): Promise<{ sinceMidnightUtc: number; allRuns: number }> {
  const reader = await conn.runAndReadAll(
    `SELECT coalesce(sum(credits_spent) FILTER (WHERE started_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), 0)::BIGINT AS today,
            coalesce(sum(credits_spent), 0)::BIGINT AS total
       FROM sync.runs`,
  );
  const row = reader.getRowObjectsJS()[0];
  return { sinceMidnightUtc: Number(row?.today ?? 0), allRuns: Number(row?.total ?? 0) };
}
