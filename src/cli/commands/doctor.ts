// `gexwh doctor`: is this machine ready for a nightly sync? Key, plan, quota, clock, warehouse, lock,
// archive, disk and config file, each with a verdict and a fix. Exit 0 only when every check passes.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { fail, pass, type Check } from '../../doctor/checks.js';
import { ChecksFailedError, GexwhError, UntrustedConfigError } from '../../core/errors.js';
import { stopSignal } from '../context.js';
import { createOutput, formatTable } from '../output.js';
import type { DoctorInput } from '../../doctor/run.js';
import type { SyncSelection } from '../../sync/selection.js';
import { resolveSelection } from '../selection.js';
import { DEFAULT_CONFIG_PATH, readApiKey, resolveGlobals, type GlobalFlags, type GlobalSettings } from '../settings.js';

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('check the key, plan, quota, clock, warehouse, lock, archive, disk and config file; exit 0 only when all pass')
    .action(async (_flags: object, command: Command) => {
      const flags = command.optsWithGlobals<GlobalFlags>();
      const checked = settingsAndConfigCheck(flags);
      const { settings } = checked;
      let { config } = checked;
      const out = createOutput(settings);
      const [{ runDoctor }, next] = await Promise.all([import('../../doctor/run.js'), nextPlanOf(settings)]);
      const planNext = 'problem' in next ? undefined : next.planNext;
      if ('problem' in next && config.ok) config = fail('config', next.problem, 'fix the value named above (gexwh sync --help lists what is allowed)');
      const report = await runDoctor({
        db: settings.db,
        archive: settings.archive,
        baseUrl: settings.baseUrl,
        apiKey: keyOf(settings),
        config,
        ...(planNext ? { planNext } : {}),
        signal: stopSignal().signal,
        apiTimeoutSeconds: settings.apiTimeoutSeconds,
      });
      const failed = report.checks.filter((c) => !c.ok);
      const table = () => formatTable(report.checks.map((c) => ({ check: c.name, verdict: c.ok ? 'ok' : 'FAIL', detail: c.detail, fix: c.fix ?? '' })));
      if (failed.length === 0) return out.result(report, table);
      // Under --json the checks travel in the error object (one JSON document on stdout).
      if (!settings.json) process.stdout.write(`${table()}\n`);
      throw new ChecksFailedError(`${failed.length} of ${report.checks.length} checks failed: ${failed.map((c) => c.name).join(', ')}`, {
        checks: report.checks,
      });
    });
}

/** The settings, even from a broken config file (then its defaults), and the config file's verdict. */
function settingsAndConfigCheck(flags: GlobalFlags): { settings: GlobalSettings; config: Check } {
  try {
    const settings = resolveGlobals(flags);
    const which =
      settings.configPath === undefined
        ? `no ${DEFAULT_CONFIG_PATH} here or in a parent folder (defaults apply)`
        : settings.configFound === 'named'
          ? `using ${settings.configPath} (named by --config), valid`
          : `using ${settings.configPath} (found upward; yours, writable by you alone), valid`;
    return { settings, config: pass('config', `${which}; warehouse ${resolve(settings.db)}, archive ${resolve(settings.archive)}`) };
  } catch (error) {
    const message = error instanceof GexwhError ? error.message : String(error);
    const none = { path: undefined, values: {} };
    let settings: GlobalSettings;
    try {
      settings = resolveGlobals(flags, process.env, none);
    } catch {
      settings = resolveGlobals({ ...flags, baseUrl: undefined }, { ...process.env, GEX_BASE_URL: undefined }, none);
    }
    // A config another user controls is flagged with its own fix; its values are not used.
    const fix =
      error instanceof UntrustedConfigError
        ? `${String(error.hints.fix)}, or name it with --config to use it anyway`
        : 'fix the field named above (gexwh sync --help lists the config keys)';
    return { settings, config: fail('config', message, fix) };
  }
}

/**
 * The next sync's plan, counted as `gexwh plan` counts it: the selection sync computes (the config
 * file's) through the sync's planner. A selection the config cannot give is the config check's failure.
 */
async function nextPlanOf(settings: GlobalSettings): Promise<{ planNext: NonNullable<DoctorInput['planNext']> } | { problem: string }> {
  let selection: SyncSelection;
  try {
    selection = resolveSelection('sync', {}, settings).selection;
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
  const { planFromWarehouse } = await import('../../sync/local-plan.js');
  const planNext: NonNullable<DoctorInput['planNext']> = async (conn, me) => {
    const plan = await planFromWarehouse(conn, selection, me);
    return {
      files: plan.toDownload.length,
      bytes: plan.toDownload.reduce((sum, file) => sum + file.bytes, 0),
      toReload: plan.toReload.length,
      deferred: plan.deferred.length,
      alreadyLoaded: plan.alreadyLoaded,
    };
  };
  return { planNext };
}

function keyOf(settings: GlobalSettings): { key: string } | { problem: string } {
  try {
    return { key: readApiKey(settings) };
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}
