// `gexwh sync`: the nightly job. `gexwh plan` (commands/plan.ts) is its preview through the same action.
import type { Command } from 'commander';
import type { SyncOptions, SyncSummary } from '../../sync/run.js';
import { InterruptedError, LockError, PartialFailureError } from '../../core/errors.js';
import { contextOf, type CommandContext } from '../context.js';
import { withConfig } from '../option-use.js';
import { resolveSelection } from '../selection.js';
import { checkReportFile, reportAfterSync, reportLine, type SyncReport } from '../sync-report.js';

export interface SyncFlags {
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
  report?: string;
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
  checkReportFile(given.report);
  // The sync engine, DuckDB and the HTTP client load here, not at start-up: --help and bad flags stay quick.
  const [{ runSync }, { connectApi }, { createProgress }, { formatSummary }] = await Promise.all([
    import('../../sync/run.js'),
    import('../api-client.js'),
    import('../progress.js'),
    import('../summary.js'),
  ]);
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
    printSummary(ctx, summary, formatSummary, await reportAfterSync(ctx, given.report));
  } catch (error) {
    progress.done();
    // A partial sync loaded what it could: its report is written too.
    const report = await reportAfterSync(ctx, error instanceof PartialFailureError ? given.report : undefined);
    if ((error instanceof PartialFailureError || error instanceof LockError || error instanceof InterruptedError) && isSummary(error.cause))
      printSummary(ctx, error.cause, formatSummary, report);
    throw error;
  } finally {
    await close();
  }
}

function printSummary(ctx: CommandContext, summary: SyncSummary, format: (summary: SyncSummary) => string, report?: SyncReport): void {
  if (report === undefined) return ctx.out.result(summary, () => format(summary));
  ctx.out.result({ ...summary, report }, () => `${format(summary)}\n${reportLine(report)}`);
}

function isSummary(value: unknown): value is SyncSummary {
  return typeof value === 'object' && value !== null && 'outcome' in value && 'plan' in value;
}
