// `gexwh capture`: snapshots the current-data endpoints into live_levels, term_structure and (with
// --by-strike) live_strikes; meant for a cron entry every 15 minutes (README "Live capture"; options and tables in docs/reference.md and docs/warehouse.md).
import type { Command } from 'commander';
import { LockError, PartialFailureError, UsageError } from '../../core/errors.js';
import type { CaptureSummary } from '../../capture/capture.js';
import { parseCaptureVenues } from '../../capture/capture-targets.js';
import { parseCount, parseSymbols } from '../../sync/selection.js';
import { contextOf, type CommandContext } from '../context.js';
import { formatInstant, formatTable } from '../output.js';
import { withConfig } from '../option-use.js';
import { prepareAlerts, withAlerts, type AlertFlags, type RunAlerts } from '../alerting.js';

interface CaptureFlags extends AlertFlags {
  exchange?: string[];
  symbol?: string[];
  byStrike?: boolean;
  force?: boolean;
  dryRun?: boolean;
  maxRequests?: string | number;
  waitLock?: number;
  keepDays?: number;
}

export function registerCapture(program: Command): void {
  program
    .command('capture')
    .description('snapshot current levels and term structure (and per-strike profiles) into the warehouse; for cron every 15 minutes')
    .action((flags: CaptureFlags, command: Command) => captureAction(contextOf(command), flags));
}

async function captureAction(ctx: CommandContext, given: CaptureFlags): Promise<void> {
  const flags = withConfig('capture', given, ctx.settings.config);
  const symbols = parseSymbols(flags.symbol);
  if (symbols === undefined) throw new UsageError('capture needs symbols: --symbol BTC,SPY or "symbol" in the config file');
  const exchanges = parseCaptureVenues(flags.exchange);
  const maxRequests = parseCount(flags.maxRequests, '--max-requests');
  const [{ runCapture }, { captureApiFrom }, { createClient }, { createProgress }] = await Promise.all([
    import('../../capture/capture.js'),
    import('../../capture/api-port.js'),
    import('../api-client.js'),
    import('../progress.js'),
  ]);
  const alerts = await prepareAlerts(ctx, flags, 'live_levels', flags.dryRun === true);
  const client = createClient(ctx);
  const progress = createProgress(ctx, flags.dryRun === true);
  try {
    const summary = await runCapture(captureApiFrom(client), {
      dbPath: ctx.settings.db,
      archiveRoot: ctx.settings.archive,
      ...(flags.keepDays !== undefined ? { keepDays: flags.keepDays } : {}),
      symbols,
      ...(exchanges ? { exchanges } : {}),
      byStrike: flags.byStrike === true,
      force: flags.force === true,
      dryRun: flags.dryRun === true,
      ...(maxRequests !== undefined ? { maxRequests } : {}),
      ...(flags.waitLock !== undefined ? { waitSeconds: flags.waitLock } : {}),
      signal: ctx.signal,
      warn: (message) => ctx.out.warn(message),
      events: progress.events,
    });
    progress.done();
    await print(ctx, summary, alerts);
  } catch (error) {
    progress.done();
    if ((error instanceof PartialFailureError || error instanceof LockError) && isSummary(error.cause))
      await print(ctx, error.cause, error instanceof PartialFailureError ? alerts : undefined);
    throw error;
  } finally {
    await client.close();
  }
}

async function print(ctx: CommandContext, summary: CaptureSummary, alerts?: RunAlerts): Promise<void> {
  const { value, text } = await withAlerts(ctx, alerts, summary, formatCaptureSummary);
  ctx.out.result(value, text);
}

export function formatCaptureSummary(summary: CaptureSummary): string {
  const rows = summary.targets.map((t) => ({
    exchange: t.exchange,
    symbol: t.symbol,
    status: t.status,
    as_of: t.asOf === undefined ? '' : formatInstant(t.asOf),
    requests: summary.dryRun ? t.plannedRequests : t.requests,
    note: t.reason ?? '',
  }));
  const rowsText = `rows added: live_levels ${summary.rowsInserted.live_levels}, term_structure ${summary.rowsInserted.term_structure}, live_strikes ${summary.rowsInserted.live_strikes}`;
  const head = summary.dryRun
    ? `capture dry run at ${formatInstant(summary.serverTime)}: up to ${summary.plannedRequests} request(s); nothing spent`
    : `capture at ${formatInstant(summary.serverTime)}: ${summary.requestsSpent} request(s) spent (planned up to ${summary.plannedRequests}); ${rowsText}`;
  const stop =
    summary.stoppedBy === 'quota'
      ? `stopped: request quota used up; resets at ${summary.quotaStop?.resetAt === undefined ? 'midnight UTC' : formatInstant(summary.quotaStop.resetAt)}`
      : summary.stoppedBy === 'max_requests'
        ? 'stopped: --max-requests reached'
        : '';
  return [head, formatTable(rows), stop].filter((line) => line !== '').join('\n');
}

function isSummary(value: unknown): value is CaptureSummary {
  return typeof value === 'object' && value !== null && 'targets' in value && 'rowsInserted' in value;
}
