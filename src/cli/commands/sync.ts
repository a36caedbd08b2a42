// `gexwh sync`: the nightly job. `gexwh plan` (commands/plan.ts) is its preview through the same action.
import type { Command } from 'commander';
import type { SyncOptions, SyncSummary } from '../../sync/run.js';
import { InterruptedError, LockError, PartialFailureError } from '../../core/errors.js';
import { contextOf, type CommandContext } from '../context.js';
import { withConfig } from '../option-use.js';
import { prepareAlerts, withAlerts, type AlertFlags, type RunAlerts } from '../alerting.js';
import { resolveSelection } from '../selection.js';
import { definedOnly } from '../../core/defined.js';
import { checkPlanAlone, readPlanFile, writePlanFile } from '../plan-file-io.js';
import type { PlanDocument } from '../../sync/plan-file.js';
import { parseConcurrency, parseCount, type SyncSelection } from '../../sync/selection.js';
import { checkReportFile, reportAfterSync, reportLine, type SyncReport } from '../sync-report.js';

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
  /** plan: also write the plan as a plan file. */
  out?: string;
  /** sync: carry out this plan file. */
  plan?: string;
  report?: string;
}

export function registerSync(program: Command): void {
  program
    .command('sync')
    .description('download the missing daily files within the credit budget, verify, archive and load them')
    .action((flags: SyncFlags, command: Command) => syncAction(contextOf(command), flags, flags.dryRun === true));
}

export async function syncAction(ctx: CommandContext, given: SyncFlags, dryRun: boolean): Promise<void> {
  const options = syncOptionsOf(ctx, given, dryRun);
  checkReportFile(given.report);
  // The sync engine, DuckDB and the HTTP client load here, not at start-up: --help and bad flags stay quick.
  const [{ runSync }, { connectApi }, { createProgress }, { formatSummary }] = await Promise.all([
    import('../../sync/run.js'),
    import('../api-client.js'),
    import('../progress.js'),
    import('../summary.js'),
  ]);
  // Alerts read the warehouse before the run (each pair's latest capture) and after it (the new ones).
  const alerts = await prepareAlerts(ctx, withConfig(options.command, given, ctx.settings.config), 'levels', dryRun);
  const { api, close } = connectApi(ctx);
  const progress = createProgress(ctx, dryRun);
  let planned: PlanDocument | undefined;
  if (given.out !== undefined) progress.events.planned = (document) => (planned = document);
  try {
    const summary = await runSync(options, api, ctx.signal, progress.events);
    progress.done();
    if (given.out !== undefined && planned !== undefined) writePlanFile(given.out, planned);
    await printSummary(ctx, summary, formatSummary, alerts, await reportAfterSync(ctx, given.report));
  } catch (error) {
    progress.done();
    // A partial sync loaded what it could: its report is written too.
    const report = await reportAfterSync(ctx, error instanceof PartialFailureError ? given.report : undefined);
    if ((error instanceof PartialFailureError || error instanceof LockError || error instanceof InterruptedError) && isSummary(error.cause))
      // A partial run loaded files: its new captures are alerted; a held or stopped one loaded none of its own.
      await printSummary(ctx, error.cause, formatSummary, error instanceof PartialFailureError ? alerts : undefined, report);
    throw error;
  } finally {
    await close();
  }
}

/** The run's options: flags win over the config file, then every value is validated; with --plan the file's selection. */
function syncOptionsOf(ctx: CommandContext, given: SyncFlags, dryRun: boolean): SyncOptions {
  const command = dryRun ? 'plan' : 'sync';
  const flags = withConfig(command, given, ctx.settings.config);
  const followed = followedPlan(given);
  const { selection, labels } = followed ? { selection: planSelection(followed.document, given), labels: {} } : resolveSelection(command, given, ctx.settings);
  const fullRescan = followed ? followed.document.fullRescan : flags.fullRescan === true;
  const fillLevels = flags.fillLevels ?? false;
  const { db, archive } = ctx.settings;
  return {
    command,
    dbPath: db,
    archiveRoot: archive,
    selection,
    labels,
    dryRun,
    fullRescan,
    fillLevels,
    ...definedOnly({ waitLockSeconds: flags.waitLock, schemaContract: flags.schemaContract, followPlan: followed }),
    recordedOptions: { ...selection, dryRun, fullRescan, fillLevels, db, archive, ...definedOnly({ plan: followed?.path }) },
  };
}

/** sync --plan FILE: the plan file, read and checked before anything else (no selection flags beside it). */
function followedPlan(given: SyncFlags): { document: PlanDocument; path: string } | undefined {
  if (given.plan === undefined) return undefined;
  checkPlanAlone({ ...given }, given.plan);
  return { document: readPlanFile(given.plan), path: given.plan };
}

/** The plan file's selection, with the flags that do not change what is bought (--concurrency, --max-requests). */
function planSelection(document: PlanDocument, given: SyncFlags): SyncSelection {
  const maxRequests = parseCount(given.maxRequests, '--max-requests');
  return {
    ...document.selection,
    ...(given.concurrency !== undefined ? { concurrency: parseConcurrency(given.concurrency) } : {}),
    ...(maxRequests !== undefined ? { maxRequests } : {}),
  };
}

async function printSummary(
  ctx: CommandContext,
  summary: SyncSummary,
  format: (summary: SyncSummary) => string,
  alerts?: RunAlerts,
  report?: SyncReport,
): Promise<void> {
  const { value, text } = await withAlerts(ctx, alerts, summary, format);
  if (report === undefined) return ctx.out.result(value, text);
  ctx.out.result({ ...value, report }, () => `${text()}\n${reportLine(report)}`);
}

function isSummary(value: unknown): value is SyncSummary {
  return typeof value === 'object' && value !== null && 'outcome' in value && 'plan' in value;
}
