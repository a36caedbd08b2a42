// `gexwh status`: the local warehouse against the remote coverage, per (exchange, symbol). Works
// offline from local state (the coverage last seen) when the API cannot be reached.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { GexwhError, LockError, UsageError } from '../../core/errors.js';
import { heldPairs, HELD_SOURCE } from '../../warehouse/held-pairs.js';
import { checkSelectionNames, type NameSelection } from '../../core/known-names.js';
import { parseExchanges, parseSymbols } from '../../sync/selection.js';
import { listOption } from '../parse.js';
import { usableCoverage } from '../../sync/coverage.js';
import { lastRun, openWarehouse, upsertCoverage, type RunRow, type Warehouse } from '../../warehouse/index.js';
import { readJournal } from '../../sync/journal.js';
import { listSnapshots } from '../../sync/live-journal.js';
import { waitingOf, type WaitingSummary } from '../../sync/load-pending.js';
import { createClient } from '../api-client.js';
import { contextOf, type CommandContext } from '../context.js';
import { formatTable, type Row } from '../output.js';
import { escapeLine } from '../terminal.js';

interface Remote {
  coverage?: Row[];
  quota?: { requests: Row; history_files: Row; tier: string };
  note?: string;
}

export function registerStatus(program: Command): void {
  program
    .command('status')
    .description('local warehouse vs remote coverage: sessions held, gaps, failed files, last run, quota left')
    .option('--exchange <list>', 'only these history venues (repeatable, comma list; default: every pair held)', listOption)
    .option('--symbol <list>', 'only these symbols (repeatable, comma list; default: every pair held)', listOption)
    .action(async (flags: { exchange?: string[]; symbol?: string[] }, command: Command) => {
      const ctx = contextOf(command);
      // status reports on a warehouse; it must not leave an empty one behind a mistyped --db.
      if (!existsSync(resolve(ctx.settings.db))) {
        throw new UsageError(`status: no warehouse at ${ctx.settings.db} (run gexwh sync first, or pass --db)`, { db: ctx.settings.db });
      }
      // Parsed before any request; the names are then checked against the warehouse (with the fresh coverage when the API answered).
      const filter = { ...optional('exchanges', parseExchanges(flags.exchange)), ...optional('symbols', parseSymbols(flags.symbol)) };
      const remote = await fetchRemote(ctx);
      // The journal is read first and alone: it answers even when another process holds the warehouse.
      const snapshots = (await listSnapshots(ctx.settings.archive, 'pending')).length;
      const waiting = waitingOf(await readJournal(ctx.settings.archive), ctx.settings.archive, snapshots);
      const local = await readLocal(ctx.settings.db, remote.coverage, filter);
      const result = {
        pairs: local.pairs,
        waiting_to_load: waiting,
        warehouse_held: local.held ?? null,
        last_run: local.lastRun ?? null,
        last_sync: local.lastSync ?? null,
        quota: remote.quota ?? null,
        note: remote.note ?? null,
      };
      ctx.out.result(result, () => {
        const lines = local.held ? [`warehouse: ${local.held}`, ''] : [formatTable(local.pairs), ''];
        if (waiting.files > 0 || waiting.runs > 0) lines.push(describeWaiting(waiting));
        if (waiting.snapshots > 0) lines.push(`waiting to load: ${waiting.snapshots} live snapshot(s) journaled by capture; the next capture, sync or gexwh load loads them`);
        if (local.lastRun) lines.push(`last run: ${describeRun(local.lastRun)}`);
        // Captures run every few minutes; the nightly sync's outcome must not scroll out of sight.
        if (local.lastSync && local.lastSync.runId !== local.lastRun?.runId) lines.push(`last sync: ${describeRun(local.lastSync)}`);
        if (!local.lastSync) lines.push('no sync has run on this warehouse yet');
        if (remote.quota) {
          const q = remote.quota;
          lines.push(`quota (${q.tier}): requests ${q.requests.remaining ?? 'unlimited'} of ${q.requests.limit || 'unlimited'} left, file credits ${q.history_files.remaining ?? 'unlimited'} of ${q.history_files.limit || 'unlimited'} left, reset ${q.history_files.reset}`);
        }
        if (remote.note) lines.push(`note: ${remote.note}`);
        return lines.join('\n');
      });
    });
}

function describeWaiting(w: WaitingSummary): string {
  return (
    `waiting to load: ${w.files} paid file(s) archived but not loaded (${w.bytes} bytes, since ${w.oldest ?? '-'}), ${w.runs} run record(s); ` +
    `gexwh load (or the next sync) loads them for 0 credits. Journal: ${w.journal}`
  );
}

function describeRun(r: RunRow): string {
  const what = r.command === 'capture' ? `${r.rowsLoaded} live rows added` : `${r.filesLoaded} loaded, ${r.filesFailed} failed, ${r.filesDeferred} deferred; ${r.creditsSpent} credits`;
  return `${r.command} ${r.outcome ?? 'unfinished'} at ${r.startedAt}; ${what}, ${r.requestsSpent} requests`;
}

