// `gexwh sync`: the nightly job. `gexwh plan` (commands/plan.ts) is its preview through the same action.
import type { Command } from 'commander';
import type { SyncOptions, SyncSummary } from '../../sync/run.js';
import { InterruptedError, LockError, PartialFailureError } from '../../core/errors.js';
import { contextOf, type CommandContext } from '../context.js';
import { withConfig } from '../option-use.js';
import { prepareAlerts, withAlerts, type AlertFlags, type RunAlerts } from '../alerting.js';
import { resolveSelection } from '../selection.js';

export interface SyncFlags extends AlertFlags {
  exchange?: string[];
  symbol?: string[];
  files?: string[];
  since?: string;
  until?: string;
  maxCredits?: string | number;
  reserveCredits?: string | number;
  maxRequests?: string | number;
  concurrency?: string | number;
  order?: string;
  dryRun?: boolean;
  fillLevels?: boolean;
  fullRescan?: boolean;
  waitLock?: number;
  schemaContract?: 'evolve' | 'freeze';
}

export function registerSync(program: Command): void {
  program
    .command('sync')
    .description('download the missing daily files within the credit budget, verify, archive and load them')
    .action((flags: SyncFlags, command: Command) => syncAction(contextOf(command), flags, flags.dryRun === true));
}

export async function syncAction(ctx: CommandContext, given: SyncFlags, dryRun: boolean): Promise<void> {
  const command = dryRun ? 'plan' : 'sync';
  // Flags win over the config file (the option table says which keys sync and plan read); then every value is validated.
  const flags = withConfig(command, given, ctx.settings.config);
  const { selection, labels } = resolveSelection(command, given, ctx.settings);
  const fillLevels = flags.fillLevels ?? false;
  // The sync engine, DuckDB and the HTTP client load here, not at start-up: --help and bad flags stay quick.
  const [{ runSync }, { connectApi }, { createProgress }, { formatSummary }] = await Promise.all([
    import('../../sync/run.js'),
    import('../api-client.js'),
    import('../progress.js'),
    import('../summary.js'),
  ]);
  // Alerts read the warehouse before the run (each pair's latest capture) and after it (the new ones).
  const alerts = await prepareAlerts(ctx, flags, 'levels', dryRun);
  const { api, close } = connectApi(ctx);
  const progress = createProgress(ctx, dryRun);
  const options: SyncOptions = {
    command: dryRun ? 'plan' : 'sync',
    dbPath: ctx.settings.db,
    archiveRoot: ctx.settings.archive,
    selection,
    labels,
    dryRun,
    fullRescan: flags.fullRescan === true,
    fillLevels,
    ...(flags.waitLock !== undefined ? { waitLockSeconds: flags.waitLock } : {}),
    ...(flags.schemaContract !== undefined ? { schemaContract: flags.schemaContract } : {}),
    recordedOptions: { ...selection, dryRun, fullRescan: flags.fullRescan === true, fillLevels, db: ctx.settings.db, archive: ctx.settings.archive },
  };
  try {
    const summary = await runSync(options, api, ctx.signal, progress.events);
    progress.done();
    await printSummary(ctx, summary, formatSummary, alerts);
  } catch (error) {
    progress.done();
    if ((error instanceof PartialFailureError || error instanceof LockError || error instanceof InterruptedError) && isSummary(error.cause))
      // A partial run loaded files: its new captures are alerted; a held or stopped one loaded none of its own.
      await printSummary(ctx, error.cause, formatSummary, error instanceof PartialFailureError ? alerts : undefined);
    throw error;
  } finally {
    await close();
  }
}

async function printSummary(ctx: CommandContext, summary: SyncSummary, format: (summary: SyncSummary) => string, alerts?: RunAlerts): Promise<void> {
  const { value, text } = await withAlerts(ctx, alerts, summary, format);
  ctx.out.result(value, text);
}

function isSummary(value: unknown): value is SyncSummary {
  return typeof value === 'object' && value !== null && 'outcome' in value && 'plan' in value;
}
