// The run records a journal holds, stored in the warehouse: each with at most the credits its package
// wrote down (src/journal/spend-record.ts), once (a run already recorded is not recorded twice).
import type { DuckDBConnection } from '@duckdb/node-api';
import { finishRun, startRun } from '../warehouse/index.js';
import type { JournaledRun } from './entries.js';
import { recordedSpend } from './spend-record.js';

/** Stores the journal's runs; returns how many were recorded, warnings pushed to `warnings`. */
export async function recordJournaledRuns(conn: DuckDBConnection, runs: readonly JournaledRun[], warnings: string[]): Promise<number> {
  let recorded = 0;
  for (const run of runs) {
    if (await alreadyRecorded(conn, run)) continue;
    const checked = await creditsOnRecord(run);
    if (checked.warning !== undefined) warnings.push(checked.warning);
    await recordJournaledRun(conn, checked.run);
    recorded++;
  }
  return recorded;
}

/**
 * A journaled run with the credits its spend record holds at most: a journal claiming more than was
 * written down as spent (the journal is a file anyone who can write the archive can edit) keeps the
 * recorded figure, with a warning naming the claim.
 */
async function creditsOnRecord(run: JournaledRun): Promise<{ run: JournaledRun; warning?: string }> {
  const lost = run.linksLost ?? 0;
  if (run.creditsSpent === 0 && lost === 0) return { run };
  const spent = await recordedSpend(run);
  if (run.creditsSpent <= spent.credits && lost <= spent.linksLost) return { run };
  const credits = Math.min(run.creditsSpent, spent.credits);
  return {
    run: { ...run, creditsSpent: credits, ...(lost > 0 ? { linksLost: Math.min(lost, spent.linksLost) } : {}) },
    warning:
      `the journal's record of the ${run.command} run started ${run.startedAt} claims ${run.creditsSpent} credit(s)${lost > 0 ? ` and ${lost} lost` : ''}, ` +
      `but its spend log recorded ${spent.credits}${spent.linksLost > 0 ? ` and ${spent.linksLost} lost` : ''}: what was recorded is kept, the claim beyond it refused`,
  };
}

/**
 * Whether the run needs no record: one without a row is recorded unless a run of that command and
 * start is there; one naming its row (`runId`) completes only a row of the same command and start
 * still open (a sync stopped or held out), never another run's finished record.
 */
async function alreadyRecorded(conn: DuckDBConnection, run: JournaledRun): Promise<boolean> {
  const open = run.runId === undefined ? '' : ' AND run_id = $3 AND finished_at IS NULL';
  const params = run.runId === undefined ? [run.command, run.startedAt] : [run.command, run.startedAt, run.runId];
  const found = await conn.runAndReadAll(`SELECT 1 FROM sync.runs WHERE command = $1 AND started_at = $2::TIMESTAMPTZ${open}`, params);
  return run.runId === undefined ? found.currentRowCount > 0 : found.currentRowCount === 0;
}

/** Inserts (or completes) a run record from the journal. */
async function recordJournaledRun(conn: DuckDBConnection, run: JournaledRun): Promise<void> {
  const counts = { ...run, finishedAt: new Date(run.finishedAt), error: run.error ?? undefined };
  const runId = run.runId ?? (await startRun(conn, { command: run.command, options: run.options, startedAt: new Date(run.startedAt) }));
  await finishRun(conn, runId, counts);
}
