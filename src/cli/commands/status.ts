// `gexwh status`: the local warehouse against the remote coverage, per (exchange, symbol). Works
// offline from local state (the coverage last seen) when the API cannot be reached.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { MeRecord } from '../../api/index.js';
import { GexwhError, NoWarehouseError } from '../../core/errors.js';
import { parseExchanges, parseSymbols, type SyncSelection } from '../../sync/selection.js';
import type { Market } from '../../time/sessions.js';
import type { RunRow } from '../../warehouse/index.js';
import type { StatusPair, WarehouseStatus } from '../../warehouse/status.js';
import type { WaitingSummary } from '../../journal/load-pending.js';
import type { CreditsOnRecord, PaidNotArchived, StoppedRun } from '../../journal/on-record.js';
import { contextOf, type CommandContext } from '../context.js';
import { formatInstant, formatTable, type Row } from '../output.js';
import { countOf, formatBytes, formatCount } from '../summary.js';
import { escapeLine } from '../terminal.js';
import { resolveSelection } from '../selection.js';

interface Remote {
  coverage?: Row[];
  /** The key's markets (from /me), when the API answered. */
  markets?: Market[];
  quota?: MeRecord['quota'] & { tier: string };
  note?: string;
}

export function registerStatus(program: Command): void {
  program
    .command('status')
    .description('local warehouse vs remote coverage: sessions held, gaps, failed files, last run, quota left')
    .action(async (flags: { exchange?: string[]; symbol?: string[]; all?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      // status reports on a warehouse; it must not leave an empty one behind a mistyped --db.
      if (!existsSync(resolve(ctx.settings.db))) {
        throw new NoWarehouseError(ctx.settings.db, 'status');
      }
      // Parsed before any request; the names are then checked against the warehouse (with the fresh coverage when the API answered).
      const filter = { ...optional('exchanges', parseExchanges(flags.exchange)), ...optional('symbols', parseSymbols(flags.symbol)) };
      // The pairs the next sync buys: the one selection sync and plan compute, from the config file.
      const { selection } = resolveSelection('sync', {}, ctx.settings);
      const { readWarehouseStatus, describeLayout } = await import('../../warehouse/status.js');
      const remote = await fetchRemote(ctx);
      // What waits to load and the credits of runs not in the warehouse yet: read first and alone, so they answer even when another process holds the warehouse.
      const { readOnRecord, creditsOnRecord, filesWaiting } = await import('../../journal/on-record.js');
      const record = await readOnRecord(ctx.settings.archive);
      const { waiting, stopped } = record;
      const local = await readWarehouseStatus(ctx.settings.db, remote.coverage, filter);
      const credits = creditsOnRecord(local.creditsSpent, record);
      const shown = await shownPairs(local.pairs, selection, remote.markets, flags.all === true);
      const result = {
        pairs: shown.pairs,
        pairs_not_shown: shown.hidden,
        // Every paid file not loaded is waiting, the journal's and those the log of a stopped run holds.
        waiting_to_load: { ...waiting, files: filesWaiting(record), filesOfStoppedRun: stopped?.files ?? 0 },
        stopped_run: stopped ?? null,
        paid_not_archived: record.paidNotArchived,
        journal_set_aside: record.setAside,
        credits_spent: credits,
        warehouse_held: local.held ?? null,
        layouts: local.layouts ?? [],
        last_run: local.lastRun ?? null,
        last_sync: local.lastSync ?? null,
        quota: remote.quota ?? null,
        note: remote.note ?? null,
      };
      const layouts = (local.layouts ?? []).map(describeLayout);
      ctx.out.result(result, () =>
        [
          statusText({ ...local, pairs: shown.pairs }, remote, waiting, stopped, credits, shown.hidden),
          ...paidLines(record.paidNotArchived),
          ...setAsideLines(record.setAside),
          ...layoutLines(layouts),
        ].join('\n'),
      );
    });
}

/**
 * The pairs status shows: those the warehouse holds (loaded, failed or listed) and those the selection
 * buys, each marked `in_selection`; with --all every pair of the coverage. `hidden` counts the others.
 */
async function shownPairs(
  pairs: readonly StatusPair[],
  selection: SyncSelection,
  markets: Market[] | undefined,
  all: boolean,
): Promise<{ pairs: (StatusPair & { in_selection: boolean })[]; hidden: number }> {
  const [{ selectPairs }, { selectionOf }] = await Promise.all([import('../../sync/download-plan.js'), import('../../sync/stage-io.js')]);
  const chosen = new Set(selectPairs(pairs, { ...selectionOf(selection), ...(markets ? { markets } : {}) }).map((p) => `${p.exchange}|${p.symbol}`));
  const marked = pairs.map((pair) => ({ ...pair, in_selection: chosen.has(`${pair.exchange}|${pair.symbol}`) }));
  const held = (pair: StatusPair) => pair.files_loaded > 0 || pair.files_failed > 0 || pair.files_missing !== null;
  const shown = all ? marked : marked.filter((pair) => pair.in_selection || held(pair));
  return { pairs: shown, hidden: marked.length - shown.length };
}

function statusText(
  local: WarehouseStatus,
  remote: Remote,
  waiting: WaitingSummary,
  stopped: StoppedRun | undefined,
  credits: CreditsOnRecord,
  hidden: number,
): string {
  const lines = local.held ? [`warehouse: ${local.held}`, ''] : [formatTable(local.pairs), ''];
  if (hidden > 0) lines.push(`${countOf(hidden, 'more pair')} of the remote coverage neither held nor in the selection: gexwh status --all lists them`);
  if (waiting.files > 0 || waiting.runs > 0) lines.push(describeWaiting(waiting));
  if (stopped) lines.push(describeStopped(stopped));
  if (waiting.snapshots > 0)
    lines.push(`waiting to load: ${countOf(waiting.snapshots, 'live snapshot')} journaled by capture; the next capture, sync or gexwh load loads them`);
  if (waiting.problem !== null) lines.push(`journal: ${waiting.problem}`);
  if (waiting.rejected > 0)
    lines.push(`journal: ${waiting.rejected} entry(ies) refused (never loaded; kept in its rejected list): ${waiting.rejectedReasons.join('; ')}`);
  lines.push(...runLines(local, stopped));
  lines.push(creditsLine(credits));
  if (remote.quota) lines.push(quotaLine(remote.quota));
  if (remote.note) lines.push(`note: ${remote.note}`);
  return lines.join('\n');
}

/** Files paid for whose bytes are not in the archive: a download going on, or one a kill cut short. */
function paidLines(paid: readonly PaidNotArchived[]): string[] {
  if (paid.length === 0) return [];
  const names = paid.slice(0, 5).map((file) => escapeLine(file.name));
  const more = paid.length > names.length ? `, and ${paid.length - names.length} more` : '';
  return [
    `paid, bytes not archived: ${countOf(paid.length, 'file')} whose link a run asked for before it stopped (or is downloading now): ${names.join(', ')}${more}; ` +
      `the next gexwh sync or gexwh load loads those whose bytes reached the archive, for 0 credits, and the next sync buys the others again`,
  ];
}

/** Journal names a load set aside unread: kept until a person looks at them and removes them. */
function setAsideLines(paths: readonly string[]): string[] {
  if (paths.length === 0) return [];
  const shown = paths.slice(0, 5).map(escapeLine);
  const more = paths.length > shown.length ? `, and ${paths.length - shown.length} more` : '';
  return [
    `journal: ${countOf(paths.length, 'name')} set aside unread (a link, a FIFO or device, over 128 MiB, or a name gexwh never writes), kept for you to look at, never opened: ` +
      `${shown.join(', ')}${more}; remove them once seen`,
  ];
}

/** The daily file layouts loaded (sync.layouts), one line each. */
function layoutLines(layouts: readonly string[]): string[] {
  return layouts.length === 0 ? [] : ['file layouts loaded (sync.layouts):', ...layouts.map((line) => `  ${line}`)];
}

function describeStopped(stopped: StoppedRun): string {
  return (
    `waiting to load: ${countOf(stopped.files, 'paid file')} (${formatBytes(stopped.bytes)}) of a sync started ${formatInstant(stopped.startedAt)} that stopped before it finished ` +
    `(or is running now), ${countOf(stopped.credits, 'credit')} recorded as spent; the next gexwh sync or gexwh load loads them for 0 credits. Log: ${stopped.log}`
  );
}

function creditsLine(credits: CreditsOnRecord): string {
  const recorded =
    credits.allRuns === null ? 'the warehouse cannot be read' : `${credits.sinceMidnightUtc} since midnight UTC, ${credits.allRuns} by all recorded runs`;
  return `credits spent: ${recorded}${credits.inJournal > 0 ? `; ${credits.inJournal} more by runs waiting in the journal` : ''}`;
}

function runLines(local: WarehouseStatus, stopped: StoppedRun | undefined): string[] {
  const lines: string[] = [];
  // The warehouse's row of a run that stopped hard is still open; its log has what it spent.
  if (local.lastRun && stopped?.runId === local.lastRun.runId)
    lines.push(
      `last run: sync stopped before it finished at ${formatInstant(local.lastRun.startedAt)}; ${countOf(stopped.credits, 'credit')}, ${countOf(stopped.files, 'paid file')} waiting`,
    );
  else if (local.lastRun) lines.push(`last run: ${describeRun(local.lastRun)}`);
  // Captures run every few minutes; the nightly sync's outcome must not scroll out of sight.
  if (local.lastSync && local.lastSync.runId !== local.lastRun?.runId) lines.push(`last sync: ${describeRun(local.lastSync)}`);
  if (!local.lastSync) lines.push('no sync has run on this warehouse yet');
  return lines;
}

function quotaLine(q: NonNullable<Remote['quota']>): string {
  return `quota (${q.tier}): requests ${q.requests.remaining ?? 'unlimited'} of ${q.requests.limit || 'unlimited'} left, file credits ${q.history_files.remaining ?? 'unlimited'} of ${q.history_files.limit || 'unlimited'} left, reset ${formatInstant(q.history_files.reset)}`;
}

function describeWaiting(w: WaitingSummary): string {
  return (
    `waiting to load: ${countOf(w.files, 'paid file')} archived but not loaded (${formatBytes(w.bytes)}, since ${w.oldest === null || w.oldest === undefined ? '-' : formatInstant(w.oldest)}), ${countOf(w.runs, 'run record')}; ` +
    `gexwh load (or the next sync) loads them for 0 credits. Journal: ${w.journal}`
  );
}

function describeRun(r: RunRow): string {
  const what =
    r.command === 'capture'
      ? `${countOf(r.rowsLoaded, 'live row')} added`
      : `${formatCount(r.filesLoaded)} loaded, ${formatCount(r.filesFailed)} failed, ${formatCount(r.filesDeferred)} deferred; ${countOf(r.creditsSpent, 'credit')}`;
  return `${r.command} ${r.outcome ?? 'unfinished'} at ${formatInstant(r.startedAt)}; ${what}, ${countOf(r.requestsSpent, 'request')}`;
}

async function fetchRemote(ctx: CommandContext): Promise<Remote> {
  const [{ createClient }, { usableCoverage }] = await Promise.all([import('../api-client.js'), import('../../sync/coverage.js')]);
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
      markets: me.data.markets.filter((m): m is Market => m === 'crypto' || m === 'tradfi'),
      quota: { tier: me.data.tier, requests: me.data.quota.requests, history_files: me.data.quota.history_files },
    };
  } catch (error) {
    // The message may quote the server: kept on the note's one line. An outage says its host and last error, not its advice.
    const hints = error instanceof GexwhError ? error.hints : {};
    const why = typeof hints.host === 'string' ? `${hints.host}: ${String(hints.last_error)}` : error instanceof Error ? error.message : String(error);
    return { note: `API not reachable (${escapeLine(why)}); coverage is the one last seen by sync` };
  } finally {
    await client.close();
  }
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