async function fetchRemote(ctx: CommandContext): Promise<Remote> {
  let client;
  try {
    client = createClient(ctx);
  } catch (error) {
    return { note: `offline: ${error instanceof GexwhError ? error.message : 'no API settings'}; coverage is the one last seen by sync` };
  }
  try {
    const [me, coverage] = await Promise.all([client.me(), client.coverage()]);
    return {
      coverage: usableCoverage(coverage.data).usable as unknown as Row[],
      quota: { tier: me.data.tier, requests: me.data.quota.requests as unknown as Row, history_files: me.data.quota.history_files as unknown as Row },
    };
  } catch (error) {
    // The message may quote the server: kept on the note's one line.
    return { note: `API not reachable (${escapeLine(error instanceof Error ? error.message : String(error))}); coverage is the one last seen by sync` };
  } finally {
    await client.close();
  }
}

interface LocalState {
  pairs: Row[];
  lastRun: RunRow | undefined;
  lastSync: RunRow | undefined;
  /** Set when another process holds the warehouse read-write, so nothing of it could be read. */
  held?: string;
}

/**
 * Opens the warehouse for writing (to store the fresh coverage); beside a reader, READ_ONLY (the
 * coverage is the one last stored); beside a writer, not at all.
 */
async function openForStatus(db: string): Promise<Warehouse | { held: string }> {
  try {
    return await openWarehouse(db);
  } catch (error) {
    if (!(error instanceof LockError)) throw error;
  }
  try {
    return await openWarehouse(db, { readOnly: true });
  } catch (error) {
    if (!(error instanceof LockError)) throw error;
    return { held: `${error.message}; its tables cannot be read until it lets go` };
  }
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

async function readLocal(db: string, freshCoverage: Row[] | undefined, filter: NameSelection): Promise<LocalState> {
  const warehouse = await openForStatus(db);
  if ('held' in warehouse) return { pairs: [], lastRun: undefined, lastSync: undefined, held: warehouse.held };
  try {
    const conn = warehouse.connection;
    if (freshCoverage && !warehouse.readOnly) await upsertCoverage(conn, freshCoverage as never, new Date());
    if (filter.exchanges || filter.symbols) checkSelectionNames(filter, { pairs: await heldPairs(conn), source: HELD_SOURCE });
    const pairs = (await conn.runAndReadAll(`
      WITH loaded AS (
        SELECT exchange, symbol, count(DISTINCT session_date)::INTEGER AS sessions_held,
               max(session_date)::VARCHAR AS newest_held, count(*)::INTEGER AS files_loaded
          FROM sync.files WHERE status = 'loaded' GROUP BY ALL),
      failed AS (
        SELECT exchange, symbol, count(*)::INTEGER AS files_failed
          FROM sync.files f WHERE status IN ('failed_verify', 'failed_load')
           AND NOT EXISTS (SELECT 1 FROM sync.files g WHERE g.status = 'loaded' AND g.exchange = f.exchange
                             AND g.symbol = f.symbol AND g.session_date = f.session_date AND g.file = f.file)
         GROUP BY ALL),
      listed AS (
        -- From this session on the stored manifest is complete (a --since listing starts later).
        SELECT l.exchange, l.symbol,
               coalesce(l.complete_from, (SELECT min(m.session_date) FROM sync.manifest m
                                           WHERE m.exchange = l.exchange AND m.symbol = l.symbol))::VARCHAR AS manifest_from
          FROM sync.listings l),
      missing AS (
        SELECT m.exchange, m.symbol, count(*)::INTEGER AS files_missing
          FROM sync.manifest m
         WHERE NOT EXISTS (SELECT 1 FROM sync.files f WHERE f.status = 'loaded' AND f.exchange = m.exchange
                             AND f.symbol = m.symbol AND f.session_date = m.session_date AND f.file = m.file AND f.sha256 = m.sha256)
         GROUP BY ALL)
      SELECT c.exchange, c.symbol, c.files_first_date::VARCHAR AS remote_first, c.files_last_date::VARCHAR AS remote_last,
             li.manifest_from, coalesce(l.sessions_held, 0) AS sessions_held, l.newest_held,
             coalesce(l.files_loaded, 0) AS files_loaded, coalesce(mi.files_missing, 0) AS files_missing,
             coalesce(f.files_failed, 0) AS files_failed
        FROM sync.coverage c
        LEFT JOIN listed li USING (exchange, symbol)
        LEFT JOIN loaded l USING (exchange, symbol)
        LEFT JOIN failed f USING (exchange, symbol)
        LEFT JOIN missing mi USING (exchange, symbol)
       ORDER BY c.exchange, c.symbol`)).getRowObjectsJson() as Row[];
    const chosen = pairs.filter(
      (row) => (!filter.exchanges || filter.exchanges.includes(String(row.exchange))) && (!filter.symbols || filter.symbols.includes(String(row.symbol))),
    );
    return { pairs: chosen, lastRun: await lastRun(conn), lastSync: await lastRun(conn, 'sync') };
  } finally {
    warehouse.close();
  }
}
